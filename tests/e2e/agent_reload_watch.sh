# vigil agent: SIGHUP with one spec of an exe unit (vigil watch) changed
# reloads that spec in the unit's running session, in every process it
# watches (vigil ctl unload + load), as for a pidfile unit. Two services
# run: the unchanged spec (requests) keeps each process's slices and
# counts (its violation in the first service stays counted, its slice
# still in ended_twice in that process's monitor until it exits, its
# events' counts go on), the session is the same process; the changed
# one (begins, now with gap=2: in every process its one slice falls
# behind at its next request and stays there) takes effect in both
# services and in a third one started after the reload.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup
"$TARGETS/service" >"$TMP/svc2.out" 2>&1 &
SVC2=$!
LEFT_PIDS+=("$SVC2")
cat >"$TMP/count2.vigil" <<'V'
param gap = 1
property begins "request ids increase, in order"
int last = -1
state in_order accepting {
  before request_begin(i) when i >= last + $gap { last = i; } -> in_order
  before request_begin(i) -> behind
}
state behind {
  before request_begin(i) -> behind
}
V
conf() {
	cat >"$TMP/conf/w.conf" <<EOF
exe = $(realpath "$TARGETS/service")
spec = $TMP/req.vigil
spec = $TMP/count.vigil
$*
EOF
}
# the log's violations of property $1 (JSON lines): their pids, sorted
violating_pids() {
	python3 - "$TMP/log.jsonl" "$1" <<'PY'
import json, sys
pids = sorted(int(e["VIGIL_PID"]) for e in map(json.loads, filter(str.strip, open(sys.argv[1])))
              if e.get("VIGIL_EVENT") == "violation" and e.get("VIGIL_PROPERTY") == sys.argv[2])
print(" ".join(map(str, pids)))
PY
}
conf
start_agent
wait_for "$TMP/agent.out" 'w: session [0-9]+ started' 20
s1=$(session_of w)
wait_metric 'vigil_monitored_processes{unit="w"}' 'v == 2' 30
wait_metric 'vigil_slices{unit="w",property="begins",state="counting"}' 'v == 2' 20
# requests in the first service: the bug caught, a slice in ended_twice
kill -USR1 "$SVC_PID"
wait_metric 'vigil_violations_total{unit="w",property="requests"}' 'v == 1' 20
wait_metric 'vigil_slices{unit="w",property="requests",state="ended_twice"}' 'v == 1' 5
hits_before=$(end_hits "$s1")
[ "$hits_before" -gt 0 ] || fail "no request_end hits before the reload ($hits_before)"

# count.vigil changes: a new definition, and with gap=2 each process's
# slice falls behind at once
cp "$TMP/count2.vigil" "$TMP/count.vigil"
conf 'define = gap=2'
kill -HUP "$AGENT_PID"
wait_for "$TMP/agent.out" 'reloaded .*: 0 unchanged, 1 changed in place, 0 restarted, 0 added, 0 removed' 60
grep -q "w: $TMP/count.vigil changed (its text, its defines): unloaded begins" "$TMP/agent.out" ||
	fail "the unload of begins is not logged"
grep -q "w: $TMP/count.vigil changed (its text, its defines): loaded begins (user tier)" "$TMP/agent.out" ||
	fail "the load of begins is not logged"
! grep -q "req.vigil changed" "$TMP/agent.out" || fail "req.vigil was reloaded: it did not change"
grep '"VIGIL_EVENT": *"reload"' "$TMP/log.jsonl" | grep -q 'count.vigil changed (its text, its defines): loaded begins' ||
	fail "no VIGIL_EVENT=reload line for the load of begins in the log"
[ "$(session_of w)" = "$s1" ] || fail "the session was restarted ($s1 -> $(session_of w))"
kill -0 "$s1" || fail "session $s1 is gone"
# requests went on in both processes: its violation, its slice, its counts
wait_metric 'vigil_violations_total{unit="w",property="requests"}' 'v == 1' 5
wait_metric 'vigil_slices{unit="w",property="requests",state="ended_twice"}' 'v == 1' 5
hits=$(end_hits "$s1")
echo "request_end hits: $hits_before before the reload, $hits after"
[ "$hits" -gt "$hits_before" ] || fail "request_end's count did not go on ($hits_before -> $hits)"
# begins is the new one, in both services: each one's slice behind
wait_metric 'vigil_slices{unit="w",property="begins",state="behind"}' 'v == 2' 20
[ -z "$(metric 'vigil_slices{unit="w",property="begins",state="counting"}')" ] ||
	fail "begins' old state is still in the metrics"

# a service started after the reload: both specs from its first request
"$TARGETS/service" >"$TMP/svc3.out" 2>&1 &
SVC3=$!
LEFT_PIDS+=("$SVC3")
wait_metric 'vigil_monitored_processes{unit="w"}' 'v == 3' 20
wait_metric 'vigil_slices{unit="w",property="begins",state="behind"}' 'v == 3' 20
kill -USR1 "$SVC3"
wait_metric 'vigil_violations_total{unit="w",property="requests"}' 'v == 2' 20
want=$(printf '%s\n' "$SVC_PID" "$SVC3" | sort -n | tr '\n' ' ' | sed 's/ $//')
[ "$(violating_pids requests)" = "$want" ] ||
	fail "requests' violations are of pids '$(violating_pids requests)', not '$want'"

# the first service ends: its own monitor still had requests' slice from
# before the reload, and the new begins' one, behind
kill -TERM "$SVC_PID"
wait "$SVC_PID" 2>/dev/null
wait_metric 'vigil_monitored_processes{unit="w"}' 'v == 2' 20
wait_for "$TMP/agent.out" "pid $SVC_PID: requests: live slices by state: .*ended_twice=1" 10
wait_for "$TMP/agent.out" "pid $SVC_PID: begins: live slices by state: in_order=0 behind=1" 10
[ "$(session_of w)" = "$s1" ] || fail "the session was restarted"

stop_agent
[ "$AGENT_RC" = 0 ] || fail "agent exited $AGENT_RC on SIGTERM"
kill -0 "$SVC2" && kill -0 "$SVC3" || fail "a service did not survive the agent's stop"
echo ok
