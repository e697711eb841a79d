# gdb inside a function with an `after` probe (issue 17 point 4): the
# return address on the stack is the kernel's uretprobe trampoline's
# (0x7fffffffe000) until the function returns; gdb's extension puts the
# real ones there while gdb has the program stopped (scripts/gdb/
# vigil_returns.py, from vigil's `returns`) and the trampoline's back
# before the thread runs again. So, in work() (probed `after work`),
# called by caller():
# - bt shows caller then main, never the trampoline; up goes to caller;
# - finish returns to caller with work's value;
# - next off work's last line ends in caller;
# - finish out of caller (after up) returns to main;
# and every `after work` event is seen: vigil's count equals the
# program's; the same with 17 threads, and after gdb detaches inside work.
# A checkpoint taken inside work restores to a program that runs on. Then gdb is killed while it holds the program inside work:
# vigil puts the trampoline back itself (its count is not checked there:
# monitoring ends with gdb, maybe before the program's next return).
. "$(dirname "$0")/lib.sh"

cat >"$TMP/work.vigil" <<'SPEC'
property works "work returns"
state a accepting {
  after work(n) returns s -> a
}
SPEC
INSIDE=$(grep -n 'tailcalls.c: inside work' tests/targets/tailcalls.c | cut -d: -f1)
LAST=$(grep -n '	return s;' tests/targets/tailcalls.c | cut -d: -f1)

start_live run --interactive "$TMP/work.vigil" -- "$TARGETS/tailcalls" 4
live_gdb "-ex 'break tailcalls.c:$INSIDE' -ex continue -ex bt -ex up -ex 'delete 2' -ex down -ex finish \
 -ex 'break tailcalls.c:$LAST' -ex continue -ex next -ex 'echo AFTER-NEXT\n' -ex bt -ex 'delete 3' \
 -ex 'break tailcalls.c:$INSIDE' -ex continue -ex 'delete 4' -ex up -ex finish -ex continue"
grep -q 7fffffffe000 "$TMP/gdb" && grep -v '^0x00007fffffffe000 in ?? ()$' "$TMP/gdb" | grep -q 7fffffffe000 &&
	fail "gdb shows the trampoline as a frame"
grep -qE '^#1 +0x[0-9a-f]+ in caller \(n=(n@entry=)?10\) at .*tailcalls.c:31' "$TMP/gdb" || fail "bt: frame 1 is not caller"
grep -qE '^#2 +0x[0-9a-f]+ in main ' "$TMP/gdb" || fail "bt: frame 2 is not main"
grep -qE '^Run till exit from #0 +work|^caller \(n=(n@entry=)?10\) at .*tailcalls.c:3[13]' "$TMP/gdb" ||
	fail "finish did not return to caller"
grep -q '^Value returned is \$1 = 45$' "$TMP/gdb" || fail "finish: not work(10)'s value"
sed -n '/AFTER-NEXT/,$p' "$TMP/gdb" | grep -qE '^#0 +caller \(n=(n@entry=)?11\) at .*tailcalls.c:33' ||
	fail "next off work's last line did not end in caller"
grep -qE '^Run till exit from #1 .*caller|in main \(.*tailcalls.c:49' "$TMP/gdb" || fail "finish out of caller did not reach main"
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not run to its end"
wait_vigil
grep -q 'tailcalls: work=4 ' "$TMP/vigil.out" || fail "the program's output"
grep -q 'after:work=4' "$TMP/vigil.err" || fail "an after event was lost (vigil's count is not the program's 4)"

# 17 threads calling work() (threads.c, probed `after work`): stops at a
# breakpoint in one of them while the others may be inside work too; bt
# shows worker as the caller, and every return of every thread is seen
# (without vigil_returns.py's check of gdb's own pending SIGSTOPs, a few
# were lost in one run of four)
cat >"$TMP/twork.vigil" <<'SPEC'
property works "work returns"
state a accepting {
  after work(id, k) -> a
}
SPEC
start_live run --interactive "$TMP/twork.vigil" -- "$TARGETS/threads" 50
live_gdb "-ex 'handle SIGUSR1 nostop noprint pass' -ex 'break threads.c:22' \
 -ex 'shell (sleep 1; kill -USR1 $TARGET_PID) &' -ex continue -ex bt -ex continue -ex bt -ex 'delete 2' -ex continue"
# (a thread gdb still has a stop request of its own pending for keeps the
# trampoline's address, a frame of its own before worker: vigil_returns.py)
[ "$(grep -cE '^#[12] +0x[0-9a-f]+ in worker \(' "$TMP/gdb")" = 2 ] || fail "threads: bt does not show worker as work's caller"
wait_vigil
grep -q 'threads: calls work=850 threads=17' "$TMP/vigil.out" || fail "threads: the program's output"
grep -q 'after:work=850' "$TMP/vigil.err" || fail "threads: an after event was lost"

# gdb detaches inside work: the trampoline is back, the program runs on
# (not left in a stop by the extension's SIGSTOP) and monitoring goes on
start_live run --interactive "$TMP/work.vigil" -- "$TARGETS/tailcalls" 4
live_gdb "-ex 'break tailcalls.c:$INSIDE' -ex continue -ex 'delete 2' -ex bt -ex detach -ex 'shell sleep 1'"
grep -qE '^#1 +0x[0-9a-f]+ in caller ' "$TMP/gdb" || fail "detach: gdb did not stop in work"
wait_vigil
grep -q 'tailcalls: work=4 ' "$TMP/vigil.out" || fail "detach: the program did not run on"
grep -q 'after:work=4' "$TMP/vigil.err" || fail "detach: an after event was lost"

# a checkpoint inside work, restored after work returned: the image has
# the real return address on its stack (the restored process has no
# [uprobes] page: with the trampoline's address it died of SIGSEGV when
# work returned); the return pending at the checkpoint has no `after`
# event (the checkpoint replaces the probes' links), the later ones do
# checkpoints in the test's own directory: gdb is told their numbers, and
# the default one is per pid, where images an earlier process with the
# same pid left make a session's first checkpoint another than 1
start_live run --interactive --checkpoint-dir "$TMP/images" "$TMP/work.vigil" -- "$TARGETS/tailcalls" 4
live_gdb "-ex 'break tailcalls.c:$INSIDE' -ex continue -ex 'delete 2' -ex 'vigil checkpoint' \
 -ex 'break tailcalls.c:33' -ex continue -ex 'vigil restore 1' -ex 'echo RESTORED\n' -ex bt -ex 'delete 3' -ex continue"
sed -n '/RESTORED/,$p' "$TMP/gdb" | grep -qE '^#1 +0x[0-9a-f]+ in caller \(n=(n@entry=)?10\)' || fail "restore: bt does not show caller"
grep -q SIGSEGV "$TMP/gdb" && fail "the restored program returned into the missing [uprobes] page"
grep -q 'exited normally' "$TMP/gdb" || fail "restore: the program did not run to its end"
wait_vigil
grep -q 'after:work=3' "$TMP/vigil.err" || fail "restore: not the 3 after events of the calls after the checkpoint"

# gdb dies inside work, with the real return address in the slot
start_live run --interactive "$TMP/work.vigil" -- "$TARGETS/tailcalls" 4
# (the last section's gdb output goes first: the wait below must see this
# gdb's, and the shell opens the file only when the job starts)
rm -f "$TMP/gdb"
eval "exec $JOIN -batch -ex 'break tailcalls.c:$INSIDE' -ex continue -ex 'delete 2' -ex bt -ex 'shell sleep 60'" >"$TMP/gdb" 2>&1 &
gdb_pid=$!
for _ in $(seq 300); do grep -q '^#2 ' "$TMP/gdb" && break; sleep 0.1; done
grep -qE '^#1 +0x[0-9a-f]+ in caller ' "$TMP/gdb" || { cat "$TMP/gdb"; fail "gdb did not stop in work"; }
kids=$(pgrep -P "$gdb_pid")
kill -9 "$gdb_pid"	# gdb first: without its shell command it would quit cleanly
[ -n "$kids" ] && kill -9 $kids 2>/dev/null
wait_vigil
grep -q 'return address put back to the uretprobe trampoline' "$TMP/vigil.err" || fail "vigil did not put the trampoline back"
for _ in $(seq 100); do grep -q 'tailcalls: work=' "$TMP/vigil.out" && break; sleep 0.1; done
grep -q 'tailcalls: work=4 ' "$TMP/vigil.out" || fail "the program did not run on after gdb died"
echo PASS
