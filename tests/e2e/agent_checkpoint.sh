# vigil agent, reaction = checkpoint: at the violation a CRIU image of the
# service with the monitor state goes to checkpoint-dir, the log says
# where (VIGIL_CHECKPOINT), and the service runs on. Later
# `vigil restore DIR --monitor SPEC` brings it back with that state: the
# slice that violated is still in ended_twice, and the same bug again
# makes a second one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup
cat >"$TMP/conf/svc.conf" <<EOF
pidfile = $TMP/svc.pid
spec = ../req.vigil
reaction = checkpoint
checkpoint-dir = $TMP/ck
EOF
start_agent
wait_metric 'vigil_events_total{unit="svc"}' 'v > 0' 30
kill -USR1 "$SVC_PID"
wait_metric 'vigil_violations_total{unit="svc",property="requests"}' 'v == 1' 20
# taken or not, the log says so (checkpoint or checkpoint_failed)
wait_log '"VIGIL_EVENT":"checkpoint' 60
grep '"checkpoint_failed"' "$TMP/log.jsonl" &&
	fail "the checkpoint was not taken: $(tail -n 20 "$TMP/agent.out")"
dir=$(python3 - "$TMP/log.jsonl" <<'PY'
import json, sys
c = [json.loads(l) for l in open(sys.argv[1]) if '"checkpoint"' in l]
print(c[0]["VIGIL_CHECKPOINT"])
PY
)
echo "checkpoint: $dir"
case "$dir" in "$TMP/ck/"*) ;; *) fail "the checkpoint is not in checkpoint-dir: $dir" ;; esac
expect_checkpoint_state "$dir"
stop_agent

# later, for debugging: the checkpoint back, monitored from its state
restore_monitored "$dir"
echo ok
