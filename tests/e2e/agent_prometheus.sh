# A real Prometheus server (Debian's prometheus) scrapes the agent's
# --metrics endpoint and that of a plain `vigil attach --metrics`; its
# query API returns the violation count and the monitored processes,
# labelled by unit (the agent's) or by job.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

command -v prometheus >/dev/null || fail "prometheus is not installed (scripts/setup.sh installs it)"
agent_setup
cat >"$TMP/conf/svc.conf" <<EOF
pidfile = $TMP/svc.pid
spec = ../req.vigil
EOF
start_agent
wait_metric 'vigil_events_total{unit="svc"}' 'v > 0' 30
target=${METRICS_URL#http://}
target=${target%/metrics}
# vigil attach --metrics on the same service, with another spec
"$VIGIL" attach --metrics 127.0.0.1:0 "$TMP/count.vigil" -p "$SVC_PID" >"$TMP/attach.out" 2>&1 &
ATTACH=$!
LEFT_PIDS+=("$ATTACH")
wait_for "$TMP/attach.out" 'metrics at http://' 30
direct=$(grep -o '127.0.0.1:[0-9]*/metrics' "$TMP/attach.out" | head -1)
direct=${direct%/metrics}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: vigil
    static_configs:
      - targets: ['$target']
  - job_name: attach
    static_configs:
      - targets: ['$direct']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom" \
	--web.listen-address="127.0.0.1:$port" >"$TMP/prom.log" 2>&1 &
PROM=$!
LEFT_PIDS+=("$PROM")
kill -USR1 "$SVC_PID"
wait_metric 'vigil_violations_total{unit="svc",property="requests"}' 'v == 1' 20

# query PROMQL EXPECTED: Prometheus answers EXPECTED (within 30 s)
query() {
	python3 - "http://127.0.0.1:$port" "$1" "$2" <<'PY' || { tail -20 "$TMP/prom.log"; fail "Prometheus did not answer $2 to $1"; }
import json, sys, time, urllib.parse, urllib.request
base, q, want = sys.argv[1:]
last = None
for _ in range(120):
    try:
        url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
        r = json.load(urllib.request.urlopen(url, timeout=5))
        last = r
        res = r["data"]["result"]
        if r["status"] == "success" and len(res) == 1 and float(res[0]["value"][1]) == float(want):
            print(q, "=", res[0]["value"][1], res[0]["metric"])
            sys.exit(0)
    except Exception as e:
        last = e
    time.sleep(0.25)
print("last answer:", last, file=sys.stderr)
sys.exit(1)
PY
}
query 'vigil_violations_total{job="vigil",unit="svc",property="requests"}' 1
query 'vigil_monitored_processes{job="vigil",unit="svc"}' 1
query 'sum(vigil_slices{job="vigil",unit="svc",state="ended_twice"})' 1
query 'up{job="vigil"}' 1
# the agent's own CPU and memory (no unit label) beside the session's
query 'count(vigil_resident_memory_bytes{job="vigil"} > 1e6)' 2
query 'count(vigil_cpu_seconds_total{job="vigil",unit=""})' 1
query 'vigil_violations_total{job="attach",property="begins"}' 0
query 'vigil_monitored_processes{job="attach"}' 1
query 'count(vigil_probes{job="attach"} > 0)' 2
query 'vigil_events_total{job="attach"} > bool 0' 1
kill -INT "$ATTACH"
wait "$ATTACH"
kill -TERM "$PROM"
stop_agent
echo ok
