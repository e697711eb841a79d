# The kernel tier stops the queue example inside queue_push with the count
# equal to the capacity, every time: 50 runs with the bug flag.
. "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-50}
for i in $(seq 1 "$RUNS"); do
	"$VIGIL" run --tier=kernel specs/queue_bounds.vigil -- "$TARGETS/queue" --bug >"$TMP/out" 2>&1
	rc=$?
	pid=$(stopped_pid)
	[ "$rc" -eq 1 ] && [ -n "$pid" ] || { cat "$TMP/out"; fail "run $i: exit $rc, no stopped target"; }
	LEFT_PIDS+=("$pid")
	[ "$(proc_state "$pid")" = T ] || fail "run $i: target not stopped"
	# read the queue without resuming the target: vigil's gdb command
	# file selects the thread (and steps a call an exact stop left it
	# at, bpf/rewind.bpf.h); gdb detaches leaving it stopped
	gdb_handoff "-ex 'print q->count' -ex 'print q->cap'"
	count=$(sed -nE 's/^\$1 = //p' "$TMP/gdb")
	cap=$(sed -nE 's/^\$2 = //p' "$TMP/gdb")
	[ -n "$count" ] && [ "$count" = "$cap" ] || { cat "$TMP/gdb"; fail "run $i: count=$count capacity=$cap"; }
	kill -KILL "$pid"
done
echo "$RUNS runs: stopped in queue_push with count == capacity every time"
