# vigil ctl PID unload of a property given when the session started
# (queue_bounds, kernel tier), from a shell while the program runs, and
# checkpoints around it: one taken after the unload has no trace of it
# and its restore does not bring it back; one taken before brings it
# back with the checkpoint's slices, stepped in the kernel again (its
# count of overflowed queues goes on growing).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_load_helpers.bash"

load_specs

# vigil's stderr (which the program shares; a restore hands CRIU the
# file as it is now, ckpt/outfiles.c) is kept and shown on a failure
fail_shows_vigil_err
"$VIGIL" run --on-violation=continue "$TMP/qb.vigil" "$TMP/pops.vigil" -- "$TARGETS/queue3" --pause 200 --loops 40 \
	>/dev/null 2>"$TMP/vigil.err" </dev/null &
VIGIL_PID=$!
wait_ctl queue3
props() { "$VIGIL" ctl "$pid" status --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
print(" ".join(sorted("%s:%s:%d" % (p["name"], p["tier"], p["states"].get("overflow", 0)) for p in d["properties"])))'; }
# a checkpoint: its number and its image. The numbers are the session's
# (vigil ctl checkpoints): in the default per-pid directory, one left by
# an earlier process with the same pid, they go on from its images
ckpt() { "$VIGIL" ctl "$pid" checkpoint --json | python3 -c 'import json,sys; c = json.load(sys.stdin)["data"]["checkpoints"][-1]; print(c["n"], c["path"])'; }
wait_state queue_bounds overflow 1 || fail "no overflow before the first checkpoint"
c=$(ckpt) || fail "checkpoint before the unload"
n1=${c%% *} img1=${c#* }
LEFT_FILES+=("$img1")
k=$(grep -c '^slice queue_bounds [0-9]* overflow ' "$img1/monitor.state")
[ "$k" -ge 1 ] || { cat "$img1/monitor.state"; fail "no overflow before the first checkpoint"; }
"$VIGIL" ctl "$pid" unload queue_bounds >"$TMP/un" || { cat "$TMP/un"; fail "vigil ctl unload of a start property"; }
grep -q '^unloaded queue_bounds (kernel tier, given at the start)' "$TMP/un" || fail "unload: $(cat "$TMP/un")"
p=$(props)
[ "$p" = "pops:kernel:0" ] || fail "status after the unload: $p"
"$VIGIL" ctl "$pid" unload queue_bounds >/dev/null 2>&1 && fail "a second unload is not refused"
c=$(ckpt) || fail "checkpoint after the unload"
n2=${c%% *} img2=${c#* }
LEFT_FILES+=("$img2")
grep -qx 'unloaded queue_bounds' "$img2/monitor.state" || fail "the checkpoint does not say queue_bounds was unloaded"
grep -q '^slice queue_bounds ' "$img2/monitor.state" && fail "the checkpoint after the unload has its slices"

"$VIGIL" ctl "$pid" restore "$n2" stopped >"$TMP/rs" || { cat "$TMP/rs"; fail "restore $n2"; }
p=$(props)
kill -CONT "$pid"
[ "$p" = "pops:kernel:0" ] || fail "a restore of the checkpoint after the unload brought it back: $p"

"$VIGIL" ctl "$pid" restore "$n1" stopped >"$TMP/rs" || { cat "$TMP/rs"; fail "restore $n1"; }
p=$(props)
kill -CONT "$pid"
[ "$p" = "pops:kernel:0 queue_bounds:kernel:$k" ] || fail "the checkpoint before the unload: $p, not queue_bounds with $k overflows"
# more queues overflow: stepped in the kernel again
wait_state queue_bounds overflow $((k + 1)) ||
	fail "queue_bounds is not stepped again after the restore ($k -> $(props))"
"$VIGIL" ctl "$pid" detach >/dev/null || fail "detach"
wait "$VIGIL_PID"
echo PASS
