# gdb quits (issue 17 points 1 and 6): a gdb that ends cleanly (`quit`,
# here the end of -batch, which detaches from a process it attached to)
# while the program is stopped at a violation ends monitoring: vigil says
# so, the program runs on to its end (its own output), not left in a
# group stop, and vigil exits (its probes with it: the program's run
# after it has no trap left, it exits 0). With `vigil keep-stopped on`
# the program stays stopped after the same quit, where gdb left it: at
# the first violation, not run on to the next one before vigil heard of
# gdb's end.
. "$(dirname "$0")/lib.sh"

start_live run --interactive specs/queue_bounds.vigil -- "$TARGETS/queue3" --loops 2
live_gdb "-ex continue -ex 'vigil status' -ex quit"
grep -q '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb" || fail "gdb did not stop at the violation"
grep -qE '^\[Inferior 1 \(process [0-9]+\) detached\]' "$TMP/gdb" || fail "gdb's quit did not detach"
wait_vigil
grep -q 'gdb went away: monitoring ends, the program runs on' "$TMP/vigil.err" || fail "vigil did not end monitoring when gdb quit"
# (between gdb's detach and its exit, which closes its connection, the
# program runs on under vigil's probes: a violation there stops it, and
# vigil, ending, lets it go; then it runs without a probe)
for _ in $(seq 100); do kill -0 "$TARGET_PID" 2>/dev/null || break; sleep 0.1; done
[ "$(proc_state "$TARGET_PID")" = T ] && fail "the program was left stopped after gdb quit"
kill -0 "$TARGET_PID" 2>/dev/null && fail "the program did not run to its end after gdb quit"
grep -q 'queue_new=6 queue_push=18 queue_pop=18' "$TMP/vigil.out" || fail "the program did not run on to its end after gdb quit"

# keep-stopped: the same quit leaves it stopped
start_live run --interactive specs/queue_bounds.vigil -- "$TARGETS/queue3"
live_gdb "-ex 'vigil keep-stopped on' -ex continue -ex quit"
grep -q '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb" || fail "keep-stopped: gdb did not stop at the violation"
wait_vigil
grep -q 'gdb went away: monitoring ends, pid [0-9]* stays stopped (vigil keep-stopped)' "$TMP/vigil.err" ||
	fail "keep-stopped: vigil did not say it leaves the program stopped"
sleep 0.5
[ "$(proc_state "$TARGET_PID")" = T ] || fail "keep-stopped: the program was not left stopped after gdb quit"
grep -q 'violations=1 ' "$TMP/vigil.err" || fail "keep-stopped: the program ran on past where gdb left it"
# and it goes on where it stopped when the user says so, with no probe left
kill -CONT "$TARGET_PID"
for _ in $(seq 100); do grep -q 'queue_new=' "$TMP/vigil.out" && break; sleep 0.1; done
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "keep-stopped: the program did not run on after SIGCONT"
echo PASS
