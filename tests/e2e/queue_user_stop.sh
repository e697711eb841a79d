# The bundled example with the bug in the user tier (--tier=user): vigil
# stops the target when it reads the push that overflows, a little after
# it (the kernel tier stops at the push itself: queue_overflow_stop.sh);
# --linger keeps the target alive for that.
. "$(dirname "$0")/lib.sh"

run_vigil run --tier=user specs/queue_bounds.vigil -- "$TARGETS/queue" --bug --linger
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of queue_bounds"
expect_out "state  ready -> overflow"
expect_out "before queue_push"
expect_out "vars   n=8 max=8"
expect_out "queue_bounds: user tier because --tier=user"
[ -n "$pid" ] || fail "no stopped pid printed"
sleep 0.2
[ "$(proc_state "$pid")" = T ] || fail "target $pid is in state '$(proc_state "$pid")', not T"
kill -KILL "$pid" 2>/dev/null
echo ok
