# `vigil restore` inside a live gdb session (issue 17): a checkpoint taken
# from gdb at a user breakpoint, `continue` to the violation and on to the
# next queue, `vigil restore 1`, and `continue` reaches the same violation
# again:
#  - the same pid, gdb attached again, its breakpoint on fill kept;
#  - the violating slice shown by `vigil show` the same both times: its
#    state, variables and evidence (times aside, which differ);
#  - the monitor's event counts back to the checkpoint's: `vigil status`
#    says the same both times at the violation;
#  - the program runs to its end under monitoring afterwards, and its own
#    counts (printed after the replay) equal the probes'.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/show.py" <<'PY'
import gdb
def vshow(tag):
    pid = gdb.selected_inferior().pid
    s = gdb.execute("vigil slices queue_bounds overflow", to_string=True)
    show = gdb.execute("vigil show queue_bounds " + s.split()[0], to_string=True)
    st = gdb.execute("vigil status", to_string=True).splitlines()[0]
    gdb.write("%s-PID %d\n%s-STATUS %s\n" % (tag, pid, tag, st))
    for l in show.splitlines():
        gdb.write("%s-SHOW %s\n" % (tag, l))
PY
# checkpoints in the test's own directory: gdb is told their numbers, and
# the default one is per pid, where images an earlier process with the
# same pid left make a session's first checkpoint another than 1
start_live run --interactive --checkpoint-dir "$TMP/images" specs/queue_bounds.vigil -- "$TARGETS/queue3"
live_gdb "-x $TMP/show.py -ex 'help vigil restore' -ex 'break fill' -ex continue -ex 'vigil checkpoint' -ex continue \
 -ex 'python vshow(\"FIRST\")' -ex 'shell $VIGIL ctl $TARGET_PID restore' -ex 'complete vigil restore ' -ex 'vigil restore 7' -ex continue -ex 'vigil restore 1' -ex 'info breakpoints' -ex 'vigil status' -ex 'vigil checkpoint' \
 -ex continue -ex 'python vshow(\"AGAIN\")' -ex bt -ex 'info breakpoints' -ex 'delete 2' -ex continue -ex continue -ex continue"
grep -q '^Go back to checkpoint N (default: the newest), program and monitor state together' "$TMP/gdb" || fail "help vigil restore"
grep -qE '^1 +[0-9]+ +good +vigil checkpoint \(gdb\)' "$TMP/gdb" || fail "no checkpoint taken from gdb"
# from a shell while gdb holds the process: refused, gdb must let go first
grep -qE "^vigil: pid $TARGET_PID is traced by process [0-9]+ \(gdb\?\): restore from gdb" "$TMP/gdb" ||
	fail "vigil ctl restore under gdb is not refused"
grep -qx 'vigil restore 1' "$TMP/gdb" || fail "no completion of the checkpoint number"
grep -q 'vigil: no checkpoint 7 in this session' "$TMP/gdb" || fail "a missing checkpoint is not refused"
grep -qE "^restored pid $TARGET_PID from checkpoint 1 \(vigil checkpoint \(gdb\), after [0-9]+ events\)" "$TMP/gdb" ||
	fail "vigil restore 1 did not say what it restored"
# a checkpoint after the restore is good again: the violation was the
# abandoned run's
grep -qE '^2 +1 +good +vigil checkpoint \(gdb\)' "$TMP/gdb" || fail "a checkpoint after the restore is not good"
# kept, held disabled while the restored pc stands on it (as after a
# checkpoint), enabled again at the next stop
[ "$(grep -cE '^[0-9]+ +breakpoint +keep [yn] .* in fill at' "$TMP/gdb")" = 2 ] || fail "gdb's breakpoint on fill is gone after the restore"
grep -qE '^[0-9]+ +breakpoint +keep y .* in fill at' "$TMP/gdb" || fail "gdb's breakpoint on fill is not enabled again after the restore"
# queue 1, queue 1 again, queues 2 and 3
[ "$(grep -c '^vigil: queue_bounds entered state overflow' "$TMP/gdb")" = 4 ] ||
	fail "the replay did not reach the violation again (and the next queues' after it)"
# right after the restore: the checkpoint's monitor, queue 1 in ready, no
# trace of queue 2 (made after the checkpoint: the run went on to its
# fill before the restore)
grep -qE '^Breakpoint 2, fill \(q=.*, base=base@entry=100\)' "$TMP/gdb" || fail "the run did not go on to queue 2 before the restore"
grep -qE "^pid $TARGET_PID: 1 events, 0 lost" "$TMP/gdb" || fail "the event count after the restore is not the checkpoint's"
awk '/^restored pid/ { on = 1 } on && /^  ready +1 slices/ { r = 1 } on && /^  overflow +0 slices/ { o = 1; exit } END { exit !(r && o) }' "$TMP/gdb" ||
	fail "the slices after the restore are not the checkpoint's (queue 1 ready, nothing else)"
grep -q "^FIRST-PID $TARGET_PID\$" "$TMP/gdb" || fail "no first violation seen"
grep -q "^AGAIN-PID $TARGET_PID\$" "$TMP/gdb" || fail "not the same pid after the restore"
first=$(sed -n 's/^FIRST-//p' "$TMP/gdb" | sed -E 's/[+-][0-9]+\.[0-9]+s tid/tid/')
again=$(sed -n 's/^AGAIN-//p' "$TMP/gdb" | sed -E 's/[+-][0-9]+\.[0-9]+s tid/tid/')
echo "$first" | grep -qE '^SHOW queue_bounds slice q=0x[0-9a-f]+: state overflow' ||
	fail "the first violation's slice is not what queue3 does"
echo "$first" | grep -q 'SHOW .*evidence' || fail "vigil show has no evidence"
# and vigil's message at the stop, with the slice's variables (the slice
# in a violation state keeps none for `vigil show`)
stop() { awk -v n="$1" '/^vigil: queue_bounds entered state overflow/ { k++ } k == n && /^Catchpoint/ { exit } k == n' "$TMP/gdb" |
	sed -E 's/[+-][0-9]+\.[0-9]+s tid/tid/'; }
stop 1 | grep -qx 'vars      n=2 max=2' || fail "the first violation's variables"
[ "$(stop 1)" = "$(stop 2)" ] || { diff <(stop 1) <(stop 2); fail "vigil's message at the replayed violation is not the first one's"; }
[ "$first" = "$again" ] || { diff <(echo "$first") <(echo "$again"); fail "the monitor is not the same at the violation after the restore"; }
grep -qE '^#0 .* in queue_push \(' "$TMP/gdb" || fail "bt after the replay"
grep -q 'exited normally' "$TMP/gdb" || fail "the restored program did not run to its end under gdb"
wait_vigil
expect_rc 1
grep -q 'restored pid [0-9]* from checkpoint 1' "$TMP/vigil.err" || fail "vigil's stderr does not say it restored"
# the restored process's counts (from the checkpoint on, replayed) are the
# program's own: 3 queues, 9 pushes, the probes' counts the same
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program's counts"
grep -q 'events=21 .* after:queue_new=3 before:queue_push=9 before:queue_pop=9$' "$TMP/vigil.err" ||
	fail "the probes' counts are not the program's after the restore"
echo PASS
