# A reaction per property: a unit's default is log, and its line
# reaction.requests = stop gives that property its own: the bug stops the
# service for gdb (VIGIL_STOPPED=1 in the log). vigil attach takes the
# same as --on-violation PROP=REACTION, and names a property that is not
# in the specs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup
run_vigil attach "$TMP/req.vigil" --on-violation nosuch=stop -p "$SVC_PID"
expect_rc 2
expect_out "on-violation nosuch=stop: no property 'nosuch' in the specs"
run_vigil attach "$TMP/req.vigil" --on-violation requests=never -p "$SVC_PID"
expect_rc 2
expect_out "'never' is not stop, gdb, checkpoint, continue \(log\) or kill"

cat >"$TMP/conf/svc.conf" <<EOF
pidfile = $TMP/svc.pid
spec = ../req.vigil
spec = ../count.vigil
reaction.requests = stop
EOF
start_agent
wait_metric 'vigil_events_total{unit="svc"}' 'v > 0' 30
kill -USR1 "$SVC_PID"
wait_metric 'vigil_violations_total{unit="svc",property="requests"}' 'v == 1' 20
for _ in $(seq 50); do [ "$(proc_state "$SVC_PID")" = T ] && break; sleep 0.1; done
[ "$(proc_state "$SVC_PID")" = T ] || fail "requests' own reaction (stop) did not stop the service"
grep -q '"VIGIL_PROPERTY":"requests".*"VIGIL_STOPPED":"1"' "$TMP/log.jsonl" ||
	{ cat "$TMP/log.jsonl"; fail "the log does not say the service was left stopped"; }
stop_agent
echo ok
