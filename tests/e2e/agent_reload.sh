# vigil agent: sessions from a config directory; SIGHUP with one unit's
# target changed (its tier) restarts that unit's session only: the other
# keeps its slices and counts (its violation stays counted, its events go
# on from where they were); a reload with an error is refused, naming
# FILE:LINE, and the running configuration stays; a bad file at start
# exits 2 with FILE:LINE. (A changed spec is reloaded inside its unit's
# session: agent_reload_spec.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup
cat >"$TMP/conf/a.conf" <<EOF
# every request ends once
pidfile = $TMP/svc.pid
spec = ../req.vigil
EOF
cat >"$TMP/conf/b.conf" <<EOF
pidfile = $TMP/svc.pid
spec = $TMP/count.vigil
reaction = log
EOF
start_agent
wait_for "$TMP/agent.out" 'b: session [0-9]+ started' 20
wait_metric 'vigil_events_total{unit="a"}' 'v > 0' 30
wait_metric 'vigil_events_total{unit="b"}' 'v > 0' 30
a1=$(session_of a); b1=$(session_of b)

# the bug, caught by a's property; the service runs on (reaction log)
kill -USR1 "$SVC_PID"
wait_metric 'vigil_violations_total{unit="a",property="requests"}' 'v == 1' 20
wait_metric 'vigil_slices{unit="a",property="requests",state="ended_twice"}' 'v == 1' 5
kill -0 "$SVC_PID" || fail "the service was killed: the default reaction is log"
[ "$(proc_state "$SVC_PID")" != T ] || fail "the service is stopped: the default reaction is log"
# b's first session counts long enough that its next one, counting from
# 0, is seen below that count (a few seconds of margin even under load)
wait_metric 'vigil_events_total{unit="b"}' 'v > 1000' 60
b_before=$(metric 'vigil_events_total{unit="b"}')
a_before=$(metric 'vigil_events_total{unit="a"}')

# b's tier changes: SIGHUP
echo 'tier = user' >>"$TMP/conf/b.conf"
kill -HUP "$AGENT_PID"
wait_for "$TMP/agent.out" 'reloaded .*: 1 unchanged, 0 changed in place, 1 restarted, 0 added, 0 removed' 20
wait_for "$TMP/agent.out" "b: session [0-9]+ started(.|$)*" 20
a2=$(session_of a); b2=$(session_of b)
[ "$a1" = "$a2" ] || fail "a's session changed ($a1 -> $a2): a did not change"
[ "$b1" != "$b2" ] || fail "b's session was not restarted ($b1): its tier changed"
# a's state went on: its violation is still counted, its slice still in
# ended_twice, and its event count continued past what it was
wait_metric 'vigil_violations_total{unit="a",property="requests"}' 'v == 1' 5
wait_metric 'vigil_slices{unit="a",property="requests",state="ended_twice"}' 'v == 1' 5
wait_metric 'vigil_events_total{unit="a"}' "v > $a_before" 10
# b's began again (a new session on the same process)
wait_metric 'vigil_events_total{unit="b"}' "v > 0 and v < $b_before" 20

# a reload with an error is refused at FILE:LINE; both sessions stay
printf 'pidfile = %s\nspec = ../req.vigil\nreactoin = kill\n' "$TMP/svc.pid" >"$TMP/conf/c.conf"
kill -HUP "$AGENT_PID"
wait_for "$TMP/agent.out" "reload refused.*$TMP/conf/c.conf:3: unknown key 'reactoin'" 20
[ "$(session_of a)" = "$a1" ] && [ "$(session_of b)" = "$b2" ] ||
	fail "a refused reload changed the sessions"
kill -0 "$a1" && kill -0 "$b2" || fail "a refused reload stopped a session"
wait_metric 'vigil_agent_reloads_total{result="error"}' 'v == 1' 5

# SIGTERM: the sessions detach, the service runs on
stop_agent
[ "$AGENT_RC" = 0 ] || fail "agent exited $AGENT_RC on SIGTERM"
! kill -0 "$a1" 2>/dev/null && ! kill -0 "$b2" 2>/dev/null || fail "sessions left running"
kill -0 "$SVC_PID" || fail "the service did not survive the agent's stop"

# a bad file at start: exit 2, FILE:LINE
"$VIGIL" agent --config "$TMP/conf" --state-dir "$TMP/state" >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
[ $rc = 2 ] || fail "agent with a bad file exited $rc, not 2"
grep -q "$TMP/conf/c.conf:3: unknown key 'reactoin' (expected exe, pidfile" "$TMP/out" || fail "no FILE:LINE"
echo ok
