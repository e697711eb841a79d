# vigil watch --on-violation checkpoint, per process: the service A runs
# before vigil starts (attached), B starts under it (held at its exec).
# SIGUSR1 breaks a request in A: a CRIU image of A alone goes to
# --checkpoint-dir/ckpt-A with A's monitor state beside it (its slices
# only, a one-process state), and A runs on. B is monitored on: its last
# request id (count.vigil's variable, in vigil's SIGUSR1 dump) keeps
# growing, and its own violation later gets an image of its own. No
# uprobe's int3 is in A's image: restored with no probes at all, it runs
# on through its probed calls (an int3 left would kill it with SIGTRAP).
# Restored with --monitor, its monitor goes on from the checkpoint's
# state: the same bug again makes a second slice in ended_twice. First,
# what watch does not take is refused with its reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup		# req.vigil, count.vigil, the service (A) running
A=$SVC_PID
EXE=$(readlink -f "$TARGETS/service")

# what watch does not take (yet) is refused with the reason, status 2
# (docs/reference/watch-and-containers.md)
refused() {	# refused MESSAGE_REGEX ARGS...
	local want=$1
	shift
	run_vigil watch "$@" --exe "$EXE"
	expect_rc 2
	expect_out "$want"
}
refused 'does not take --dynamic: a watched process gets all its probes' "$TMP/req.vigil" --dynamic
refused 'does not take --interactive: gdb takes one process' "$TMP/req.vigil" --interactive
refused 'does not take --view: the live page shows one process' "$TMP/req.vigil" --view
refused 'does not take --record: a recording is one process' "$TMP/req.vigil" --record "$TMP/rec"
refused 'on-violation gdb: gdb takes one process' "$TMP/req.vigil" --on-violation gdb
refused 'on-violation requests=gdb: gdb takes one process' "$TMP/req.vigil" --on-violation requests=gdb
cat >"$TMP/w.vigil" <<'V'
property w ""
state s accepting {
  write sink -> s
}
V
refused 'does not take watchpoint events .*: hardware watchpoints are armed per thread' "$TMP/w.vigil"
sed 's/^state ended_twice violation$/state ended_twice violation\non enter ended_twice: restore/' \
	"$TMP/req.vigil" >"$TMP/r.vigil"
refused 'does not take the restore reaction' "$TMP/r.vigil"
wait_exec "$A" "$EXE"

# B's last request id in a new SIGUSR1 dump of vigil's monitors
last_of_b() {
	local n
	n=$(grep -c 'end of the monitor state' "$TMP/out")
	kill -USR1 "$VIGIL_PID"
	for _ in $(seq 100); do
		[ "$(grep -c 'end of the monitor state' "$TMP/out")" -gt "$n" ] && break
		sleep 0.1
	done
	awk -v b="vigil: pid $B: begins:" '
		index($0, b) == 1 { want = 1; next }
		want && /last=/ { sub(/.*last=/, ""); v = $1 + 0; want = 0 }
		END { print v }' "$TMP/out"
}

"$VIGIL" watch "$TMP/req.vigil" "$TMP/count.vigil" --exe "$EXE" \
	--on-violation checkpoint --checkpoint-dir "$TMP/ck" \
	--json "$TMP/v.json" >"$TMP/out" 2>&1 &
VIGIL_PID=$!
LEFT_PIDS+=("$VIGIL_PID")	# a failed test leaves no vigil behind
wait_for "$TMP/out" 'processes running it, monitored' 60
setsid "$TARGETS/service" "$TMP/b.pid" >"$TMP/b.out" 2>&1 &	# as agent_setup's
B=$!
LEFT_PIDS+=("$B")
wait_for "$TMP/out" "pid $B[,:].*started" 30
sleep 0.3

kill -USR1 "$A"
wait_for "$TMP/out" "pid $A: checkpoint $TMP/ck/ckpt-$A/ck-[0-9]+ " 60
DIR=$(sed -nE "s/.*pid $A: checkpoint ([^ ]+) .*/\1/p" "$TMP/out" | head -1)
echo "A's checkpoint: $DIR"
[ -f "$DIR/monitor.state" ] || fail "no monitor state beside A's image"
grep -qE '^slice requests 1 ended_twice ' "$DIR/monitor.state" ||
	fail "A's monitor state lacks its violating slice: $(cat "$DIR/monitor.state")"
# begins has one slice per process, its variable the last request id:
# A's, the one it ended twice or a later one (the user tier stops A once
# it has seen the violation, and A may have begun the next request by
# then: the state is the image's, taken after that); B's would be lower
ID=$(grep -A1 'VIOLATION of requests' "$TMP/out" | sed -nE 's/.*slice  id=([0-9]+).*/\1/p' | head -1)
LAST=$(sed -nE 's/^slice begins 0 counting 0( 0)+ ([0-9]+)$/\2/p' "$DIR/monitor.state")
[ "$(grep -c '^slice begins ' "$DIR/monitor.state")" = 1 ] && [ -n "$LAST" ] && [ -n "$ID" ] &&
	[ "$LAST" -ge "$ID" ] ||
	fail "A's monitor state is not A's alone (begins with last>=$ID): $(head -c 3000 "$DIR/monitor.state")"
grep -q "\"type\":\"checkpoint\",\"pid\":$A," "$TMP/v.json" ||
	fail "the JSON lines do not name A's checkpoint"
sleep 0.3
kill -0 "$A" && [ "$(proc_state "$A")" != T ] ||
	fail "A does not run on after its checkpoint ($(proc_state "$A"))"
grep -q "pid $B: checkpoint" "$TMP/out" && fail "B was checkpointed for A's violation"

# B is watched on: its count grows, and its violation is its own
l1=$(last_of_b)
sleep 0.5
l2=$(last_of_b)
echo "B's last request id: $l1, then $l2"
[ -n "$l1" ] && [ -n "$l2" ] && [ "$l2" -gt "$l1" ] ||
	fail "B's monitor does not go on after A's checkpoint ($l1, then $l2)"
kill -USR1 "$B"
wait_for "$TMP/out" "pid $B: checkpoint $TMP/ck/ckpt-$B/ck-[0-9]+ " 60
kill -INT "$VIGIL_PID"
wait "$VIGIL_PID"
RC=$?
cat "$TMP/out"
[ "$RC" = 1 ] || fail "vigil watch exited $RC, not 1 (violations)"
[ "$(grep -c 'VIOLATION of requests' "$TMP/out")" = 2 ] || fail "not two violations"
[ "$(uprobes_on "$EXE")" = 0 ] || fail "uprobes left on $EXE after vigil's end"
kill -TERM "$B"
wait "$B" || fail "B exited with status $? after vigil's end"

# A's image has no int3: restored with no probes, it runs its probed
# functions on (it is not ours after the restore: poll it)
"$VIGIL" restore --force "$DIR" >"$TMP/r1" 2>&1 || { cat "$TMP/r1"; fail "vigil restore failed"; }
grep -q "restored pid $A from $DIR" "$TMP/r1" || { cat "$TMP/r1"; fail "not restored"; }
kill -CONT "$A"
sleep 0.5
st=$(proc_state "$A")
[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != T ] ||
	fail "A restored without probes did not run on (state '$st': an int3 in its image?)"

# and with --monitor: the checkpoint's state goes on
"$VIGIL" restore --force "$DIR" --monitor "$TMP/req.vigil" "$TMP/count.vigil" >"$TMP/r2" 2>&1 &
RPID=$!
wait_for "$TMP/r2" "restored pid $A from $DIR" 60
wait_for "$TMP/r2" "monitoring pid $A again" 30
sleep 0.5
kill -USR1 "$A"
wait_for "$TMP/r2" 'VIOLATION of requests' 20
wait "$RPID"
cat "$TMP/r2"
grep -q 'requests: live slices by state: .*ended_twice=2' "$TMP/r2" ||
	fail "the restored monitor did not go on from A's checkpoint state (2 slices in ended_twice)"
grep -q 'VIOLATION of begins' "$TMP/r2" &&
	fail "the restored monitor lost A's last request id (begins out of order)"
echo ok
