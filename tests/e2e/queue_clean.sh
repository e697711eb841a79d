# Without the bug flag: no violation, exit 0, a stats line, and per-probe
# counts equal to the calls the target says it made.
. "$(dirname "$0")/lib.sh"

for tier in kernel user; do
	run_vigil run --tier=$tier specs/queue_bounds.vigil -- "$TARGETS/queue"
	expect_rc 0
	expect_out "queue_bounds: $tier tier"
	expect_out "vigil: stats: events=4001 records=[0-9]+ lost=0 violations=0"
	expect_no_out VIOLATION
	calls=$(sed -nE 's/^queue: calls (.*)/\1/p' "$TMP/out")
	[ -n "$calls" ] || fail "target did not print its counts"
	for kv in $calls; do
		fn=${kv%=*} n=${kv#*=}
		want="(before|after):$fn=$n( |$)"
		expect_out "$want"
	done
	expect_out "target exited with status 0"
done
