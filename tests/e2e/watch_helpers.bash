# Helpers of the tests of vigil watch --exe on many instances of one
# program (tests/e2e/watch_kernel.sh, watch_many.sh), after lib.sh:
# build/targets/instance (it runs until $TMP/stop is there; --bug closes
# a handle twice) under specs/close_once.vigil.

EXE=$(readlink -f "$TARGETS/instance")
SPEC=$(dirname "$0")/../specs/close_once.vigil
PIDS=()

start_instance() {	# start_instance ARGS...: one more, its pid in PIDS
	"$EXE" --until "$TMP/stop" "$@" >"$TMP/inst.${#PIDS[@]}" 2>&1 &
	PIDS+=("$!")
	LEFT_PIDS+=("$!")
}

# start_watch ARGS...: `vigil watch ARGS` in the background (VIGIL_PID),
# its output in $TMP/out; waits until it monitors the running instances
start_watch() {
	"$VIGIL" watch "$@" >"$TMP/out" 2>&1 &
	VIGIL_PID=$!
	wait_for "$TMP/out" 'processes running it, monitored' 60
}

# end_instances BUG: the instances run on a while under the probes, then
# end; each but BUG (the one left stopped) must exit 0
end_instances() {
	sleep 0.5
	touch "$TMP/stop"
	for i in "${!PIDS[@]}"; do
		p=${PIDS[$i]}
		[ "$p" = "$1" ] && continue
		wait "$p" || fail "instance $((i + 1)) (pid $p) exited with status $?"
	done
}

# stop_watch JSON N: once JSON has N processes' exits, vigil watch is
# interrupted; its exit status in RC, its output shown
stop_watch() {
	for _ in $(seq 100); do
		[ "$(grep -c '"what":"exited"' "$1")" -ge "$2" ] && break
		sleep 0.1
	done
	kill -INT "$VIGIL_PID"
	wait "$VIGIL_PID"
	RC=$?
	cat "$TMP/out"
}
