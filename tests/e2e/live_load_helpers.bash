# Helpers of the tests of vigil load / unload from a shell
# (tests/e2e/live_load_*.sh, live_unload_*.sh), after lib.sh.

# load_specs: the specs they load and unload, in $TMP: pops.vigil (a
# slice per popped queue), qb.vigil (queue_bounds without its stop
# reactions: the run goes on through its violations) and calls.vigil
# (counts the calls of the function its parameter fn names)
load_specs() {
	cat >"$TMP/pops.vigil" <<'V'
property pops "queues are popped"
slice on ptr q
state seen accepting { before queue_pop(q) -> seen }
V
	grep -v '^on enter' specs/queue_bounds.vigil >"$TMP/qb.vigil"
	cat >"$TMP/calls.vigil" <<'V'
param fn = queue_push
property calls "counts the calls of one function"
slice on ptr q
int n = 0
state s accepting { before $fn(q) { n = n + 1; } -> s }
V
}

# fail_shows_vigil_err: from here on a failure shows $TMP/vigil.err,
# vigil's stderr, first
fail_shows_vigil_err() {
	fail() {
		echo "--- vigil's stderr:" >&2
		cat "$TMP/vigil.err" >&2
		echo "FAIL: $*" >&2
		exit 1
	}
}

# wait_ctl NAME: waits for vigil's ($VIGIL_PID) child NAME to answer
# vigil ctl (its control socket is there); its pid in pid
wait_ctl() {
	for _ in $(seq 200); do
		pid=$(pgrep -P "$VIGIL_PID" -x "$1") && [ -S "${TMPDIR:-/tmp}/vigil-$(id -u)/ctl-$pid.sock" ] && break
		sleep 0.05
	done
	[ -n "$pid" ] || fail "no target"
	LEFT_PIDS+=("$pid")
}

# wait_state PROP STATE N: until vigil ctl status (of $pid) counts at
# least N slices of PROP in STATE; 1 after 60 s. What a test waits for
# before a checkpoint, rather than a sleep a loaded machine outruns.
wait_state() {
	local end=$((SECONDS + 60))
	while [ "$SECONDS" -lt "$end" ]; do
		"$VIGIL" ctl "$pid" status --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
sys.exit(not any(p["name"] == sys.argv[1] and p["states"].get(sys.argv[2], 0) >= int(sys.argv[3])
                 for p in d["properties"]))' "$1" "$2" "$3" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
