# vigil ctl from a shell while the program runs: status (text and --json),
# slices, a CRIU checkpoint, the list; errors: an unknown command (exit 1),
# no vigil for the pid (exit 3), bad usage (exit 2). The socket is the
# user's alone (0600).
. "$(dirname "$0")/lib.sh"

# no stop reactions: the run goes on through its violations. The program
# does its first three queues and waits while $TMP/hold exists: what
# follows talks to it while it runs, however long that takes; then the
# other three queues, counted after the checkpoint. Its checkpoints go to
# a directory of the test's own: the default one is per pid, and one left
# by an earlier process with the same pid numbers them on from its images.
grep -v '^on enter' specs/queue_bounds.vigil >"$TMP/qb.vigil"
: >"$TMP/hold"
QUEUE3_PRINT=1 QUEUE3_HOLD="$TMP/hold" "$VIGIL" run --on-violation=continue --checkpoint-dir "$TMP/images" \
	"$TMP/qb.vigil" -- "$TARGETS/queue3" --loops 2 >"$TMP/vigil.out" 2>"$TMP/vigil.err" </dev/null &
VIGIL_PID=$!
for _ in $(seq 200); do
	pid=$(pgrep -P "$VIGIL_PID" -x queue3) && [ -S "${TMPDIR:-/tmp}/vigil-$(id -u)/ctl-$pid.sock" ] && break
	sleep 0.05
done
sock="${TMPDIR:-/tmp}/vigil-$(id -u)/ctl-$pid.sock"
[ -S "$sock" ] || fail "no control socket for pid $pid"
LEFT_PIDS+=("$pid")	# a failure below leaves it holding
[ "$(stat -c %a "$sock")" = 600 ] || fail "the control socket is not 0600"
wait_for "$TMP/vigil.out" '^queue 2 done' 60	# the first three queues

"$VIGIL" ctl "$pid" status >"$TMP/status" || fail "vigil ctl status failed"
cat "$TMP/status"
grep -qE '^queue_bounds \(kernel tier\)' "$TMP/status" || fail "status lacks the property and its tier"
grep -qE 'probes [0-9]+/[0-9]+ attached' "$TMP/status" || fail "status lacks the probes"

"$VIGIL" ctl "$pid" status --json >"$TMP/status.json" || fail "vigil ctl status --json failed"
python3 - "$TMP/status.json" <<'PY' || fail "status --json is not what the protocol says"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["v"] == 1 and r["ok"] is True, r
d = r["data"]
p = d["properties"][0]
assert p["name"] == "queue_bounds" and p["tier"] == "kernel", p
assert p["states"]["overflow"] >= 1, p
push = [e for e in d["per_event"] if e["name"] == "queue_push"][0]
assert push["hits"] >= 3 and push["lost"] == 0, push
assert d["events"] >= 5 and d["lost"] == 0
PY

"$VIGIL" ctl "$pid" slices queue_bounds overflow >"$TMP/slices" || fail "vigil ctl slices failed"
grep -qE '^q=0x[0-9a-f]+ +overflow' "$TMP/slices" || { cat "$TMP/slices"; fail "slices lacks the overflowed queue"; }

# set: the overflowed slice back to ready with n=1 (Verde's
# set_current_state and set_env_value); `slices` shows it
slice=$(awk '/overflow/ { print $1; exit }' "$TMP/slices")
"$VIGIL" ctl "$pid" set queue_bounds "$slice" state=ready >/dev/null || fail "vigil ctl set state="
"$VIGIL" ctl "$pid" set queue_bounds "$slice" n=1 >/dev/null || fail "vigil ctl set n="
"$VIGIL" ctl "$pid" slices queue_bounds ready --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["data"]["slices"]
assert any(x["slice"] == sys.argv[1] and x["vars"]["n"] == "1" for x in s), s' "$slice" ||
	fail "the slice set to ready with n=1 is not listed so"
"$VIGIL" ctl "$pid" set queue_bounds "$slice" state=nowhere 2>/dev/null && fail "set to a state that does not exist"

"$VIGIL" ctl "$pid" checkpoint >"$TMP/ck" || { cat "$TMP/vigil.err"; fail "vigil ctl checkpoint failed"; }
cat "$TMP/ck"
img=$(awk 'NR==1 { gsub(/[()]/, "", $NF); print $NF }' "$TMP/ck")
[ -f "$img/meta" ] && [ -f "$img/monitor.state" ] || fail "no checkpoint image at '$img'"
"$VIGIL" ctl "$pid" checkpoints --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
c = r["data"]["checkpoints"]
assert len(c) == 1 and c[0]["n"] == 1 and c[0]["events"] > 0, c' || fail "checkpoints --json"

"$VIGIL" ctl "$pid" frobnicate 2>"$TMP/err"
RC=$?
expect_rc 1
grep -q "unknown command 'frobnicate'" "$TMP/err" || fail "no message for an unknown command"
"$VIGIL" ctl "$pid" slices no_such_prop 2>"$TMP/err"
RC=$?
expect_rc 1
grep -q "no property no_such_prop" "$TMP/err" || fail "no message for an unknown property"
"$VIGIL" ctl 999999 status 2>"$TMP/err"
RC=$?
expect_rc 3
"$VIGIL" ctl "$pid" 2>"$TMP/err"
RC=$?
expect_rc 2

rm "$TMP/hold"	# the program goes on: three more queues
wait "$VIGIL_PID"
RC=$?
expect_rc 1
cat "$TMP/vigil.err"
grep -q 'queue_new=6 queue_push=18 queue_pop=18' "$TMP/vigil.out" || fail "the program did not run to its end"
grep -q 'before:queue_push=18 ' "$TMP/vigil.err" || fail "probe counts differ after the checkpoint"
[ -e "$sock" ] && fail "the control socket outlived vigil"
echo PASS
