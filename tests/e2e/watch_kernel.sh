# vigil watch --tier=kernel: the kernel tier's slices are keyed by process
# too (vg_kslot.tgid). 3 instances run before vigil, 3 start after; the
# 5th closes a handle twice. The same handle addresses recur in every
# instance (the same program, the same heap layout), so slices not told
# apart by process would mix histories (a close in one process would
# match an open in another). Its violation is reported for the 5th only,
# stopped by the probe itself, and the other 5 exit 0; the counts say 6
# processes and 1 violation; a process's exit leaves no live slice.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch_helpers.bash"
kernel_stops_others || skip kernel_stops_others "this kernel cannot hold a process at its exec (bpf_send_signal_task)"

for i in 1 2 3; do start_instance; done
for p in "${PIDS[@]}"; do wait_exec "$p" "$EXE"; done
start_watch --tier=kernel "$SPEC" --exe "$EXE" --json "$TMP/v.json"
grep -q "close_once: kernel tier" "$TMP/out" || fail "close_once does not run in the kernel tier"
for i in 4 5 6; do
	if [ "$i" = 5 ]; then start_instance --bug; else start_instance; fi
done
BUG=${PIDS[4]}
wait_for "$TMP/out" "pid $BUG is left stopped" 30
end_instances "$BUG"
stop_watch "$TMP/v.json" 5
[ "$RC" = 1 ] || fail "vigil watch exited $RC, not 1"
[ "$(grep -c 'VIOLATION of close_once' "$TMP/out")" = 1 ] || fail "not exactly one violation"
grep -A6 'VIOLATION of close_once' "$TMP/out" | grep -qE "^  process pid $BUG\b" ||
	fail "the violation does not name pid $BUG"
grep -A6 'VIOLATION of close_once' "$TMP/out" | grep -qE "target pid $BUG is stopped" ||
	fail "the probe did not stop pid $BUG at the event"
[ "$(proc_state "$BUG")" = T ] || fail "pid $BUG is not stopped"
grep -qE "watch: 6 processes monitored .* 5 exited, 1 violations, 1 left stopped" "$TMP/out" ||
	fail "the counts do not say 6 processes, 5 exited, 1 violation"
# every exited process's slices: its last handle, open at its exit (its own, not another's)
for p in "${PIDS[@]}"; do
	[ "$p" = "$BUG" ] && continue
	grep -qE "^vigil: pid $p: close_once: live slices by state: init=0 opened=1 bad_close=0" "$TMP/out" ||
		fail "pid $p's slices at its exit are not its one handle open"
done
[ "$(uprobes_on "$EXE")" = 0 ] || fail "uprobes left on $EXE"
echo "PASS"
