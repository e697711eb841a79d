# vigil ctl PID unload of a property given when the session started
# (queue_bounds, kernel tier), from a shell while the program runs, and
# checkpoints around it: one taken after the unload has no trace of it
# and its restore does not bring it back; one taken before brings it
# back with the checkpoint's slices, stepped in the kernel again (its
# count of overflowed queues goes on growing).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_load_helpers.bash"

load_specs

# the program's output goes nowhere: a file that grows after the
# checkpoint (vigil's own stderr, which the program shares) is one CRIU
# refuses to restore
"$VIGIL" run --on-violation=continue "$TMP/qb.vigil" "$TMP/pops.vigil" -- "$TARGETS/queue3" --pause 200 --loops 40 \
	>/dev/null 2>/dev/null </dev/null &
VIGIL_PID=$!
wait_ctl queue3
props() { "$VIGIL" ctl "$pid" status --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
print(" ".join(sorted("%s:%s:%d" % (p["name"], p["tier"], p["states"].get("overflow", 0)) for p in d["properties"])))'; }
ckpt() { "$VIGIL" ctl "$pid" checkpoint --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["checkpoints"][-1]["path"])'; }
sleep 0.8
img1=$(ckpt) || fail "checkpoint before the unload"
k=$(grep -c '^slice queue_bounds [0-9]* overflow ' "$img1/monitor.state")
[ "$k" -ge 1 ] || { cat "$img1/monitor.state"; fail "no overflow before the first checkpoint"; }
"$VIGIL" ctl "$pid" unload queue_bounds >"$TMP/un" || { cat "$TMP/un"; fail "vigil ctl unload of a start property"; }
grep -q '^unloaded queue_bounds (kernel tier, given at the start)' "$TMP/un" || fail "unload: $(cat "$TMP/un")"
p=$(props)
[ "$p" = "pops:kernel:0" ] || fail "status after the unload: $p"
"$VIGIL" ctl "$pid" unload queue_bounds >/dev/null 2>&1 && fail "a second unload is not refused"
img2=$(ckpt) || fail "checkpoint after the unload"
grep -qx 'unloaded queue_bounds' "$img2/monitor.state" || fail "the checkpoint does not say queue_bounds was unloaded"
grep -q '^slice queue_bounds ' "$img2/monitor.state" && fail "the checkpoint after the unload has its slices"

"$VIGIL" ctl "$pid" restore 2 stopped >"$TMP/rs" || { cat "$TMP/rs"; fail "restore 2"; }
p=$(props)
kill -CONT "$pid"
[ "$p" = "pops:kernel:0" ] || fail "a restore of the checkpoint after the unload brought it back: $p"

"$VIGIL" ctl "$pid" restore 1 stopped >"$TMP/rs" || { cat "$TMP/rs"; fail "restore 1"; }
p=$(props)
kill -CONT "$pid"
[ "$p" = "pops:kernel:0 queue_bounds:kernel:$k" ] || fail "the checkpoint before the unload: $p, not queue_bounds with $k overflows"
sleep 0.8	# more queues overflow: stepped in the kernel again
n=$(props | sed -nE 's/.*queue_bounds:kernel:([0-9]+).*/\1/p')
[ -n "$n" ] && [ "$n" -gt "$k" ] || fail "queue_bounds is not stepped again after the restore ($k -> $n)"
"$VIGIL" ctl "$pid" detach >/dev/null || fail "detach"
wait "$VIGIL_PID"
rm -rf "$(dirname "$img1")"
echo PASS
