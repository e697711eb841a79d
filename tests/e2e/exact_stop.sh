# A kernel-tier stop at `before step(i)` where step's first instruction is
# a store (`last = i`, tests/targets/firststore.c): either nothing of step
# has run (the probe sent the thread back to the call, bpf/rewind.bpf.h;
# gdb through vigil's command file shows step at its first instruction
# and last < 3000), or, on a kernel that cannot, the report says that
# the target stopped after step's first instruction, and that is true
# (last == 3000). 50 runs. The store is single-stepped at every call
# (~11 us here), so the stop comes at the 3001st call, not later. The
# user tier's stop is asynchronous (it comes later by the ring buffer's
# latency), so this is the kernel tier's.
. "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-50}
cat >"$TMP/fs.vigil" <<'SPEC'
property first_store "step is called with i below 3000"
state ok accepting {
  before step(i) when i >= 3000 -> over
  before step(i) -> ok
}
state over violation
on enter over: stop
SPEC
exact=0 after=0
for i in $(seq 1 "$RUNS"); do
	"$VIGIL" run --tier=kernel --json "$TMP/v.json" "$TMP/fs.vigil" -- "$TARGETS/firststore" >"$TMP/out" 2>&1
	rc=$?
	pid=$(stopped_pid)
	[ "$rc" -eq 1 ] && [ -n "$pid" ] || { cat "$TMP/out"; fail "run $i: exit $rc, no stopped target"; }
	LEFT_PIDS+=("$pid")
	grep -q 'event  before step(3000) in tid' "$TMP/out" || { cat "$TMP/out"; fail "run $i: not stopped at step(3000)"; }
	# exactly the calls made: the repeated hit of a rewound call is not
	# counted (nor stepped) twice
	grep -q 'before:step=3001$' "$TMP/out" || { cat "$TMP/out"; fail "run $i: probe count is not 3001"; }
	gdb_handoff "-ex 'bt 1' -ex 'print last'"
	last=$(sed -nE 's/^\$1 = //p' "$TMP/gdb")
	if grep -q "is stopped after step's first instruction" "$TMP/out"; then
		grep -q '"stop_note":"stopped after step' "$TMP/v.json" || fail "run $i: JSON lacks the stop_note"
		[ "$last" = 3000 ] || { cat "$TMP/gdb"; fail "run $i: reported after the first instruction, but last=$last"; }
		after=$((after + 1))
	else
		grep -q 'is stopped at this event' "$TMP/out" || fail "run $i: no stop line"
		expect_frame 0 'step \(i=3000' "run $i: frame #0 is not step(3000)"
		[ -n "$last" ] && [ "$last" -lt 3000 ] || { cat "$TMP/gdb"; fail "run $i: stopped before step, yet last=$last"; }
		exact=$((exact + 1))
	fi
	kill -KILL "$pid"
done
# one kernel, one behaviour
[ "$exact" = 0 ] || [ "$after" = 0 ] || fail "$exact exact stops and $after after the first instruction"
echo "$RUNS runs: $exact stopped before step's first instruction, $after after it (reported so)"
