# vigil agent, an exe unit (every process of the service, vigil watch)
# with reaction = checkpoint: at the violation a CRIU image of that
# process alone, with its monitor state, goes to checkpoint-dir/ckpt-PID,
# the log says where (VIGIL_CHECKPOINT, VIGIL_PID), and the service runs
# on. `vigil restore DIR --monitor SPEC` brings it back with that state:
# the same bug again makes a second slice in ended_twice.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup
EXE=$(readlink -f "$TARGETS/service")
cat >"$TMP/conf/svc.conf" <<C
exe = $EXE
spec = ../req.vigil
reaction = checkpoint
checkpoint-dir = $TMP/ck
C
start_agent
wait_metric 'vigil_events_total{unit="svc"}' 'v > 0' 30
kill -USR1 "$SVC_PID"
wait_metric 'vigil_violations_total{unit="svc",property="requests"}' 'v == 1' 20
wait_for "$TMP/log.jsonl" '"VIGIL_EVENT":"checkpoint"' 60
read -r dir pid < <(python3 - "$TMP/log.jsonl" <<'PY'
import json, sys
c = [json.loads(l) for l in open(sys.argv[1]) if '"checkpoint"' in l]
print(c[0]["VIGIL_CHECKPOINT"], c[0]["VIGIL_PID"])
PY
)
echo "checkpoint of pid $pid: $dir"
[ "$pid" = "$SVC_PID" ] || fail "the checkpoint names pid $pid, not the service's $SVC_PID"
case "$dir" in "$TMP/ck/ckpt-$SVC_PID/"*) ;; *) fail "the checkpoint is not in checkpoint-dir/ckpt-PID: $dir" ;; esac
expect_checkpoint_state "$dir"
stop_agent
[ "$(uprobes_on "$EXE")" = 0 ] || fail "uprobes left on the service after the agent's end"

restore_monitored "$dir"
echo ok
