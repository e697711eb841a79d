# Where operators look: the agent's verdicts with structured fields.
# 1. journald: a real systemd-journald, run by the test in a private mount
#    namespace (its own /run, so the host's is untouched): vigil finds
#    its socket and `journalctl -o json` has the verdict's VIGIL_* fields.
#    Where journald cannot run, the test says so and fails unless the
#    fallback below holds (it always runs).
# 2. The fallback: /run without journald's socket: the same fields as
#    JSON lines in --log FILE.
. "$(dirname "$0")/lib.sh"

if [ -z "${VIGIL_JOURNAL_NS:-}" ]; then
	# each case in a mount namespace of its own, with /run a new tmpfs
	for mode in journald json; do
		VIGIL_JOURNAL_NS=$mode unshare --mount --propagation private \
			bash "$0" || fail "the $mode case failed"
	done
	echo ok
	exit 0
fi
. "$(dirname "$0")/agent_helpers.bash"
mount -t tmpfs tmpfs /run || fail "cannot mount a tmpfs on /run in a private mount namespace"
[ -d /var/log/journal ] && mount -t tmpfs tmpfs /var/log/journal
JOURNALD=/lib/systemd/systemd-journald
path=json
if [ "$VIGIL_JOURNAL_NS" = journald ]; then
	if [ -x "$JOURNALD" ]; then
		mkdir -p /run/systemd/journal /run/log/journal
		"$JOURNALD" >"$TMP/journald.out" 2>&1 &
		LEFT_PIDS+=("$!")
		for _ in $(seq 50); do
			[ -S /run/systemd/journal/socket ] && break
			sleep 0.1
		done
	fi
	if [ -S /run/systemd/journal/socket ]; then
		path=journald
	else
		cat "$TMP/journald.out" 2>/dev/null
		echo "journald could not run here ($JOURNALD did not make its socket): only the JSON lines fallback is tested"
		exit 0
	fi
fi
echo "== path tested: $path"

agent_setup
cat >"$TMP/conf/svc.conf" <<EOF
pidfile = $TMP/svc.pid
spec = ../req.vigil
EOF
start_agent
wait_metric 'vigil_events_total{unit="svc"}' 'v > 0' 30
kill -USR1 "$SVC_PID"
wait_metric 'vigil_violations_total{unit="svc",property="requests"}' 'v == 1' 20
stop_agent

if [ $path = journald ]; then
	grep -q 'verdicts to journald' "$TMP/agent.out" || fail "the agent did not choose journald"
	journalctl -o json --no-pager >"$TMP/entries.json" || fail "journalctl failed"
else
	grep -q 'verdicts to JSON lines in .*no journald' "$TMP/agent.out" || fail "the agent did not say it fell back to JSON lines"
	cp "$TMP/log.jsonl" "$TMP/entries.json"
fi
python3 - "$TMP/entries.json" "$SVC_PID" <<'PY' || fail "the verdict's fields ($path)"
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mine = [e for e in entries if e.get("SYSLOG_IDENTIFIER") == "vigil"]
v = [e for e in mine if e.get("VIGIL_EVENT") == "violation"]
assert len(v) == 1, v
v = v[0]
assert v["VIGIL_PROPERTY"] == "requests", v
assert v["VIGIL_STATE"] == "ended_twice", v
assert v["VIGIL_FROM_STATE"] == "idle", v
assert v["VIGIL_SLICE"].startswith("id="), v
assert v["VIGIL_PID"] == sys.argv[2], v
assert v["VIGIL_UNIT"] == "svc", v
assert v["VIGIL_CONTAINER"].startswith("/"), v
assert v["VIGIL_AT"].startswith("before request_end("), v
assert int(v["PRIORITY"]) == 4, v
assert "requests: violation" in v["MESSAGE"], v
events = [e.get("VIGIL_EVENT") for e in mine]
assert "start" in events and "end" in events and "agent" in events, events
print("verdict:", v["MESSAGE"])
PY
echo "ok ($path)"
