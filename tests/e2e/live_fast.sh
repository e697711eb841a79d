# The in-process tier (--fast) under the live gdb session (--interactive):
# libc's malloc and free are patched, no uprobe, and gdb works on them.
#  A. a double free is stopped before free runs: gdb gets the thread put
#     back on the call (bt: #0 free, #1 release), x/i and disassemble show
#     free's original instructions (marked as patched), `vigil patches`
#     lists the patch with the file's bytes; the call skipped (free(NULL))
#     and `continue`: the program ends, and every call before and after
#     the stop is counted, as the program counts them.
#  B. stepping into malloc from main and on in it; stepi into the stub and
#     the agent: bt reaches main, finish there is refused with the way
#     out, and continue runs on (no stray trap flag); `break malloc` stops
#     after the patch, bt shows main (the agent's return stub hidden),
#     finish returns to main with the value the property then holds as a
#     live block; `break free` and finish back to release; the double
#     free still stops; the counts as in A.
#  C. vigil detach under gdb: the patches stay, said; the program runs on.
#  D. a user-tier property's events keep their uprobes under gdb.
#  E. patches and uprobes in one run: x/i shows the program's
#     instructions at both.
#  F. a program function patched (--fast tick): break, bt, and next from
#     its first byte, through the stub and back; tbreak stops once; the
#     counts exact.
# A breakpoint gdb places itself (advance) on a patch keeps it whole.
. "$(dirname "$0")/lib.sh"
unset VIGIL_FAST

no_harm() {	# $1: which part
	grep -qE 'received signal (SIGSTOP|SIGTRAP|SIGSEGV|SIGILL|SIGABRT)' "$TMP/gdb" &&
		fail "$1: a signal reached the user in gdb"
	grep -q 'exited normally' "$TMP/gdb" || fail "$1: the program did not run to its end under gdb"
	wait_vigil
	expect_rc 1
	grep -q 'in-process tier: [0-9]* functions patched' "$TMP/vigil.err" || fail "$1: nothing patched"
	grep -q 'allocs: calls malloc=1000 free=1001' "$TMP/vigil.out" || fail "$1: the program's counts"
	grep -q 'after:malloc=1000 .*before:free=1001' "$TMP/vigil.err" || fail "$1: vigil's counts differ from the program's"
	grep -q 'violations=1' "$TMP/vigil.err" || fail "$1: not one violation"
}

# --- A ---------------------------------------------------------------------
start_live run --interactive --fast hot specs/lib/double_free.vigil -- "$TARGETS/allocs" --double-free
[ "$(proc_state "$TARGET_PID")" = T ] || fail "the program is not waiting for gdb"
live_gdb "-ex 'advance free' -ex 'x/2xb free' -ex 'advance free' -ex continue -ex bt -ex 'x/2i \$pc' -ex 'disassemble free' -ex 'vigil patches' -ex 'set \$rdi = 0' -ex continue"
# gdb's own breakpoint on the patch (advance): the patch intact after it
grep -qE '^__GI___libc_free \(mem=mem@entry=0x[0-9a-f]+\) at ' "$TMP/gdb" || fail "A: advance free did not stop in free"
grep -qE '^0x[0-9a-f]+ <__GI___libc_free>:\s+0xe9\s' "$TMP/gdb" || fail "A: free's memory does not start with the patch's jmp after advance"
grep -q 'vigil: double_free entered state double_free at before free' "$TMP/gdb" || fail "A: no stop with vigil's message"
grep -qE '^#0 +__GI___libc_free \(mem=' "$TMP/gdb" || fail "A: bt does not start at free's call"
grep -qE '^#1 .* in release \(' "$TMP/gdb" || fail "A: bt lacks free's caller"
grep -qE '^=> 0x[0-9a-f]+ <__GI___libc_free>:\s+test +%rdi,%rdi\s+# vigil: patched, runs jmp 0x[0-9a-f]+' "$TMP/gdb" ||
	fail "A: x/i \$pc does not show free's first instruction, marked"
grep -qE '^ +0x[0-9a-f]+ <\+3>:\s+je .*# vigil: patched$' "$TMP/gdb" || fail "A: disassemble does not mark the patched bytes"
grep -qE '<\+0>:\s+jmp' "$TMP/gdb" && fail "A: disassemble shows the patch's jmp"
# the original bytes vigil lists are the file's
libc=$(awk '$6 ~ /libc\.so\.6$/ { print $6; exit }' /proc/"$TARGET_PID"/maps 2>/dev/null)
[ -n "$libc" ] || libc=/lib/x86_64-linux-gnu/libc.so.6
off=$(nm -D "$libc" | awk '$3 == "free@@GLIBC_2.2.5" { print $1 }')
row=$(grep -E '^free +0x[0-9a-f]+ +[0-9]+ +[0-9a-f]+ ' "$TMP/gdb") || fail "A: vigil patches has no row for free"
len=$(echo "$row" | awk '{ print $3 }')
want=$(python3 -c "import sys; f = open(sys.argv[1], 'rb'); f.seek(int(sys.argv[2], 16)); print(f.read(int(sys.argv[3])).hex())" "$libc" "$off" "$len")
[ "$(echo "$row" | awk '{ print $4 }')" = "$want" ] || fail "A: vigil patches' bytes for free are not the file's ($row, file: $want)"
no_harm A

# --- B ---------------------------------------------------------------------
start_live run --interactive --fast hot specs/lib/double_free.vigil -- "$TARGETS/allocs" --double-free
live_gdb "-ex 'break allocs.c:24' -ex continue -ex step -ex step -ex bt \
	-ex continue -ex step -ex 'stepi 16' -ex bt -ex finish -ex 'delete 2' \
	-ex 'break malloc' -ex continue -ex bt -ex finish -ex 'vigil slices double_free live' -ex 'delete 3' \
	-ex 'break free' -ex continue -ex bt -ex finish -ex 'delete 4' \
	-ex continue -ex bt -ex 'set \$rdi = 0' -ex continue"
# stepping into malloc, and on in it
grep -qE '^__GI___libc_malloc \(bytes=bytes@entry=16\) at ./malloc/malloc.c:3288' "$TMP/gdb" || fail "B: step did not enter malloc"
grep -qE '^#0 +__GI___libc_malloc \(.*malloc.c:3289$' "$TMP/gdb" || fail "B: step from malloc's first line did not stay in malloc"
# inside the agent, entered by stepi from malloc's first byte
grep -qE '^#2 +0x[0-9a-f]+ in main \(' "$TMP/gdb" || fail "B: bt inside the agent does not reach main"
grep -q "inside vigil's in-process agent .*tbreak \*0x[0-9a-f]* (malloc)" "$TMP/gdb" || fail "B: finish inside the agent not refused"
# break malloc: after the patch, bt and finish to main
grep -q "^(vigil: malloc's first [0-9]* bytes are the in-process tier's patch; stopped after them" "$TMP/gdb" ||
	fail "B: break malloc did not stop after the patch"
grep -qE '^#1 +0x[0-9a-f]+ in main \(' "$TMP/gdb" || fail "B: bt in malloc does not show main"
ret=$(sed -nE 's/^Value returned is \$[0-9]+ = \(void \*\) (0x[0-9a-f]+)$/\1/p' "$TMP/gdb" | head -1)
[ -n "$ret" ] || fail "B: finish from malloc returned no value"
grep -qE "^p=$ret +live" "$TMP/gdb" || fail "B: the block malloc returned ($ret) is not a live slice"
# break free, finish to release
grep -qE '^Breakpoint 4, .*__GI___libc_free' "$TMP/gdb" || fail "B: break free did not stop"
grep -qE '^0x[0-9a-f]+ in release \(' "$TMP/gdb" || fail "B: finish from free did not return to release"
# and the double free, still stopped at its call
grep -q 'vigil: double_free entered state double_free at before free' "$TMP/gdb" || fail "B: the double free did not stop"
no_harm B

# --- C: vigil detach while gdb holds the program --------------------------
# vigil cannot stop the threads gdb traces to take the patches out: they
# stay, said, and the functions run on through the orphaned agent
start_live run --interactive specs/lib/double_free.vigil -- "$TARGETS/allocs"
live_gdb "-ex 'break release' -ex continue -ex 'vigil detach' -ex 'delete 2' -ex continue"
grep -q 'exited normally' "$TMP/gdb" || fail "C: the program did not run to its end after vigil detach"
wait_vigil
expect_rc 0
grep -q "the in-process tier's patches out of pid $TARGET_PID: .*(they stay: the functions keep working, unrecorded)" "$TMP/vigil.err" ||
	fail "C: vigil did not say the patches stay"
grep -q 'allocs: calls malloc=1000 free=1000' "$TMP/vigil.out" || fail "C: the program's counts"

# --- E: patches and uprobes together: x/i shows neither jmp nor int3 -------
start_live run --interactive tests/specs/release_once.vigil -- "$TARGETS/allocs" --double-free
live_gdb "-ex 'x/i release' -ex 'x/i malloc' -ex kill"
wait_vigil
grep -q 'in-process tier: [0-9]* function' "$TMP/vigil.err" || fail "E: malloc not patched"
grep -qE '^ +0x[0-9a-f]+ <release>:\s+\S' "$TMP/gdb" || fail "E: x/i release printed nothing"
grep -qE '<release>:\s+int3' "$TMP/gdb" && fail "E: x/i shows the probe's int3"
grep -qE '<__GI___libc_malloc>:\s+push\s+%r12\s+# vigil: patched' "$TMP/gdb" || fail "E: x/i malloc is not the original, marked"

# --- F: a program function (--fast tick), with its own debug info ---------
start_live run --interactive --fast tick specs/ticks.vigil -- "$TARGETS/ticker" 2000
live_gdb "-ex 'break tick' -ex continue -ex bt -ex 'delete 2' -ex finish -ex 'advance tick' -ex next -ex bt -ex 'tbreak tick' -ex continue -ex continue"
grep -q "^(vigil: tick's first [0-9]* bytes are the in-process tier's patch; stopped after them" "$TMP/gdb" ||
	fail "F: break tick did not stop after the patch"
# the call's line in main, and the line after it
call=$(grep -n 'tick(n++);' tests/targets/ticker.c | cut -d: -f1)
grep -qE "^#1 +0x[0-9a-f]+ in main \(.*ticker.c:$call\$" "$TMP/gdb" || fail "F: bt in tick does not show main"
grep -q "^(vigil: through the in-process tier's stub, back into tick)" "$TMP/gdb" || fail "F: next from tick's first byte did not go through the stub"
grep -qE "^#0 +main \(.*ticker.c:$((call + 1))\$" "$TMP/gdb" || fail "F: next did not end on main's next line"
# a tbreak stops once (then the program runs to its end)
grep -qE '^Temporary breakpoint 3, 0x[0-9a-f]+ in tick \(' "$TMP/gdb" || fail "F: tbreak tick did not stop"
grep -q 'exited normally' "$TMP/gdb" || fail "F: the program did not run to its end"
wait_vigil
grep -q 'ticker: calls tick=2000$' "$TMP/vigil.out" || fail "F: the program's count"
grep -qE 'before:tick=2000( |$)' "$TMP/vigil.err" || fail "F: vigil's count differs from the program's"

# --- D: a user-tier property keeps its uprobes under gdb ------------------
# (its stop holds the thread at the event, which the agent cannot)
start_live run --interactive --tier=user specs/lib/double_free.vigil -- "$TARGETS/allocs" --double-free
live_gdb "-ex continue -ex bt -ex kill"
wait_vigil
grep -q 'in-process tier: [0-9]* function' "$TMP/vigil.err" && fail "D: a user-tier property's functions patched under gdb"
grep -q 'vigil: double_free entered state double_free at before free' "$TMP/gdb" || fail "D: no stop"
grep -qE '^#1 .* in release \(' "$TMP/gdb" || fail "D: the user-tier stop is not at free's call"
echo "PASS"
