# The bundled example with the bug: the kernel tier stops the target inside
# queue_push before the push happens; vigil prints the gdb command, exits 1
# and leaves the target stopped; gdb attached with that command shows
# queue_push on the stack and the count equal to the capacity.
. "$(dirname "$0")/lib.sh"

run_vigil run specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of queue_bounds"
expect_out "slice  q=0x[0-9a-f]+"
expect_out "state  ready -> overflow"
expect_out "before queue_push"
expect_out "vars   n=8 max=8"
expect_out "gdb -p $pid -x /.*gdb-$pid.gdb"
[ -n "$pid" ] || fail "no stopped pid printed"
sleep 0.2
[ "$(proc_state "$pid")" = T ] || fail "target $pid is in state '$(proc_state "$pid")', not T"

# Attach gdb exactly as printed, in batch mode.
cmd=$(grep -A1 'Debug it with' "$TMP/out" | tail -1 | sed 's/^ *//')
echo "+ $cmd"
eval "$cmd -batch -ex bt -ex 'print q->count' -ex 'print q->cap' -ex detach" >"$TMP/gdb" 2>&1
cat "$TMP/gdb"
grep -qE '#0 .*queue_push' "$TMP/gdb" || fail "queue_push is not frame #0"
count=$(grep -E '^\$1 = ' "$TMP/gdb" | sed 's/.* = //')
cap=$(grep -E '^\$2 = ' "$TMP/gdb" | sed 's/.* = //')
[ -n "$count" ] && [ "$count" = "$cap" ] || fail "count=$count, capacity=$cap: not equal"
