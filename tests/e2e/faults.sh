# Faults vigil must survive, and say what happened:
#  - the target is SIGKILLed mid-run: vigil reports the signal and the
#    verdicts at that point, exits, and leaves no probe behind;
#  - SIGTERM or SIGHUP to an attached vigil: it detaches, the target runs on;
#  - a thread storm (2000 short threads on one mutex, both tiers; 5000
#    in-process, more than its table of threads holds): no loss,
#    no false verdict, and the per-probe counts equal the program's own
#    (plus glibc's one lock per thread);
#  - the ring buffer filling (4 KB, vigil frozen for 0.5 s): the loss is
#    counted, per probe, in text and JSON, and the slice ends
#    `inconclusive`, not `accepting`.
. "$(dirname "$0")/lib.sh"

links() { uprobes_on "$TARGETS/ticker"; }

wait_probes() {	# until vigil's probes are on the ticker
	for _ in $(seq 100); do [ "$(links)" -gt 0 ] && return; sleep 0.1; done
	fail "vigil attached no probe"
}

# --- the target is killed mid-run -----------------------------------------
"$VIGIL" run specs/ticks.vigil -- "$TARGETS/ticker" >"$TMP/out" 2>&1 &
vpid=$!
wait_probes
sleep 0.3
tpid=$(pgrep -f "^$TARGETS/ticker" | head -1)
[ -n "$tpid" ] || fail "no ticker process"
kill -KILL "$tpid"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "target killed by signal 9"
expect_out "before:tick=[1-9][0-9]*"
sleep 0.3
[ "$(links)" -eq 0 ] || fail "probes left after the target died"

# --- SIGTERM and SIGHUP: detach, the target runs on -----------------------
for s in TERM HUP; do
	"$TARGETS/ticker" >"$TMP/ticker.out" &
	tpid=$!
	LEFT_PIDS+=("$tpid")
	wait_exec "$tpid" "$TARGETS/ticker"
	"$VIGIL" attach specs/ticks.vigil -p "$tpid" >"$TMP/out" 2>&1 &
	vpid=$!
	wait_probes
	sleep 0.3
	kill -"$s" "$vpid"
	wait "$vpid"
	RC=$?
	cat "$TMP/out"
	expect_rc 0
	expect_out "detaching, the target runs on"
	sleep 0.3
	[ "$(links)" -eq 0 ] || fail "SIG$s: probes left after detach"
	[ "$(proc_state "$tpid")" != T ] || fail "SIG$s: target left stopped"
	kill -INT "$tpid"
	wait "$tpid"
	grep -q 'ticker: calls tick=[0-9]* (interrupted)' "$TMP/ticker.out" ||
		fail "SIG$s: the target did not run on and finish cleanly"
done

# --- a thread storm, in both tiers -----------------------------------------
for tier in auto user; do	# auto: mutex_discipline in the kernel
	run_vigil run --tier=$tier specs/lib/mutex.vigil -- "$TARGETS/storm" --threads 2000
	expect_rc 0
	expect_out "storm: threads=2000 pthread_mutex_lock=20000 pthread_mutex_unlock=20000"
	# glibc itself locks and unlocks a mutex once per thread: 2000 threads
	# and main, as thread_exit counts them
	expect_out "thread_exit=2001( |$)"
	expect_out "after:pthread_mutex_lock=22001 "
	expect_out "before:pthread_mutex_unlock=22001 "
	expect_out " lost=0 "
	expect_no_out "VIOLATION|inconclusive|nonaccepting"
done
# in-process: more threads than the agent's table of threads holds (1024),
# most of them ended: an ended thread's entry is taken over, and no call is
# lost (it was: 30,231 of 220,001 locks seen, and 0 errors said). In the
# user tier: in the kernel tier the one mutex's slice is contended by 32
# threads at once, and under ASan its lock was not got in time
# (inconclusive, rightly), which is not what this checks
run_vigil run --tier=user --fast hot tests/specs/lock_pairs.vigil -- "$TARGETS/storm" --threads 5000
expect_rc 0
expect_out "in-process tier: 2 functions patched"
expect_out "storm: threads=5000 pthread_mutex_lock=50000 pthread_mutex_unlock=50000"
expect_out "before:pthread_mutex_lock=55001 "
expect_out "before:pthread_mutex_unlock=55001( |$)"
expect_out " lost=0 "
expect_no_out "VIOLATION|inconclusive|nonaccepting"

# --- the ring buffer fills -------------------------------------------------
# vigil is frozen (SIGSTOP) for half a second while the target calls tick()
# ~30k times a second: a 4 KB ring holds 64 records, so events are lost
# however fast vigil drains otherwise
"$VIGIL" run --tier=user --ringbuf-size 4K --json "$TMP/rb.json" specs/ticks.vigil -- "$TARGETS/ticker" >"$TMP/out" 2>&1 &
vpid=$!
wait_probes
sleep 0.3
kill -STOP "$vpid"
sleep 0.5
kill -CONT "$vpid"
sleep 0.3
kill -INT "$vpid"	# passed to the target, which ends
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
n=$(sed -nE 's/.*ticker: calls tick=([0-9]+).*/\1/p' "$TMP/out")
[ -n "$n" ] || fail "the ticker did not say how many calls it made"
expect_out "stats: events=$n records=[0-9]+ lost=[1-9][0-9]* .* before:tick=$n( |$)"
grep -qE '"probes":\[\{"kind":"before","name":"tick","hits":'"$n"',"lost":[1-9][0-9]*\}' "$TMP/rb.json" ||
	fail "the JSON stats do not count the loss per probe"
# the one slice may have missed events: inconclusive, not accepting
expect_out "ticks: the one instance ends inconclusive|ends inconclusive in state counting"
grep -q '"verdict":"inconclusive"' "$TMP/rb.json" || fail "no inconclusive verdict"
! grep -q '"verdict":"accepting"' "$TMP/rb.json" || fail "a slice that may have missed events ends accepting"
