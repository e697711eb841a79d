# gdb's own breakpoints with vigil's probes in place (live session): a
# breakpoint on queue_push, a probed function, fires at every call (it
# stands one instruction past the probe: a breakpoint on the probed
# address itself would never fire and could erase the probe); x/i and
# disassemble show the program's instruction there, not the probe's int3; once it is
# deleted the program runs on and vigil's probe counts equal the
# program's own.
. "$(dirname "$0")/lib.sh"

start_live run --interactive specs/queue_bounds.vigil -- "$TARGETS/queue3"
live_gdb "-ex 'break queue_push' -ex 'x/i queue_push' -ex 'disassemble queue_push' -ex continue -ex continue -ex continue -ex continue -ex 'info breakpoints' \
 -ex 'delete 2' -ex continue -ex continue -ex continue -ex continue"
grep -qE '^ +0x[0-9a-f]+ <queue_push>:\s+int3' "$TMP/gdb" && fail "x/i shows the probe's int3"
grep -qE '^ +0x[0-9a-f]+ <queue_push>:\s+\S' "$TMP/gdb" || fail "x/i queue_push printed nothing"
grep -qE '^ +0x[0-9a-f]+ <\+0>:\s+int3' "$TMP/gdb" && fail "disassemble shows the probe's int3"
grep -qE '^ +0x[0-9a-f]+ <\+0>:\s+\S' "$TMP/gdb" || fail "disassemble queue_push printed nothing"
# pushes 1 and 2 of the first queue, the violation at push 3, then push 3
# itself reaches the breakpoint (the probe's stop came first)
[ "$(grep -cE '^Breakpoint 2, 0x[0-9a-f]+ in queue_push \(' "$TMP/gdb")" = 3 ] ||
	fail "the breakpoint on the probed queue_push did not fire at each of the first 3 calls"
grep -qE 'v=v@entry=0\)' "$TMP/gdb" && grep -qE 'v=v@entry=1\)' "$TMP/gdb" || fail "the breakpoint stops are not the first calls"
[ "$(grep -c '^vigil: queue_bounds entered state overflow' "$TMP/gdb")" = 3 ] || fail "the violations did not all stop gdb"
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not run to its end"
grep -qE 'Breakpoint -[0-9]+' "$TMP/gdb" && fail "gdb showed vigil's internal breakpoint"
wait_vigil
expect_rc 1
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program's counts"
grep -q 'after:queue_new=3 before:queue_push=9 before:queue_pop=9' "$TMP/vigil.err" || fail "a probe hit was lost around gdb's breakpoint"
echo PASS
