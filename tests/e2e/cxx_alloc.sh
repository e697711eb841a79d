# The C++ allocation family (specs/lib/cxx_alloc.vigil): each mismatch
# kind and a double delete stopped at the bad call with the allocating call
# in the evidence, a delete of a pointer no allocator returned; the leaks of new'd objects; the clean twin quiet.
. "$(dirname "$0")/lib.sh"
SPEC=specs/lib/cxx_alloc.vigil

# mode, violation state, the allocating call, the bad call, gdb's frame 0
cases=(
	"new-free|newed -> new_free|after operator new\(\) returned|before free\(|free"
	"newarr-delete|newed_array -> new_array_delete|after operator new\[\]\(\) returned|before operator delete\(void\*, unsigned long\)\(|operator delete\(void\*, unsigned long\)"
	"malloc-delete|malloced -> malloc_delete|after malloc\(\) returned|before operator delete\(void\*, unsigned long\)\(|operator delete\(void\*, unsigned long\)"
	"new-delarr|newed -> new_delete_array|after operator new\(\) returned|before operator delete\[\]\(void\*\)\(|operator delete\[\]\(void\*\)"
	"newarr-free|newed_array -> new_array_free|after operator new\[\]\(\) returned|before free\(|free"
	"malloc-delarr|malloced -> malloc_delete_array|after malloc\(\) returned|before operator delete\[\]\(void\*\)\(|operator delete\[\]\(void\*\)"
	"bad-delete|unknown -> bad_delete|before operator delete\(void\*, unsigned long\)\(0x[0-9a-f]+( \(.*\))?\)  unknown -> bad_delete|before operator delete\(void\*, unsigned long\)\(|operator delete\(void\*, unsigned long\)"
	"double-delete|deleted -> double_delete|before operator delete\(void\*, unsigned long\)\(.*live -> deleted|before operator delete\(void\*, unsigned long\)\(|operator delete\(void\*, unsigned long\)"
)
for c in "${cases[@]}"; do
	IFS='|' read -r mode state alloc bad frame <<<"$c"
	run_vigil run --tier=kernel $SPEC -- "$TARGETS/cxxqueue" "$mode"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "state  $state \(violation\)"
	expect_out "event  $bad"
	expect_out "$alloc"
	expect_no_out "cxxqueue: done"
	# stopped at the bad call, before it runs (glibc has not aborted)
	[ "$(proc_state "$pid")" = T ] || fail "$mode: target not stopped"
	gdb_handoff "-ex bt"
	expect_frame 0 "$frame" "$mode: not stopped in $frame"
	# the operator delete forms carry a return probe (they are `outside`
	# functions): vigil, leaving, put the real return address back in
	# place of the trampoline's, so gdb unwinds to main as for free
	expect_frame 1 "main" "$mode: main is not the caller"
	kill -KILL "$pid"
done

# the same stop where a probe cannot send the thread back to the call
# (Linux before 6.18, or VIGIL_NO_REWIND), so that a machine that rewinds
# tests this path too: operator delete(void*, unsigned long) is endbr64;
# jmp operator delete(void*)@plt, its probe is on the jmp, and the stop
# takes effect at the jmp's target; the gdb command file puts the thread
# back on the jmp, found in the process's maps by the library's device
# and inode or by its path (an overlayfs root under 6.1 gives the inode
# beneath: the jmp was not found and frame #0 was the PLT stub)
VIGIL_NO_REWIND=1 run_vigil run --tier=kernel $SPEC -- "$TARGETS/cxxqueue" newarr-delete
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "state  newed_array -> new_array_delete \(violation\)"
[ "$(proc_state "$pid")" = T ] || fail "no rewind: target not stopped"
gdb_handoff "-ex bt"
expect_frame 0 "operator delete\(void\*, unsigned long\)" "no rewind: frame #0 is not operator delete(void*, unsigned long)"
expect_frame 1 "main" "no rewind: main is not the caller"
# where the library has that jmp (Debian 12's), the mend did it
if grep -q "operator delete(void\*, unsigned long)'s jmp (a tail call)" "$TMP/out"; then
	gdbfile=$(sed -nE 's/.*gdb -p [0-9]+ -x (.*)/\1/p' "$TMP/out" | head -1)
	grep -q "set \$pc = " "$gdbfile" ||
		fail "no rewind: the gdb command file does not put the thread back on the jmp"
fi
kill -KILL "$pid"

# the clean twin: every form (nothrow new, new[], malloc/free, virtual
# destructors through the deleting destructor) released the right way
for tier in kernel user; do
	run_vigil run --tier=$tier $SPEC -- "$TARGETS/cxxqueue" clean
	expect_rc 0
	expect_no_out VIOLATION
	expect_no_out nonaccepting
	expect_out "cxxqueue: done 45"
done

# three Queues and their item arrays never deleted: six leaks, each the
# new that made it, and no malloc (operator new calls it: that is one
# allocation, reported once)
run_vigil run --tier=kernel $SPEC -- "$TARGETS/cxxqueue" leak
expect_rc 1	# leaks are errors at the end, as specs/lib/leak.vigil's
[ "$(grep -c 'cxx_leak: slice p=0x[0-9a-f]* ends nonaccepting in state live' "$TMP/out")" = 6 ] ||
	fail "expected 6 leaks"
expect_no_out "after malloc"
expect_out "cxxqueue: done 48"
# a write into a deleted object, by watchpoint (user tier: the delete holds
# the thread until the watchpoint is armed)
if ! has_debug_regs; then
	run_vigil run --watch-policy=evict specs/lib/cxx_use_after_delete.vigil -- "$TARGETS/cxxqueue" use-after-delete
	expect_rc 0
	expect_blind
	expect_out "cxx_use_after_delete: write \*p @ size"
	expect_out "ERROR SUMMARY: 0 errors; 1 slice inconclusive"
	expect_no_out VIOLATION
	skip debug_regs "$WHY"
fi
if ! has_sound_debug_regs; then
	# the write after delete is still caught, its slice marked as maybe
	# not real; the clean run's blocks, which operator delete writes
	# into, could be reported again as written after delete
	run_vigil run --watch-policy=evict specs/lib/cxx_use_after_delete.vigil -- "$TARGETS/cxxqueue" use-after-delete
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_stale
	expect_out "write \*p @ size .*: 42 \(was [0-9]+\) at 0x[0-9a-f]+  deleted -> use_after_delete"
	expect_out "the violation may not be real"
	skip sound_debug_regs "$WHY"
fi
run_vigil run --watch-policy=evict specs/lib/cxx_use_after_delete.vigil -- "$TARGETS/cxxqueue" use-after-delete
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "state  deleted -> use_after_delete"
# (the block named as malloc's are: "block of 64 bytes from operator new")
expect_out "after operator new\(64\) returned (0x[0-9a-f]+) \(block of 64 bytes from [^)]*\)  none -> live"
expect_out "before operator delete\(void\*, unsigned long\)\(0x[0-9a-f]+( \(.*\))?\)  live -> deleted"
expect_out "write \*p @ size .*: 42 \(was [0-9]+\) at 0x[0-9a-f]+  deleted -> use_after_delete"
run_vigil run --watch-policy=evict specs/lib/cxx_use_after_delete.vigil -- "$TARGETS/cxxqueue" clean
expect_rc 0
expect_no_out VIOLATION
echo "cxx_alloc: ok"
