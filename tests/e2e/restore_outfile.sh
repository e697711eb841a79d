# Restore when the program's output goes to a file that grew since the
# checkpoint (CRIU alone refuses: "has bad size"), through `vigil ctl PID
# checkpoint` and `vigil ctl PID restore` from a shell, inside the session,
# and through `vigil restore DIR` afterwards:
#  - ctl restore before any checkpoint is refused, with the reason;
#  - the restore brings back the same pid, the monitor's slices and counts
#    as at the checkpoint, and the program runs on under monitoring to
#    its end, with the probes' counts equal to its own;
#  - the output file keeps what the abandoned run wrote; the restored
#    program writes on after it (docs/reference/live-gdb.md, Output files, says so);
#  - `vigil restore --force DIR --monitor` of the same image, the file grown
#    again, restores too and appends likewise.
. "$(dirname "$0")/lib.sh"

# no stops: a violation is logged, the program goes on
sed 's/^on enter \(.*\): stop$/on enter \1: log "\1"/' specs/queue_bounds.vigil >"$TMP/qb.vigil"
grep -q 'on enter overflow: log "overflow"' "$TMP/qb.vigil" || fail "the spec without stops"
# the user tier here (live_restore.sh has the kernel tier): the monitor
# that goes back is vigil's own
QUEUE3_PRINT=1 "$VIGIL" run --tier=user --checkpoint-dir "$TMP/ck" "$TMP/qb.vigil" -- \
	"$TARGETS/queue3" --pause 1500 >"$TMP/log" 2>"$TMP/vigil.err" </dev/null &
VIGIL_PID=$!
sock=
for _ in $(seq 200); do
	pid=$(pgrep -P "$VIGIL_PID" -x queue3) && sock="${TMPDIR:-/tmp}/vigil-$(id -u)/ctl-$pid.sock" && [ -S "$sock" ] && break
	sleep 0.05
done
[ -S "$sock" ] || { cat "$TMP/vigil.err"; fail "no control socket for queue3"; }
LEFT_PIDS+=("$pid")
"$VIGIL" ctl "$pid" restore 2>"$TMP/err"
RC=$?
expect_rc 1
grep -q 'no checkpoint yet' "$TMP/err" || fail "a restore without a checkpoint does not say why: $(cat "$TMP/err")"

wait_for "$TMP/log" 'queue 0 done'
"$VIGIL" ctl "$pid" checkpoint >"$TMP/ck.out" || { cat "$TMP/vigil.err"; fail "vigil ctl checkpoint failed"; }
wait_for "$TMP/log" 'queue 1 done'
size=$(stat -c %s "$TMP/log")

# left stopped until its slices and counts are read: restored inside its
# pause, whose end has passed, it would make its next queue at once
"$VIGIL" ctl "$pid" restore stopped >"$TMP/restore.out" 2>"$TMP/err" || { cat "$TMP/err" "$TMP/vigil.err"; fail "vigil ctl restore failed"; }
"$VIGIL" ctl --json "$pid" slices queue_bounds >"$TMP/slices.rs"
"$VIGIL" ctl --json "$pid" status >"$TMP/status.rs"
kill -CONT "$pid"
cat "$TMP/restore.out"
grep -qE "^restored pid $pid from checkpoint 1 \(on demand \(vigil ctl checkpoint\), after [0-9]+ events\)$" "$TMP/restore.out" ||
	fail "vigil ctl restore did not say what it restored"
# compared with the image's monitor state, the checkpoint's own: what
# vigil ctl said after the checkpoint was the program's next queue too
# when the dump outlasted its pause (a sanitized build under load)
python3 - "$TMP/ck/ck-0001/monitor.state" "$TMP/slices.rs" "$TMP/status.rs" "$pid" <<'PY' || fail "the slices or event counts after the restore are not the checkpoint's"
import json, sys
ck, counts = {}, []
for l in open(sys.argv[1]):
    w = l.split()
    if w[0] == "slice" and w[1] == "queue_bounds":	# PROP MASK STATE INCONC P0..P3 n max
        ck["q=0x%x" % int(w[5])] = (w[3], {"n": w[9], "max": w[10]})
    elif w[0] == "count":
        counts.append((int(w[2]), int(w[3])))
rs = {x["slice"]: (x["state"], x["vars"]) for x in json.load(open(sys.argv[2]))["data"]["slices"]}
assert ck and rs.keys() == ck.keys(), (ck, rs)
for q, (state, v) in rs.items():	# a violated slice shows no variables
    assert state == ck[q][0] and (not v or v == ck[q][1]), (q, ck[q], rs[q])
st = json.load(open(sys.argv[3]))["data"]
assert st["pid"] == int(sys.argv[4]), st["pid"]
assert counts and [(e["hits"], e["lost"]) for e in st["per_event"]] == counts, (counts, st["per_event"])
PY
wait_vigil
expect_rc 1
[ "$(stat -c %s "$TMP/log")" -gt "$size" ] || fail "the restored program wrote nothing"
cat "$TMP/log"
# the abandoned run's line stays; the replay writes on after it
[ "$(cat "$TMP/log")" = "queue 0 done
queue 1 done
queue 1 done
queue 2 done
queue_new=3 queue_push=9 queue_pop=9 sum=909" ] || fail "the output file is not the run, then the replay after it"
grep -q 'after:queue_new=3 before:queue_push=9 before:queue_pop=9$' "$TMP/vigil.err" ||
	fail "the probes' counts are not the program's after the restore"

# out of the session: the same image, the file longer again
img="$TMP/ck/ck-0001"
[ -f "$img/outfiles" ] || fail "the checkpoint noted no output files"
grep -q " $TMP/log\$" "$img/outfiles" || fail "the output file is not noted: $(cat "$img/outfiles")"
echo "a line written after vigil ended" >>"$TMP/log"
run_vigil restore --force "$img" --monitor "$TMP/qb.vigil"
expect_rc 1
expect_out "restored pid $pid from $img"
expect_no_out "has bad size"
tail -4 "$TMP/log" | head -1 | grep -qx 'a line written after vigil ended' || { cat "$TMP/log"; fail "vigil restore did not write on after the file's end"; }
tail -1 "$TMP/log" | grep -qx 'queue_new=3 queue_push=9 queue_pop=9 sum=909' || fail "the restored program did not run to its end"
echo PASS
