# The i-RV loop "checkpoint while good, restore on violation", end to end:
#  - the queue example checkpoints (CRIU) while its queue is in state ready,
#    and on the overflow restores the last good checkpoint and stops there;
#    not while a thread is inside a uretprobe's return trampoline;
#  - the images are a ring of --checkpoints N, each with its meta file and
#    the monitor's state beside it, private to the user (0700);
#  - gdb attached to the restored process continues it, and it hits the
#    overflow again (it prints the 2001st push);
#  - vigil restore --monitor brings a checkpoint back with the monitor state
#    saved beside it and reports the same violation again.
. "$(dirname "$0")/lib.sh"

echo "+ vigil run --checkpoint-dir $TMP/ck --checkpoints 3 --checkpoint-gap 500 specs/queue_loop.vigil -- queue --bug"
"$VIGIL" run --checkpoint-dir "$TMP/ck" --checkpoints 3 --checkpoint-gap 500 \
	specs/queue_loop.vigil -- "$TARGETS/queue" --bug >>"$TMP/target.out" 2>>"$TMP/out"
RC=$?
cat "$TMP/out"
pid=$(sed -nE 's/.*target pid ([0-9]+) is restored from.*/\1/p' "$TMP/out")
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "queue_bounds: kernel tier"
expect_out "VIOLATION of queue_bounds"
expect_out "checkpoint $TMP/ck/ck-[0-9]+ \(queue_bounds entered ready, after [0-9]+ events\)"
# the first `ready` comes at the return of queue_new: a thread in the
# uretprobe trampoline cannot be restored, that checkpoint waits. Only a
# kernel whose return probes trap by a system call (sys_uretprobe, 6.11:
# its own symbol table says) stops the thread inside the trampoline;
# before it (Debian 12's 6.1) the return address is back in place when
# the stop takes effect, and the first checkpoint is taken at once.
if grep -q ' __x64_sys_uretprobe$' /proc/kallsyms; then
	expect_out "checkpoint deferred: thread [0-9]+ is returning from a probed function \(queue_bounds entered ready\)"
else
	expect_no_out "checkpoint deferred"
	expect_out "checkpoint $TMP/ck/ck-0001 \(queue_bounds entered ready, after 1 events\)"
fi
[ -n "$pid" ] || fail "no restored pid printed"
sleep 0.2
[ "$(proc_state "$pid")" = T ] || fail "restored target $pid is in state '$(proc_state "$pid")', not T"

# (the output files are opened for append, as logs are: CRIU refuses to
# restore a process whose non-append output file has changed size)

# the ring: at most 3 images, each complete and private
n=$(ls -d "$TMP"/ck/ck-* | wc -l)
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "$n images kept, expected 1 to 3"
taken=$(sed -nE 's/.*checkpoints: taken=([0-9]+).*/\1/p' "$TMP/out")
[ "${taken:-0}" -ge "$n" ] || fail "taken=$taken but $n images"
for d in "$TMP"/ck/ck-*; do
	[ "$(stat -c %a "$d")" = 700 ] || fail "$d is not 0700"
	grep -q '^reason=queue_bounds entered ready$' "$d/meta" || fail "$d/meta lacks the reason"
	grep -qE '^events=[0-9]+$' "$d/meta" || fail "$d/meta lacks the event count"
	grep -qE '^time_ns=[0-9]+$' "$d/meta" || fail "$d/meta lacks the time"
	grep -qE '^slice queue_bounds 1 ready 0 [0-9]+ 0 0 0 [0-8] 8$' "$d/monitor.state" ||
		fail "$d/monitor.state lacks the queue's slice: $(cat "$d/monitor.state")"
done
last=$(sed -nE 's/.*is restored from ([^ ]+) and.*/\1/p' "$TMP/out")
[ "$last" = "$(ls -d "$TMP"/ck/ck-* | tail -1)" ] || fail "restored $last, not the newest good image"

# gdb, exactly as printed: the restored process runs on and overflows again
cmd=$(grep -A1 'Debug it with' "$TMP/out" | tail -1 | sed 's/^ *//')
echo "+ $cmd"
timeout 60 bash -c "$cmd -batch -ex continue" >"$TMP/gdb" 2>&1
cat "$TMP/gdb"
grep -q 'exited normally' "$TMP/gdb" || fail "the restored process did not run to its end under gdb"
grep -q 'queue: calls queue_new=1 queue_push=2001 ' "$TMP/target.out" ||
	fail "the restored process did not push 2001 times: $(cat "$TMP/target.out")"

# vigil restore --monitor: the monitor goes on from the saved state and
# sees the overflow again (a monitor from scratch would have no slice for
# the queue, made before the checkpoint, and see nothing)
run_vigil restore --force "$last" --monitor specs/queue_bounds.vigil
pid2=$(stopped_pid)
[ -n "$pid2" ] && LEFT_PIDS+=("$pid2")
expect_rc 1
expect_out "restored pid [0-9]+ from $last"
expect_out "VIOLATION of queue_bounds"
expect_out "state  ready -> overflow"
expect_out "vars   n=8 max=8"

# without --force and without a terminal, a running original is not killed
"$TARGETS/ticker" >/dev/null &
tpid=$!
LEFT_PIDS+=("$tpid")
mkdir "$TMP/fake" && printf 'pid=%d\nexe=%s\nreason=test\n' "$tpid" "$(readlink -f "$TARGETS/ticker")" >"$TMP/fake/meta"
run_vigil restore "$TMP/fake" </dev/null
expect_rc 2
expect_out "still runs.*--force"
kill -0 "$tpid" || fail "vigil restore killed the original without --force"
