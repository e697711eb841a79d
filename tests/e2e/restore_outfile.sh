# Restore when the program's output goes to a file that grew since the
# checkpoint (CRIU alone refuses: "has bad size"), through `vigil ctl PID
# checkpoint` and `vigil ctl PID restore` from a shell, inside the session,
# and through `vigil restore DIR` afterwards:
#  - ctl restore before any checkpoint is refused, with the reason;
#  - the restore brings back the same pid, the monitor's slices and counts
#    as at the checkpoint, and the program runs on under monitoring to
#    its end, with the probes' counts equal to its own;
#  - the output file keeps what the abandoned run wrote; the restored
#    program writes on after it (docs/GUIDE.md says so);
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
"$VIGIL" ctl "$pid" slices queue_bounds >"$TMP/slices.ck"
"$VIGIL" ctl --json "$pid" status >"$TMP/status.ck"
wait_for "$TMP/log" 'queue 1 done'
size=$(stat -c %s "$TMP/log")

"$VIGIL" ctl "$pid" restore >"$TMP/restore.out" 2>"$TMP/err" || { cat "$TMP/err" "$TMP/vigil.err"; fail "vigil ctl restore failed"; }
"$VIGIL" ctl "$pid" slices queue_bounds >"$TMP/slices.rs"
"$VIGIL" ctl --json "$pid" status >"$TMP/status.rs"
cat "$TMP/restore.out"
grep -qE "^restored pid $pid from checkpoint 1 \(on demand \(vigil ctl checkpoint\), after [0-9]+ events\); it runs on" "$TMP/restore.out" ||
	fail "vigil ctl restore did not say what it restored"
diff "$TMP/slices.ck" "$TMP/slices.rs" || fail "the slices after the restore are not the checkpoint's"
python3 - "$TMP/status.ck" "$TMP/status.rs" <<'PY' || fail "the event counts after the restore are not the checkpoint's"
import json, sys
a, b = (json.load(open(f))["data"] for f in sys.argv[1:3])
assert a["pid"] == b["pid"], (a["pid"], b["pid"])
assert a["per_event"] == b["per_event"], (a["per_event"], b["per_event"])
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
