# vigil watch never leaves a process stopped that it held for its probes,
# even when SIGKILLed in that moment: a process is held at its exec (or
# at its fork, as a watched process's child) until vigil has attached its
# probes; vigil is stopped so that it cannot, then SIGKILLed. The guard
# process (user/proc/guard.c, user/probe/probe_orphans.c) lets each held
# process go once vigil has exited: it runs on, unmonitored, to its normal
# end, and no uprobe is left on the program.
. "$(dirname "$0")/lib.sh"

held_state() {	# held_state PID: until PID is stopped (T), at most 10 s
	for _ in $(seq 100); do
		[ "$(proc_state "$1")" = T ] && return 0
		sleep 0.1
	done
	fail "pid $1 was not held ($(proc_state "$1"))"
}

# watch_calls EXE FUNC OUT: vigil watch --exe EXE on one property (FUNC is
# called), its output in OUT, its pid VPID; until it monitors EXE
watch_calls() {
	cat >"$TMP/$2.vigil" <<V
property $2 "$2 is called"
state s accepting {
  before $2(x) -> s
}
V
	"$VIGIL" watch "$TMP/$2.vigil" --exe "$1" >"$3" 2>&1 &
	VPID=$!
	LEFT_PIDS+=("$VPID")
	wait_for "$3" 'processes running it, monitored' 60
}

# kill_vigil OUT PID: vigil watch (VPID), stopped, is SIGKILLed while PID
# is held for its probes; its guard (output in OUT) must let PID go
kill_vigil() {
	kill -KILL "$VPID"
	wait "$VPID" 2>/dev/null
	wait_for "$1" "\(guard\) vigil ended while pid $2 was held for its probes: resumed it" 10
}

# held at its exec
EXE=$(readlink -f "$TARGETS/service")
watch_calls "$EXE" request_begin "$TMP/out"
kill -STOP "$VPID"
"$EXE" >"$TMP/svc.out" 2>&1 &
SPID=$!
LEFT_PIDS+=("$SPID")
wait_exec "$SPID" "$EXE"
held_state "$SPID"
kill_vigil "$TMP/out" "$SPID"
sleep 0.3
[ "$(proc_state "$SPID")" != T ] || fail "the service held at its exec is left stopped"
kill -TERM "$SPID"
wait "$SPID" || fail "the service exited with status $?"
grep -qE 'service: [1-9][0-9]* requests' "$TMP/svc.out" ||
	fail "the service did not run on: $(cat "$TMP/svc.out")"
[ "$(uprobes_on "$EXE")" = 0 ] || fail "uprobes left on $EXE"

# held at its fork: a watched forker's next child
FEXE=$(readlink -f "$TARGETS/forker")
watch_calls "$FEXE" work "$TMP/out2"
"$FEXE" --loop 400 >"$TMP/forker.out" 2>&1 &
FPID=$!
LEFT_PIDS+=("$FPID")
wait_for "$TMP/out2" "pid $FPID[,:].*started" 30
wait_for "$TMP/out2" "forked" 30
kill -STOP "$VPID"
child=
for _ in $(seq 100); do
	child=$(pgrep -P "$FPID" | head -1)
	[ -n "$child" ] && [ "$(proc_state "$child")" = T ] && break
	sleep 0.05
done
[ -n "$child" ] || fail "the forker made no child while vigil was stopped"
held_state "$child"
kill_vigil "$TMP/out2" "$child"
wait "$FPID" || fail "the forker exited with status $?"
grep -q 'forker: children=400' "$TMP/forker.out" ||
	fail "the forker did not make its 400 children: $(cat "$TMP/forker.out")"
[ "$(uprobes_on "$FEXE")" = 0 ] || fail "uprobes left on $FEXE"
echo ok
