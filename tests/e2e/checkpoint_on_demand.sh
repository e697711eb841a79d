# vigil checkpoint -p PID asks the vigil monitoring PID for a checkpoint
# now; vigil restore brings it back stopped, and prints how to debug or
# resume it.
. "$(dirname "$0")/lib.sh"

"$VIGIL" run --checkpoint-dir "$TMP/ck" specs/ticks.vigil -- "$TARGETS/ticker" \
	>>"$TMP/ticker.out" 2>>"$TMP/out" &
vpid=$!
for _ in $(seq 100); do grep -q 'ticker: pid' "$TMP/ticker.out" 2>/dev/null && break; sleep 0.1; done
tpid=$(sed -nE 's/ticker: pid ([0-9]+)/\1/p' "$TMP/ticker.out")
[ -n "$tpid" ] || fail "ticker did not start"
LEFT_PIDS+=("$tpid")

run_vigil checkpoint -p 999999
expect_rc 2
expect_out "no vigil of yours monitors pid 999999"

run_vigil checkpoint -p "$tpid"
expect_rc 0
expect_out "asked vigil \(pid $vpid\) for a checkpoint of pid $tpid"
for _ in $(seq 100); do grep -q 'checkpoint .*on demand' "$TMP/out" && break; sleep 0.1; done
kill -INT "$vpid"
wait "$vpid"
cat "$TMP/out"
grep -qE "checkpoint $TMP/ck/ck-0001 \(on demand \(vigil checkpoint\), after [0-9]+ events\)" "$TMP/out" ||
	fail "no on-demand checkpoint"
grep -q 'ticker: calls tick=[0-9]* (interrupted)' "$TMP/ticker.out" || fail "the target did not run on after the checkpoint"
kill -0 "$tpid" 2>/dev/null && fail "ticker still runs"

run_vigil restore "$TMP/ck/ck-0001"
expect_rc 0
expect_out "restored pid $tpid from $TMP/ck/ck-0001"
expect_out "gdb -p $tpid -x "
expect_out "kill -CONT $tpid"
sleep 0.2
[ "$(proc_state "$tpid")" = T ] || fail "restored ticker is in state '$(proc_state "$tpid")', not T"
# it runs again from the checkpoint, and stops cleanly on SIGINT
kill -CONT "$tpid"; sleep 0.3; kill -INT "$tpid"
for _ in $(seq 50); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.1; done
[ "$(grep -c 'ticker: calls tick=' "$TMP/ticker.out")" = 2 ] || fail "the restored ticker did not finish: $(cat "$TMP/ticker.out")"
