# Never harm, in a live session:
#  1. vigil is SIGKILLed while gdb holds the program at a violation: the
#     probes are gone with it and the program stays debuggable: `continue`
#     runs it to its end in gdb, no trap left in its text;
#  2. gdb is SIGKILLed at a violation: vigil resumes the program, ends
#     monitoring (probes gone), and the program runs to its end;
#  3. the same with `vigil keep-stopped`: the program stays stopped.
. "$(dirname "$0")/lib.sh"

# 1. vigil dies
start_live run --interactive specs/queue_bounds.vigil -- "$TARGETS/queue3"
live_gdb "-ex continue -ex 'shell kill -9 $VIGIL_PID' -ex 'shell sleep 0.5' -ex continue -ex 'info inferiors'"
grep -q 'vigil: queue_bounds entered state overflow' "$TMP/gdb" || fail "no first stop"
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not run to its end in gdb after vigil died"
grep -qE 'SIGTRAP|SIGSEGV' "$TMP/gdb" && fail "a probe's trap outlived vigil"
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program's output"
wait "$VIGIL_PID" 2>/dev/null

# 2. gdb dies: vigil resumes the program and ends
start_live run --interactive specs/queue_bounds.vigil -- "$TARGETS/queue3"
eval "exec $JOIN -batch -ex continue -ex 'shell sleep 60'" >"$TMP/gdb" 2>&1 &
gdb_pid=$!
for _ in $(seq 300); do grep -q '^Catchpoint 1' "$TMP/gdb" && break; sleep 0.1; done
grep -q '^Catchpoint 1' "$TMP/gdb" || { cat "$TMP/gdb"; fail "gdb did not stop at the violation"; }
pkill -9 -P "$gdb_pid" 2>/dev/null	# its shell command, then gdb
kill -9 "$gdb_pid"
wait_vigil
grep -q 'gdb went away: monitoring ends, the program runs on' "$TMP/vigil.err" || fail "vigil did not notice gdb's end"
for _ in $(seq 100); do grep -q 'queue_new=3' "$TMP/vigil.out" && break; sleep 0.1; done
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program did not run on after gdb died"

# 3. the same, the user asked to keep it stopped
start_live run --interactive specs/queue_bounds.vigil -- "$TARGETS/queue3"
eval "exec $JOIN -batch -ex 'vigil keep-stopped on' -ex continue -ex 'shell sleep 60'" >"$TMP/gdb" 2>&1 &
gdb_pid=$!
for _ in $(seq 300); do grep -q '^Catchpoint 1' "$TMP/gdb" && break; sleep 0.1; done
grep -q "stays stopped if gdb goes away" "$TMP/gdb" || { cat "$TMP/gdb"; fail "vigil keep-stopped"; }
pkill -9 -P "$gdb_pid" 2>/dev/null	# its shell command, then gdb
kill -9 "$gdb_pid"
wait_vigil
grep -q 'stays stopped (vigil keep-stopped)' "$TMP/vigil.err" || fail "vigil did not say it leaves the program stopped"
sleep 0.5
[ "$(proc_state "$TARGET_PID")" = T ] || fail "the program was not left stopped"
echo PASS
