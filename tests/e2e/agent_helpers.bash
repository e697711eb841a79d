# Helpers of the vigil agent's tests (tests/e2e/agent_*.sh), after lib.sh:
# a service (build/targets/service) with a pidfile, two specs on it, and
# the agent started on a config directory in $TMP.

# agent_setup: $TMP/req.vigil (a request ends once: SIGUSR1 to the
# service breaks it), $TMP/count.vigil (ids increase), the service
# running with its pid in $TMP/svc.pid (SVC_PID), $TMP/conf/ empty
agent_setup() {
	mkdir -p "$TMP/conf"
	cat >"$TMP/req.vigil" <<'V'
property requests "a request ends once, after it began"
slice on id
state idle accepting {
  before request_begin(id) -> busy
  before request_end(id) -> ended_twice
}
state busy {
  before request_end(id) -> idle
}
state ended_twice violation
V
	cat >"$TMP/count.vigil" <<'V'
property begins "request ids increase"
int last = -1
state counting accepting {
  before request_begin(i) when i > last { last = i; } -> counting
  before request_begin(i) -> out_of_order
}
state out_of_order violation
V
	# its own session, as a service is: CRIU dumps only a process whose
	# session leader it can see, and a CI job's session may be none
	# (an init without one; checkpoint_session_outside.sh)
	setsid "$TARGETS/service" "$TMP/svc.pid" >"$TMP/svc.out" 2>&1 &
	SVC_PID=$!
	LEFT_PIDS+=("$SVC_PID")
	wait_for "$TMP/svc.pid" '^[0-9]+$' 10
}

# start_agent ARGS...: vigil agent on $TMP/conf, metrics on a free port
# (METRICS_URL), verdicts as JSON lines in $TMP/log.jsonl where journald
# does not run; its stderr in $TMP/agent.out, its pid AGENT_PID
start_agent() {
	"$VIGIL" agent --config "$TMP/conf" --state-dir "$TMP/state" \
		--metrics 127.0.0.1:0 --log "$TMP/log.jsonl" "$@" \
		>"$TMP/agent.stdout" 2>"$TMP/agent.out" &
	AGENT_PID=$!
	trap 'stop_agent; cleanup' EXIT
	wait_for "$TMP/agent.out" 'metrics at http://' 20
	METRICS_URL=$(grep -o 'http://127.0.0.1:[0-9]*/metrics' "$TMP/agent.out" | head -1)
}

# stop_agent: SIGTERM, as systemd stops it; its sessions detach
stop_agent() {
	[ -n "${AGENT_PID:-}" ] || return 0
	kill -TERM "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID" 2>/dev/null
	AGENT_RC=$?
	AGENT_PID=
}

# metric 'NAME{LABELS}': its value in a scrape now ("" when absent)
metric() {
	python3 - "$METRICS_URL" "$1" <<'PY'
import sys, urllib.request
body = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
for line in body.splitlines():
    if line.startswith(sys.argv[2] + " "):
        print(line.split()[-1])
PY
}

# wait_metric 'NAME{LABELS}' PYTHON_CONDITION_ON_v [SECONDS]
wait_metric() {
	local v
	for _ in $(seq $((${3:-20} * 4))); do
		v=$(metric "$1")
		if [ -n "$v" ] && python3 -c "v=float('$v'); exit(0 if ($2) else 1)"; then
			echo "$1 = $v"
			return 0
		fi
		sleep 0.25
	done
	# what the agent said, for the reason
	tail -n 30 "$TMP/agent.out" 2>/dev/null | sed 's/^/agent: /'
	fail "$1 is '$v', not $2, after ${3:-20} s"
}

# session_of UNIT: the pid of the unit's latest session (agent.out)
session_of() {
	grep -o "$1: session [0-9]* started" "$TMP/agent.out" | tail -1 | awk '{print $3}'
}

# wait_log ERE [SECONDS]: the agent's log ($TMP/log.jsonl) gets a line
# matching ERE; if not, what the agent and its sessions said, for the reason
wait_log() {
	for _ in $(seq $((${2:-20} * 10))); do
		grep -qE -- "$1" "$TMP/log.jsonl" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$TMP/log.jsonl" 2>/dev/null
	tail -n 40 "$TMP/agent.out" 2>/dev/null | sed 's/^/agent: /'
	fail "no /$1/ in $TMP/log.jsonl after ${2:-20} s"
}

# expect_checkpoint_state DIR: the checkpoint DIR (reaction = checkpoint
# on $TMP/req.vigil) holds the violating slice in its monitor state, and
# the service runs on after it
expect_checkpoint_state() {
	grep -qE '^slice requests 1 ended_twice ' "$1/monitor.state" ||
		fail "the monitor state lacks the violating slice: $(cat "$1/monitor.state")"
	sleep 0.3
	kill -0 "$SVC_PID" && [ "$(proc_state "$SVC_PID")" != T ] ||
		fail "the service does not run on after its checkpoint"
}

# restore_monitored DIR: `vigil restore DIR --monitor $TMP/req.vigil`
# brings the service back with the checkpoint's monitor state: the same
# bug again makes a second slice in ended_twice
restore_monitored() {
	"$VIGIL" restore --force "$1" --monitor "$TMP/req.vigil" >"$TMP/out" 2>&1 &
	RPID=$!
	wait_for "$TMP/out" "restored pid $SVC_PID from $1" 60
	sleep 0.5
	kill -USR1 "$SVC_PID"
	wait_for "$TMP/out" 'VIOLATION of requests' 20
	# (restore stops it there for gdb: vigil ends, the process is left stopped)
	wait "$RPID"
	cat "$TMP/out"
	grep -q 'requests: live slices by state: .*ended_twice=2' "$TMP/out" ||
		fail "the restored monitor did not go on from the checkpoint's state (2 slices in ended_twice)"
}

# end_hits SESSION: the hits of request_end (only req.vigil's requests has
# it) in that vigil session now, through its control socket
end_hits() {
	"$VIGIL" ctl --json "$1" status | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
print(sum(e["hits"] for e in d["per_event"] if e["name"] == "request_end"))'
}
