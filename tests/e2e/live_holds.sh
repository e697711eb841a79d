# vigil's own holds never show up as stops in a live gdb session (issue 17
# point 2): the thread holds of --dynamic (a probe attached while its
# thread waits), of watchpoints being armed (use_after_free arms one at
# every free), and the stop a `checkpoint` reaction makes. Each SIGSTOP
# reaches gdb's catchpoint, vigil answers that it is not a stop to show,
# and the thread goes on without a sign; only the violations stop gdb.
# A `checkpoint` reaction while a tracer other than vigil's gdb extension
# holds the program is not taken (CRIU cannot dump a traced process), and
# vigil says why and what to do.
. "$(dirname "$0")/lib.sh"

# 1. --dynamic: 1000+ arming holds, no stop in gdb, no event lost
start_live run --interactive --dynamic specs/in_session.vigil -- "$TARGETS/phases" 2000 5
live_gdb "-ex continue"
grep -qE 'Catchpoint|SIGSTOP|^vigil: .*entered' "$TMP/gdb" && fail "dynamic: a hold showed up in gdb"
grep -q 'exited normally' "$TMP/gdb" || fail "dynamic: the program did not run to its end under gdb"
wait_vigil
expect_rc 0
holds=$(sed -nE 's/.*dynamic probes: .* ([0-9]+) arming stops.*/\1/p' "$TMP/vigil.err")
[ "${holds:-0}" -ge 100 ] || fail "dynamic: only ${holds:-0} arming holds: not the case this tests"
inside=$(sed -nE 's/.*phases: noise=[0-9]+ inside=([0-9]+).*/\1/p' "$TMP/vigil.out")
[ -n "$inside" ] || fail "dynamic: the program's output"
grep -q "before:noise=$inside " "$TMP/vigil.err" || fail "dynamic: vigil's count of noise is not the program's $inside"

# 3. a checkpoint reaction while a tracer that is not vigil's gdb
# extension holds the program (plain gdb, attached to a live session's
# program without joining it): not taken (CRIU cannot dump a traced
# process, and no extension lets go of it), and vigil says why and what to
# do. With the extension the reaction is taken: live_ckpt_reaction.sh.
cat >"$TMP/pushed.vigil" <<'EOF'
property pushed "a checkpoint at every push"
slice on ptr q
state init accepting { before queue_push(q) -> pushed }
state pushed accepting { before queue_push(q) -> pushed }
on enter pushed: checkpoint
EOF
: >"$TMP/hold"
# (a pause after each queue: the user tier reads the pushes while the
# program still runs under gdb); attached once the first loop is done
QUEUE3_PRINT=1 QUEUE3_HOLD="$TMP/hold" "$TARGETS/queue3" --loops 2 --pause 300 >"$TMP/prog.out" &
prog=$!
LEFT_PIDS+=("$prog")
wait_for "$TMP/prog.out" 'queue 2 done'
start_live attach --interactive --tier=user --checkpoint-gap 0 --checkpoint-dir "$TMP/ck" "$TMP/pushed.vigil" -p "$prog"
timeout 60 gdb -q -batch -nx -p "$prog" -ex 'handle SIGSTOP nostop noprint nopass' -ex 'handle SIGCONT nostop noprint pass' \
	-ex "shell rm $TMP/hold" -ex continue >"$TMP/gdb" 2>&1
cat "$TMP/gdb"
grep -q 'exited normally' "$TMP/gdb" || fail "checkpoint: the program did not run to its end under gdb"
wait_vigil
grep -qE "checkpoint not taken: pid $prog is traced by process [0-9]+ \(gdb\?\), and neither CRIU nor a fork snapshot can take a traced process: take one from gdb with .vigil checkpoint., which lets go of it first" "$TMP/vigil.err" ||
	fail "checkpoint: no reason given for the checkpoint not taken under gdb"
grep -q 'criu dump exited' "$TMP/vigil.err" && fail "checkpoint: CRIU was asked to dump a traced process"
grep -qE '^vigil: checkpoint .*ck-' "$TMP/vigil.err" && fail "checkpoint: a checkpoint was taken of a traced process"
grep -q 'queue_new=6 queue_push=18 queue_pop=18' "$TMP/prog.out" || fail "checkpoint: the program's counts"
grep -q 'before:queue_push=9$' "$TMP/vigil.err" || fail "checkpoint: vigil's probe counts differ from the program's"
# 2. watchpoints armed at every free, one use after free: one stop
# (where the debug registers do not fire: nothing armed, no stop shown,
# the program runs to its end under gdb)
if ! has_debug_regs; then
	start_live run --interactive --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/uaf" --bug
	live_gdb "-ex continue"
	grep -qE 'Catchpoint|SIGSTOP|^vigil: .*entered' "$TMP/gdb" && fail "watchpoints: a stop showed up in gdb"
	grep -q 'exited normally' "$TMP/gdb" || fail "watchpoints: the program did not run to its end under gdb"
	wait_vigil
	expect_rc 0
	cp "$TMP/vigil.err" "$TMP/out"
	expect_blind
	skip debug_regs "$WHY"
fi
start_live run --interactive --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/uaf" --bug
live_gdb "-ex continue -ex bt -ex continue"
grep '^vigil: watchpoints:' "$TMP/vigil.err"	# what vigil says of the machine's
[ "$(grep -c '^Catchpoint' "$TMP/gdb")" = 1 ] || fail "watchpoints: not exactly one stop in gdb"
grep -q '^vigil: use_after_free entered state use_after_free at access' "$TMP/gdb" || fail "watchpoints: the stop lacks vigil's message"
grep -qE '^#0 .* in touch_session \(' "$TMP/gdb" || fail "watchpoints: the stop is not at the writer"
grep -q 'received signal SIGSTOP' "$TMP/gdb" && fail "watchpoints: a bare SIGSTOP reached the user"
grep -q 'exited normally' "$TMP/gdb" || fail "watchpoints: the program did not run to its end under gdb"
wait_vigil
expect_rc 1
armed=$(sed -nE 's/.*watchpoints: ([0-9]+) armed.*/\1/p' "$TMP/vigil.err")
[ "${armed:-0}" -ge 50 ] || fail "watchpoints: only ${armed:-0} armed: not the case this tests"
grep -q 'uaf: sessions touched, bug=1' "$TMP/vigil.out" || fail "watchpoints: the program's output"

echo PASS
