# --on-violation=gdb (issue 17 point 1) opens a live session at the first
# violation instead of ending monitoring. Off a terminal: the program is
# left stopped at the violating call, vigil prints the gdb command that
# joins and serves; gdb, joined, shows vigil's message for that stop;
# `continue` runs on under monitoring and the next two violations (other
# queues) stop gdb again with vigil's message; the program runs to its
# end and vigil's probe counts equal the program's own. And under
# --interactive, a violation with --on-violation=stop (no reaction of the
# spec's own) stops gdb like the spec's own `stop` does.
. "$(dirname "$0")/lib.sh"

# no reaction of the spec's own: --on-violation decides
grep -v '^on enter' specs/queue_bounds.vigil >"$TMP/qb.vigil"
start_live run --on-violation=gdb "$TMP/qb.vigil" -- "$TARGETS/queue3"
grep -q 'VIOLATION of queue_bounds' "$TMP/vigil.err" || fail "no violation before the live session"
[ "$(proc_state "$TARGET_PID")" = T ] || fail "the program is not left stopped for gdb"
kill -0 "$VIGIL_PID" || fail "vigil did not stay to serve the session"
live_gdb "-ex bt -ex 'vigil status' -ex continue -ex bt -ex continue -ex continue"
[ "$(grep -c '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb")" = 3 ] ||
	fail "not three stops with vigil's message (the first, and two after continue)"
[ "$(grep '^slice     q=0x' "$TMP/gdb" | sort -u | wc -l)" = 3 ] || fail "the three stops are not three different queues"
[ "$(grep -cE '^#0 .* in queue_push \(' "$TMP/gdb")" = 2 ] || fail "bt does not start at queue_push"
grep -qE '^  overflow +1 slices' "$TMP/gdb" || fail "vigil status in the session"
grep -q 'received signal SIGSTOP' "$TMP/gdb" && fail "a bare SIGSTOP reached the user"
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not run to its end under gdb"
wait_vigil
expect_rc 1
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program's counts"
grep -q 'after:queue_new=3 before:queue_push=9 before:queue_pop=9' "$TMP/vigil.err" || fail "vigil's probe counts differ from the program's"
grep -q 'violations=3' "$TMP/vigil.err" || fail "vigil saw other than 3 violations"

start_live run --interactive --on-violation=stop "$TMP/qb.vigil" -- "$TARGETS/queue3"
live_gdb "-ex continue -ex continue -ex continue -ex continue"
[ "$(grep -c '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb")" = 3 ] ||
	fail "--on-violation=stop: not three stops with vigil's message"
grep -q 'exited normally' "$TMP/gdb" || fail "--on-violation=stop: the program did not run to its end under gdb"
wait_vigil
expect_rc 1
grep -q 'after:queue_new=3 before:queue_push=9 before:queue_pop=9' "$TMP/vigil.err" || fail "--on-violation=stop: vigil's probe counts"
echo PASS
