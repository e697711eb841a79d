# The vigil commands inside a live gdb session: help, tab completion of
# property and state names, a monitor breakpoint on a non-violation state
# (stops when the first slice enters it; deleted, it stops no more),
# status/slices/show/set/graph, and a checkpoint taken from gdb (gdb lets
# go for CRIU and takes the same pid back; its own breakpoints survive and
# `continue` goes on under monitoring).
. "$(dirname "$0")/lib.sh"

# checkpoints in the test's own directory: gdb is told their numbers, and
# the default one is per pid, where images an earlier process with the
# same pid left make a session's first checkpoint another than 1
start_live run --interactive --checkpoint-dir "$TMP/images" specs/queue_bounds.vigil -- "$TARGETS/queue3"
live_gdb "-ex 'help vigil break' -ex 'complete vigil break queue_b' -ex 'complete vigil break queue_bounds ov' \
 -ex 'vigil break queue_bounds ready' -ex 'vigil breaks' -ex continue -ex bt -ex 'vigil slices queue_bounds' \
 -ex 'vigil delete 1' -ex 'break fill' -ex continue -ex 'info breakpoints' -ex 'vigil checkpoint' -ex 'vigil checkpoints' \
 -ex continue -ex bt -ex 'info breakpoints' -ex 'vigil status' -ex 'vigil graph queue_bounds' \
 -ex 'vigil show queue_bounds no=1' -ex 'delete' -ex 'vigil detach' -ex continue"
grep -q 'Stop the program whenever a slice of PROPERTY enters STATE' "$TMP/gdb" || fail "help vigil break"
grep -qx 'vigil break queue_bounds' "$TMP/gdb" || fail "no completion of the property name"
grep -qx 'vigil break queue_bounds overflow' "$TMP/gdb" || fail "no completion of the state name"
grep -q '^breakpoint 1: stop when a slice of queue_bounds enters ready' "$TMP/gdb" || fail "vigil break"
grep -qE '^vigil: breakpoint 1: queue_bounds slice q=0x[0-9a-f]+: init -> ready at after queue_new\(2\) returned' "$TMP/gdb" ||
	fail "the monitor breakpoint did not stop the program with its message"
# stopped at an `after` event: in the kernel's return trampoline, bt
# finding the real caller of queue_new behind it (#1), or, where the
# kernel puts the return address back before the stop takes effect (6.1),
# in that caller itself (#0)
grep -qE '^#[01] +0x[0-9a-f]+ in main \(' "$TMP/gdb" || fail "bt at the after event does not show queue_new's caller"
[ "$(grep -c '^vigil: breakpoint 1:' "$TMP/gdb")" = 1 ] || fail "the deleted monitor breakpoint stopped again"
grep -qE '^q=0x[0-9a-f]+ +ready' "$TMP/gdb" || fail "vigil slices does not list the slice in ready"
grep -qE '^Breakpoint [0-9]+, fill \(' "$TMP/gdb" || fail "gdb's own breakpoint on fill did not stop"
grep -qE '^1 +[0-9]+ +good +vigil checkpoint \(gdb\)' "$TMP/gdb" || fail "no checkpoint taken from gdb"
# gdb's breakpoint is still there after the detach/attach of the checkpoint
# (held disabled while the pc is on it, enabled again at the next stop)
[ "$(grep -cE '^[0-9]+ +breakpoint +keep y .* in fill at' "$TMP/gdb")" -ge 2 ] || fail "gdb's breakpoint did not survive the checkpoint"
grep -qE '^vigil: queue_bounds entered state overflow' "$TMP/gdb" || fail "no violation stop after the checkpoint"
grep -qE '^#0 .* in queue_push \(' "$TMP/gdb" || fail "bt after the checkpoint"
grep -q 'overflow             1 slices' "$TMP/gdb" || fail "vigil status after the checkpoint"
grep -qE 'digraph' "$TMP/gdb" || fail "vigil graph"
grep -q 'vigil: no such live slice' "$TMP/gdb" || fail "vigil show of a missing slice says so"
grep -q 'monitoring ends' "$TMP/gdb" || fail "vigil detach"
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not end normally after vigil detached"
wait_vigil
expect_rc 1
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program's counts"
echo PASS
