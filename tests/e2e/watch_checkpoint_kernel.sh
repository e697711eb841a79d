# vigil watch --tier=kernel --on-violation checkpoint: the kernel tier's
# slices are keyed by process, and a process's checkpoint carries its own
# alone. Two services run (A, B, both attached); SIGUSR1 breaks a request
# in A: A's image has one `begins` slice, with A's last request id (the
# one it ended twice), and each request id at most once (B's slices, with
# the same ids, would repeat them); A runs on, and B's own violation
# later gets its own image.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup		# req.vigil, count.vigil, the service (A) running
A=$SVC_PID
EXE=$(readlink -f "$TARGETS/service")
setsid "$TARGETS/service" "$TMP/b.pid" >"$TMP/b.out" 2>&1 &	# as agent_setup's
B=$!
LEFT_PIDS+=("$B")
wait_exec "$A" "$EXE"
wait_exec "$B" "$EXE"
"$VIGIL" watch "$TMP/req.vigil" "$TMP/count.vigil" --exe "$EXE" --tier=kernel \
	--on-violation checkpoint --checkpoint-dir "$TMP/ck" >"$TMP/out" 2>&1 &
VIGIL_PID=$!
LEFT_PIDS+=("$VIGIL_PID")
wait_for "$TMP/out" '2 processes running it, monitored' 60
grep -q 'requests: kernel tier' "$TMP/out" || fail "requests is not in the kernel tier"
sleep 0.5
kill -USR1 "$A"
wait_for "$TMP/out" "pid $A: checkpoint $TMP/ck/ckpt-$A/ck-[0-9]+ " 60
DIR=$(sed -nE "s/.*pid $A: checkpoint ([^ ]+) .*/\1/p" "$TMP/out" | head -1)
ID=$(grep -A1 'VIOLATION of requests' "$TMP/out" | sed -nE 's/.*slice  id=([0-9]+).*/\1/p' | head -1)
echo "A's checkpoint: $DIR (violation at id $ID)"
grep -qE "^slice requests 1 ended_twice 0 $ID " "$DIR/monitor.state" ||
	fail "A's monitor state lacks its violating slice"
[ "$(grep -c '^slice begins ' "$DIR/monitor.state")" = 1 ] &&
	grep -qE "^slice begins 0 counting 0( 0)+ $ID\$" "$DIR/monitor.state" ||
	fail "A's monitor state has not A's begins slice alone: $(grep '^slice begins' "$DIR/monitor.state")"
n=$(grep -c '^slice requests ' "$DIR/monitor.state")
u=$(grep '^slice requests ' "$DIR/monitor.state" | awk '{print $6}' | sort -u | wc -l)
[ "$n" -gt 10 ] && [ "$n" = "$u" ] ||
	fail "A's monitor state has $n requests slices for $u ids: not one process's"
sleep 0.3
kill -0 "$A" && [ "$(proc_state "$A")" != T ] ||
	fail "A does not run on after its checkpoint ($(proc_state "$A"))"
kill -USR1 "$B"
wait_for "$TMP/out" "pid $B: checkpoint $TMP/ck/ckpt-$B/ck-[0-9]+ " 60
kill -INT "$VIGIL_PID"
wait "$VIGIL_PID"
RC=$?
cat "$TMP/out" | grep -v '^  '
[ "$RC" = 1 ] || fail "vigil watch exited $RC, not 1 (violations)"
[ "$(uprobes_on "$EXE")" = 0 ] || fail "uprobes left on $EXE after vigil's end"
for p in "$A" "$B"; do
	[ "$(proc_state "$p")" != T ] || fail "pid $p is left stopped"
done
echo ok
