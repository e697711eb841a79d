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
