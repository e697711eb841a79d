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

# held at its exec
EXE=$(readlink -f "$TARGETS/service")
cat >"$TMP/r.vigil" <<'V'
property r "requests begin"
state s accepting {
  before request_begin(id) -> s
}
V
"$VIGIL" watch "$TMP/r.vigil" --exe "$EXE" >"$TMP/out" 2>&1 &
VPID=$!
LEFT_PIDS+=("$VPID")
wait_for "$TMP/out" 'processes running it, monitored' 60
kill -STOP "$VPID"
"$EXE" >"$TMP/svc.out" 2>&1 &
SPID=$!
LEFT_PIDS+=("$SPID")
wait_exec "$SPID" "$EXE"
held_state "$SPID"
kill -KILL "$VPID"
wait "$VPID" 2>/dev/null
wait_for "$TMP/out" "\(guard\) vigil ended while pid $SPID was held for its probes: resumed it" 10
sleep 0.3
[ "$(proc_state "$SPID")" != T ] || fail "the service held at its exec is left stopped"
kill -TERM "$SPID"
wait "$SPID" || fail "the service exited with status $?"
grep -qE 'service: [1-9][0-9]* requests' "$TMP/svc.out" ||
	fail "the service did not run on: $(cat "$TMP/svc.out")"
[ "$(uprobes_on "$EXE")" = 0 ] || fail "uprobes left on $EXE"

# held at its fork: a watched forker's next child
FEXE=$(readlink -f "$TARGETS/forker")
cat >"$TMP/w.vigil" <<'V'
property w "work is called"
state s accepting {
  before work(k) -> s
}
V
"$VIGIL" watch "$TMP/w.vigil" --exe "$FEXE" >"$TMP/out2" 2>&1 &
VPID=$!
LEFT_PIDS+=("$VPID")
wait_for "$TMP/out2" 'processes running it, monitored' 60
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
kill -KILL "$VPID"
wait "$VPID" 2>/dev/null
wait_for "$TMP/out2" "\(guard\) vigil ended while pid $child was held for its probes" 10
wait "$FPID" || fail "the forker exited with status $?"
grep -q 'forker: children=400' "$TMP/forker.out" ||
	fail "the forker did not make its 400 children: $(cat "$TMP/forker.out")"
[ "$(uprobes_on "$FEXE")" = 0 ] || fail "uprobes left on $FEXE"
echo ok
