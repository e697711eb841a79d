# vigil agent: SIGHUP with one spec of a unit changed reloads that spec
# in the unit's running session (vigil ctl unload + load), so the other
# spec's property keeps its slices and counts: its violation stays
# counted with its slice still in the violation state, the counts of its
# events go on from where they were (not from 0), and the session is the
# same process. The changed property has its
# new definition (a new state name). A define and a reaction change of
# that property alone reload it again, and nothing else: its new reaction
# (stop) is the one that acts; a change of the target (tier) restarts the
# session. (An exe unit's reload in place: agent_reload_watch.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup
# begins, version 2: its state is called in_order, it takes a define
cat >"$TMP/count2.vigil" <<'V'
param gap = 1
property begins "request ids increase, in order"
int last = -1
state in_order accepting {
  before request_begin(i) when i >= last + $gap { last = i; } -> in_order
  before request_begin(i) -> out_of_order
}
state out_of_order violation
V
conf() {
	cat >"$TMP/conf/svc.conf" <<EOF
pidfile = $TMP/svc.pid
spec = ../req.vigil
spec = $TMP/count.vigil
$*
EOF
}
conf
start_agent
wait_for "$TMP/agent.out" 'svc: session [0-9]+ started' 20
s1=$(session_of svc)
wait_metric 'vigil_slices{unit="svc",property="begins",state="counting"}' 'v == 1' 30
# requests: the bug caught, a slice in ended_twice; the others idle
kill -USR1 "$SVC_PID"
wait_metric 'vigil_violations_total{unit="svc",property="requests"}' 'v == 1' 20
wait_metric 'vigil_slices{unit="svc",property="requests",state="ended_twice"}' 'v == 1' 5
hits_before=$(end_hits "$s1")
[ "$hits_before" -gt 0 ] || fail "no request_end hits before the reload ($hits_before)"
events_before=$(metric 'vigil_events_total{unit="svc"}')

# count.vigil changes (the property's new definition, with a define)
cp "$TMP/count2.vigil" "$TMP/count.vigil"
conf 'define = gap=1'
kill -HUP "$AGENT_PID"
wait_for "$TMP/agent.out" 'reloaded .*: 0 unchanged, 1 changed in place, 0 restarted, 0 added, 0 removed' 60
grep -q "svc: $TMP/count.vigil changed (its text, its defines): unloaded begins" "$TMP/agent.out" ||
	fail "the unload of begins is not logged"
grep -q "svc: $TMP/count.vigil changed (its text, its defines): loaded begins (.* tier)" "$TMP/agent.out" ||
	fail "the load of begins is not logged"
! grep -q "req.vigil changed" "$TMP/agent.out" || fail "req.vigil was reloaded: it did not change"
[ "$(session_of svc)" = "$s1" ] || fail "the session was restarted ($s1 -> $(session_of svc))"
kill -0 "$s1" || fail "session $s1 is gone"
# requests went on: its violation counted, its slices not reset
wait_metric 'vigil_violations_total{unit="svc",property="requests"}' 'v == 1' 5
wait_metric 'vigil_slices{unit="svc",property="requests",state="ended_twice"}' 'v == 1' 5
wait_metric 'vigil_events_total{unit="svc"}' "v > $events_before" 10
hits=$(end_hits "$s1")
echo "request_end hits: $hits_before before the reload, $hits after"
[ "$hits" -gt "$hits_before" ] || fail "request_end's count did not go on ($hits_before -> $hits)"
# begins is the new one: its state in_order, the old state gone
wait_metric 'vigil_slices{unit="svc",property="begins",state="in_order"}' 'v == 1' 10
[ -z "$(metric 'vigil_slices{unit="svc",property="begins",state="counting"}')" ] ||
	fail "begins' old state is still in the metrics"
# the session says so too: begins loaded from count.vigil, requests its own
"$VIGIL" ctl "$s1" status >"$TMP/status" || fail "vigil ctl $s1 status failed"
cat "$TMP/status"
grep -q "^loaded from $TMP/count.vigil" "$TMP/status" || fail "begins is not loaded from count.vigil"
grep -q "ended_twice *1 slices" "$TMP/status" || fail "requests lost its ended_twice slice"
# the log has the reload's steps (JSON lines: journald does not run here)
grep '"VIGIL_EVENT": *"reload"' "$TMP/log.jsonl" | grep -q 'count.vigil changed (its text, its defines): loaded begins' ||
	fail "no VIGIL_EVENT=reload line for the load of begins in the log"

# the target changes (its tier): the session restarts, as before
conf 'define = gap=1
tier = user'
kill -HUP "$AGENT_PID"
wait_for "$TMP/agent.out" 'svc: changed: its session restarts \(not reloaded in place: its tier changed\)' 20
wait_for "$TMP/agent.out" "reloaded .*: 0 unchanged, 0 changed in place, 1 restarted" 20
for _ in $(seq 40); do
	[ "$(grep -c 'svc: session [0-9]* started' "$TMP/agent.out")" = 2 ] && break
	sleep 0.25
done
s2=$(session_of svc)
[ "$s2" != "$s1" ] || fail "a tier change did not restart the session"
wait_metric 'vigil_slices{unit="svc",property="begins",state="in_order"}' 'v == 1' 30

# begins' define and its reaction change: it alone is reloaded, and its
# new reaction is the one that acts: with gap=2 the next request breaks
# it, and stop leaves the service stopped (the session ends with it)
[ "$(proc_state "$SVC_PID")" != T ] || fail "the service is stopped already"
conf 'define = gap=2
reaction.begins = stop
tier = user'
kill -HUP "$AGENT_PID"
wait_for "$TMP/agent.out" "svc: $TMP/count.vigil changed \(its defines, its reactions\): loaded begins \(user tier\)" 60
[ "$(grep -c 'changed in place' "$TMP/agent.out")" = 3 ] || fail "the reload of begins was not made in place"
wait_for "$TMP/agent.out" "svc: session $s2 ended with status 1" 20
[ "$(proc_state "$SVC_PID")" = T ] || fail "begins' new reaction (stop) did not stop the service"
grep '"VIGIL_EVENT": *"violation"' "$TMP/log.jsonl" | grep -q '"VIGIL_PROPERTY": *"begins"' ||
	fail "begins' violation is not in the log"
wait_metric 'vigil_violations_total{unit="svc",property="begins"}' 'v == 1' 5
kill -CONT "$SVC_PID"

stop_agent
[ "$AGENT_RC" = 0 ] || fail "agent exited $AGENT_RC on SIGTERM"
kill -0 "$SVC_PID" || fail "the service did not survive the agent's stop"
echo ok
