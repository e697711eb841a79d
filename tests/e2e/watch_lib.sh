# vigil watch --lib-mapped: every process that maps a shared library, here
# libplugin.so, which dlhost loads with dlopen (and loads again after a
# dlclose). One dlhost has it mapped when vigil starts (attached: found in
# /proc/PID/maps); one starts later and is held as its dlopen maps the
# library, before any of the library's code runs; a process running
# another program (not mapping it) is left alone. Every plugin_step call
# of both is counted (5 + 7 each, the second load included), and nothing
# else is monitored.
. "$(dirname "$0")/lib.sh"

LIB=$(readlink -f "$TARGETS/libplugin.so")
cat >"$TMP/steps.vigil" <<'SPEC'
property steps "plugin_step is called"
int n = 0
state s accepting {
  before plugin_step(c) { n = n + 1; } -> s
}
SPEC

"$TARGETS/dlhost" --pause-loaded 5 7 >"$TMP/a.out" 2>&1 &
A=$!
LEFT_PIDS+=("$A")
wait_for "$TMP/a.out" "waiting for SIGUSR1" 20
grep -q "$LIB" "/proc/$A/maps" || fail "dlhost has not mapped $LIB"
"$TARGETS/instance" --until "$TMP/stop" >/dev/null 2>&1 &
OTHER=$!
LEFT_PIDS+=("$OTHER")
"$VIGIL" watch "$TMP/steps.vigil" --lib-mapped "$LIB" --json "$TMP/v.json" >"$TMP/out" 2>&1 &
VIGIL_PID=$!
wait_for "$TMP/out" "processes mapping it, monitored" 60
grep -q "1 processes mapping it" "$TMP/out" || { cat "$TMP/out"; fail "the running dlhost was not found"; }
kill -USR1 "$A"
"$TARGETS/dlhost" 5 7 >"$TMP/b.out" 2>&1 || fail "the second dlhost failed"
B=$(sed -n 's/^dlhost: pid \([0-9]*\)$/\1/p' "$TMP/b.out")
wait "$A" || fail "the first dlhost failed"
for _ in $(seq 100); do
	[ "$(grep -c '"what":"exited"' "$TMP/v.json")" -ge 2 ] && break
	sleep 0.1
done
touch "$TMP/stop"
kill -INT "$VIGIL_PID"
wait "$VIGIL_PID"
RC=$?
cat "$TMP/out"
[ "$RC" = 0 ] || fail "vigil watch exited $RC"
grep -qE "watch: pid $A, .*: attached" "$TMP/out" || fail "pid $A (running) was not attached"
grep -qE "watch: pid $B, .*: started: held as it mapped the library" "$TMP/out" ||
	fail "pid $B was not held at its mapping of the library"
grep -qE "before:plugin_step=24\b" "$TMP/out" || fail "not 24 plugin_step calls (12 per dlhost)"
grep -qE "watch: 2 processes monitored" "$TMP/out" || fail "not exactly the 2 dlhosts monitored"
grep -q "\"pid\":$OTHER" "$TMP/v.json" && fail "pid $OTHER, which does not map the library, was monitored"
echo "PASS"
