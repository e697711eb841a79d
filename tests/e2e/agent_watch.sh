# #22's check through the agent: a unit with exe = PATH (vigil watch).
# 10 instances run before the agent starts, 10 more after; instance 14
# closes a handle twice. The default reaction (log) records the violation
# for instance 14 only (its pid, its slice, in the log's fields) and
# leaves it running: every instance runs on and exits 0. The metrics
# count 20 monitored processes and 1 violation.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

EXE=$(readlink -f "$TARGETS/instance")
PIDS=()
start_instance() {	# start_instance ARGS...: one more, its pid in PIDS
	"$EXE" --until "$TMP/stop" "$@" >"$TMP/inst.${#PIDS[@]}" 2>&1 &
	PIDS+=("$!")
	LEFT_PIDS+=("$!")
}

mkdir -p "$TMP/conf"
cp "$(dirname "$0")/../specs/close_once.vigil" "$TMP/conf/"
cat >"$TMP/conf/instance.conf" <<EOF
exe = $EXE
spec = close_once.vigil
EOF
for i in $(seq 10); do start_instance; done
for p in "${PIDS[@]}"; do wait_exec "$p" "$EXE"; done
start_agent
wait_for "$TMP/agent.out" '10 processes running it, monitored' 60
for i in $(seq 11 20); do
	if [ "$i" = 14 ]; then start_instance --bug; else start_instance; fi
done
BUG=${PIDS[13]}
wait_metric 'vigil_monitored_processes{unit="instance"}' 'v == 20' 30
wait_metric 'vigil_violations_total{unit="instance",property="close_once"}' 'v == 1' 30
sleep 0.5
[ "$(proc_state "$BUG")" != T ] || fail "instance 14 is stopped: the agent's default reaction is log"
touch "$TMP/stop"
for i in $(seq 0 19); do
	wait "${PIDS[$i]}" || fail "instance $((i + 1)) (pid ${PIDS[$i]}) exited with status $?"
done
wait_metric 'vigil_monitored_processes{unit="instance"}' 'v == 0' 20
wait_metric 'vigil_violations_total{unit="instance",property="close_once"}' 'v == 1' 5
stop_agent
python3 - "$TMP/log.jsonl" "$BUG" <<'PY' || { cat "$TMP/agent.out"; fail "the log's verdict"; }
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
v = [e for e in entries if e.get("VIGIL_EVENT") == "violation"]
assert len(v) == 1, v
v = v[0]
assert v["VIGIL_PID"] == sys.argv[2], (v, sys.argv[2])
assert v["VIGIL_PROPERTY"] == "close_once" and v["VIGIL_UNIT"] == "instance", v
assert v["VIGIL_SLICE"].startswith("h=0x"), v
assert v["VIGIL_STOPPED"] == "0", v
print("verdict:", v["MESSAGE"])
PY
echo ok
