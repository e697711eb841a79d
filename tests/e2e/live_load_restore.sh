# A checkpoint taken after `vigil ctl load` keeps the loaded properties:
# a restore in the session (vigil ctl restore) and vigil restore --monitor
# bring them back (their files loaded again, with their -D) with the
# checkpoint's slices, though one was unloaded since, and the restored
# queue_bounds goes on counting from there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_load_helpers.bash"

load_specs

# vigil's stderr (which the program shares; a restore hands CRIU the
# file as it is now, ckpt/outfiles.c) is kept and shown on a failure
fail_shows_vigil_err
"$VIGIL" run --on-violation=continue "$TMP/pops.vigil" -- "$TARGETS/queue3" --pause 200 --loops 30 \
	>/dev/null 2>"$TMP/vigil.err" </dev/null &
VIGIL_PID=$!
wait_ctl queue3
"$VIGIL" ctl "$pid" load "$TMP/qb.vigil" >/dev/null || fail "load qb"
"$VIGIL" ctl "$pid" load "$TMP/calls.vigil" -D fn=queue_pop --on-violation calls=continue >/dev/null || fail "load calls"
wait_state queue_bounds overflow 1 && wait_state calls s 1 || fail "no loaded slices after the loads"
"$VIGIL" ctl "$pid" checkpoint --json >"$TMP/ck" || { cat "$TMP/ck"; fail "vigil ctl checkpoint"; }
# its number is the session's: in the default per-pid directory, one left
# by an earlier process with the same pid, they go on from its images
read -r num img < <(python3 -c 'import json,sys; c = json.load(open(sys.argv[1]))["data"]["checkpoints"][-1]; print(c["n"], c["path"])' "$TMP/ck")
LEFT_FILES+=("$img")
k=$(grep -c '^slice queue_bounds [0-9]* overflow ' "$img/monitor.state")
c=$(grep -c '^slice calls ' "$img/monitor.state")
[ "$k" -ge 1 ] && [ "$c" -ge 1 ] || { cat "$img/monitor.state"; fail "the checkpoint has no loaded slices"; }
# calls' own reaction goes with it (a restore loads it with it again)
grep -qx 'reaction calls=continue' "$img/monitor.state" || { cat "$img/monitor.state"; fail "calls' reaction is not in the checkpoint"; }
"$VIGIL" ctl "$pid" unload calls >/dev/null || fail "unload calls"
wait_state queue_bounds overflow $((k + 1)) || fail "no overflow after the checkpoint"

# a restore inside the session: the loaded properties are as they were at
# the checkpoint (calls back, queue_bounds with its k overflows)
"$VIGIL" ctl "$pid" restore "$num" stopped >"$TMP/rs" || { cat "$TMP/rs"; fail "vigil ctl restore $num"; }
"$VIGIL" ctl "$pid" status --json >"$TMP/st.json" || fail "status after the restore"
kill -CONT "$pid"
python3 - "$TMP/st.json" "$k" <<'PY' || fail "the loaded properties after a restore in the session"
import json, sys
d = json.load(open(sys.argv[1]))["data"]
props = {p["name"]: p for p in d["properties"]}
assert set(props) == {"pops", "queue_bounds", "calls"}, props
assert props["queue_bounds"]["states"]["overflow"] == int(sys.argv[2]), props["queue_bounds"]
assert props["calls"]["loaded"].endswith("/calls.vigil"), props["calls"]
PY
"$VIGIL" ctl "$pid" detach >/dev/null || fail "detach"
wait "$VIGIL_PID"

# the restored program stops at its next overflow (vigil restore's
# default), with queue_bounds counting on from the checkpoint's k
"$VIGIL" restore --force "$img" --monitor "$TMP/pops.vigil" >"$TMP/r.out" 2>"$TMP/r.err" </dev/null
RC=$?
cat "$TMP/r.err"
expect_rc 1
grep -qE "^vigil: loaded queue_bounds from $TMP/qb.vigil: (kernel|user) tier" "$TMP/r.err" || fail "queue_bounds is not loaded again"
grep -qE "^vigil: loaded calls from $TMP/calls.vigil: (kernel|user) tier" "$TMP/r.err" || fail "calls, unloaded after the checkpoint, is not back"
grep -q '^vigil: VIOLATION of queue_bounds' "$TMP/r.err" || fail "the restored queue_bounds does not catch the next overflow"
grep -qE "^vigil: queue_bounds: live slices by state: .* overflow=$((k + 1)) " "$TMP/r.err" ||
	fail "queue_bounds did not go on from the checkpoint's $k overflowed queues"
n=$(sed -nE 's/^vigil: calls: live slices by state: s=([0-9]+)$/\1/p' "$TMP/r.err")
[ -n "$n" ] && [ "$n" -ge "$c" ] || fail "calls did not go on from the checkpoint's $c slices"
rpid=$(sed -nE 's/.*target pid ([0-9]+) is left stopped.*/\1/p' "$TMP/r.err")
[ -n "$rpid" ] && LEFT_PIDS+=("$rpid")
echo PASS
