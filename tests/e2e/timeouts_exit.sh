# A deadline that comes after the target's exit is no timeout, in either
# tier, however late vigil notices the exit. vigil is stopped (SIGSTOP)
# while the target exits and while the deadline of a block it never freed
# (stdout's buffer, under specs/lib/alloc_age.vigil) passes, then
# continued: the kernel tier's timer ran in the kernel meanwhile, and the
# user tier's loop wakes long past the deadline.
. "$(dirname "$0")/lib.sh"

for tier in auto user; do
	echo "+ vigil run --tier=$tier specs/lib/alloc_age.vigil -D limit=1s -- timely exit"
	mkfifo "$TMP/in"
	"$VIGIL" run --tier=$tier specs/lib/alloc_age.vigil -D limit=1s -- \
		"$TARGETS/timely" exit <"$TMP/in" >"$TMP/out" 2>&1 &
	vpid=$!
	LEFT_PIDS+=("$vpid")
	exec 7>"$TMP/in"
	wait_for "$TMP/out" "timely: ready"
	kill -STOP "$vpid"
	echo >&7
	exec 7>&-
	sleep 1.5	# the exit, then the deadline 1 s after "ready"
	kill -CONT "$vpid"
	wait "$vpid"
	RC=$?
	cat "$TMP/out"
	echo "+ exit $RC"
	rm -f "$TMP/in"
	expect_rc 0
	expect_out "alloc_too_old: (kernel|user) tier"
	[ "$tier" = auto ] && kernel_stops_others &&
		expect_out "alloc_too_old: kernel tier"
	expect_out "target exited with status 0"
	expect_out "timeouts=0"
	expect_no_out VIOLATION
done
echo ok
