# A process whose session leader is outside its pid namespace (started
# without setsid under an init with no session: a sandbox's pid 1, a
# container entered from the host; here pid 1 of a new pid namespace)
# cannot be dumped by CRIU, --shell-job or not. vigil says why and what
# to do instead of CRIU's "session leader ... outside" line, takes no
# image and keeps monitoring; the process runs on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup	# req.vigil; its service runs as this shell's session
unshare --pid --fork "$TARGETS/service" "$TMP/inner.pid" >/dev/null 2>&1 &
LEFT_PIDS+=("$!")
wait_for "$TMP/inner.pid" '^1$' 10	# pid 1 in its namespace
for _ in $(seq 50); do pid=$(pgrep -P "$!" -x service) && break; sleep 0.1; done
[ -n "$pid" ] || fail "no service inside the new pid namespace"
LEFT_PIDS+=("$pid")
grep -qE '^NSsid:.*[[:space:]]0$' "/proc/$pid/status" ||
	fail "the fixture's session is inside its namespace: $(grep NSsid "/proc/$pid/status")"

"$VIGIL" attach --on-violation checkpoint --checkpoint-dir "$TMP/ck" \
	"$TMP/req.vigil" -p "$pid" >"$TMP/out" 2>&1 &
VIGIL_PID=$!
LEFT_PIDS+=("$VIGIL_PID")
wait_for "$TMP/out" 'kernel tier|user tier' 30
sleep 0.3
kill -USR1 "$pid"
wait_for "$TMP/out" 'checkpoint failed' 30
cat "$TMP/out"
expect_out "VIOLATION of requests"
expect_out "checkpoint failed: pid $pid cannot be checkpointed: its session leader is outside its pid namespace .*setsid.*; monitoring continues"
[ -z "$(ls -d "$TMP"/ck/ck-* 2>/dev/null)" ] || fail "an image directory was left"
# (vigil says so before it lets the process go: a moment later, it runs)
for _ in $(seq 50); do
	[ "$(proc_state "$pid")" != T ] && break
	sleep 0.1
done
kill -0 "$pid" && [ "$(proc_state "$pid")" != T ] || fail "the service does not run on"
kill -INT "$VIGIL_PID"
wait "$VIGIL_PID"
echo ok
