# A spec's `checkpoint` reaction inside a live gdb session (issue 17):
# CRIU cannot dump a process gdb traces, so gdb's extension lets go of it
# for the dump at the reaction's stop, as `vigil checkpoint` typed in gdb
# does, and takes it back; the program then resumes without a stop shown.
#  - `vigil checkpoints` lists the reaction's checkpoint, with its reason
#    and its event count: the first push (queue_new and that push), good;
#  - only the three violations stop gdb ("Catchpoint" lines), no bare
#    SIGSTOP is shown, and gdb says nothing of the checkpoint;
#  - `vigil restore 1` brings the program and the monitor back to it, and
#    `continue` reaches the same violation again (kernel tier);
#  - the program runs to its end, the probes' counts equal its own.
# Both tiers: the kernel tier's probe stops the thread at the event for
# the checkpoint; under gdb the user tier holds it there.
. "$(dirname "$0")/lib.sh"

# a checkpoint when a queue gets its first push (a `before` event: a
# stop at an `after` event stands in the uretprobe trampoline, where no
# checkpoint can be taken); one per run (--checkpoint-gap 60 s)
cat >"$TMP/pushed.vigil" <<'EOF'
property pushed "a checkpoint at a queue's first push"
slice on ptr q
state init accepting { before queue_push(q) -> pushed }
state pushed accepting { before queue_push(q) -> pushed }
on enter pushed: checkpoint
EOF

reaction_in_gdb() {	# TIER GDB-COMMANDS VIOLATION-STOPS
	start_live run --interactive --tier="$1" --checkpoint-gap 60000 --checkpoint-dir "$TMP/images-$1" \
		specs/queue_bounds.vigil "$TMP/pushed.vigil" -- "$TARGETS/queue3"
	live_gdb "$2"
	grep -qE '^1 +2 +good +pushed entered pushed ' "$TMP/gdb" ||
		fail "$1 tier: vigil checkpoints does not list the reaction's checkpoint (good, after 2 events)"
	[ "$(grep -c '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb")" = "$3" ] ||
		fail "$1 tier: expected $3 violation stops with vigil's message"
	[ "$(grep -c '^Catchpoint' "$TMP/gdb")" = "$3" ] || fail "$1 tier: a stop other than the violations was shown"
	grep -v '^Catchpoint' "$TMP/gdb" | grep -q 'SIGSTOP' && fail "$1 tier: a bare SIGSTOP reached the user"
	grep -q 'checkpoint was not taken' "$TMP/gdb" && fail "$1 tier: gdb said the checkpoint was not taken"
	grep -q 'exited normally' "$TMP/gdb" || fail "$1 tier: the program did not run to its end under gdb"
	wait_vigil
	expect_rc 1
	grep -qE "^vigil: checkpoint $TMP/images-$1/ck-0001 \(pushed entered pushed, after 2 events\)" "$TMP/vigil.err" ||
		fail "$1 tier: vigil did not take the reaction's checkpoint"
	grep -q 'checkpoint not taken\|checkpoint failed' "$TMP/vigil.err" && fail "$1 tier: a checkpoint was refused"
	grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "$1 tier: the program's counts"
	grep -q 'after:queue_new=3 before:queue_push=9 before:queue_pop=9$' "$TMP/vigil.err" ||
		fail "$1 tier: the probes' counts are not the program's"
}

reaction_in_gdb kernel "-ex continue -ex 'vigil checkpoints' -ex 'vigil restore 1' -ex continue -ex continue -ex continue -ex continue" 4
grep -qE "^restored pid $TARGET_PID from checkpoint 1 \(pushed entered pushed, after 2 events\)" "$TMP/gdb" ||
	fail "kernel tier: vigil restore 1 did not bring back the reaction's checkpoint"
# the replay meets the first queue's violation again, the same slice
[ "$(grep '^slice     q=0x' "$TMP/gdb" | head -2 | sort -u | wc -l)" = 1 ] ||
	fail "kernel tier: the replay did not reach the same violation"
reaction_in_gdb user "-ex continue -ex 'vigil checkpoints' -ex continue -ex continue -ex continue" 3

# on a terminal (script(1) gives the session a pty; what it reads is what
# the user types, ahead of gdb's prompts): vigil attach --interactive
# starts gdb itself. The program's output goes to a file (a program on a
# terminal is live_tty_restore.sh's).
: >"$TMP/hold"
QUEUE3_HOLD="$TMP/hold" setsid "$TARGETS/queue3" --loops 2 </dev/null >"$TMP/prog.out" 2>&1 &
prog=$!
LEFT_PIDS+=("$prog")
wait_exec "$prog" "$TARGETS/queue3"
(sleep 2; printf 'shell rm %s\ncontinue\nvigil checkpoints\ncontinue\ncontinue\ncontinue\n' "$TMP/hold"
 for _ in $(seq 300); do [ -e "/proc/$prog" ] || break; sleep 0.1; done; sleep 1; printf 'quit\n'; sleep 3) |
	timeout 90 script -qec "$VIGIL attach --interactive --checkpoint-gap 60000 --checkpoint-dir $TMP/images-tty specs/queue_bounds.vigil $TMP/pushed.vigil -p $prog" /dev/null >"$TMP/raw" 2>&1
sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r//g' "$TMP/raw" >"$TMP/out"
cat "$TMP/out"; echo
expect_out "^vigil: live session with the monitor of pid $prog"
expect_out "^vigil: checkpoint $TMP/images-tty/ck-0001 \(pushed entered pushed, after 2 events\)"
expect_out '^1 +2 +good +pushed entered pushed '
[ "$(grep -c '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/out")" = 3 ] ||
	fail "tty: expected three violation stops with vigil's message"
[ "$(grep -c '^Catchpoint' "$TMP/out")" = 3 ] || fail "tty: a stop other than the violations was shown"
grep -v '^Catchpoint' "$TMP/out" | grep -q 'SIGSTOP' && fail "tty: a bare SIGSTOP reached the user"
expect_out 'exited normally'
grep -q 'queue_new=6 queue_push=18 queue_pop=18' "$TMP/prog.out" || fail "tty: the program's counts"
echo PASS
