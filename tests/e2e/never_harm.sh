# vigil never harms its target:
#  - SIGKILL of vigil mid-run: every probe goes away with it (no uprobe
#    link, no perf event left) and the target runs on at full speed;
#  - vigil attach, then SIGINT: vigil detaches, the target runs on;
#  - vigil run, then SIGINT: passed to the target, which exits cleanly.
. "$(dirname "$0")/lib.sh"

# uprobes on the ticker binary, whoever owns them
links() { bpftool perf list 2>/dev/null | grep -c "filename $(readlink -f "$TARGETS/ticker") " ; }
base=0

start_ticker() {	# sets tpid
	"$TARGETS/ticker" >"$TMP/ticker.out" &
	tpid=$!
	LEFT_PIDS+=("$tpid")
	sleep 0.3
}

wait_probes() {	# until vigil's probes are attached (BPF load takes ~1 s)
	for _ in $(seq 100); do [ "$(links)" -gt "$base" ] && return; sleep 0.1; done
}

interrupt_vigil() {	# SIGINT to vigil once attached; sets rc
	wait_probes
	sleep 0.5
	kill -INT "$vpid"
	wait "$vpid"
	rc=$?
	cat "$TMP/out"
}

# --- SIGKILL of vigil attached to a running process -----------------------
start_ticker
"$VIGIL" attach specs/ticks.vigil -p "$tpid" >"$TMP/out" 2>&1 &
vpid=$!
wait_probes
cat "$TMP/out"
[ "$(links)" -gt "$base" ] || fail "vigil attached no probe"
kill -KILL "$vpid"
wait "$vpid" 2>/dev/null
sleep 0.5
[ "$(links)" -eq "$base" ] || fail "probes left after vigil was SIGKILLed: $(bpftool link show)"
# the target still runs, and makes progress
[ "$(proc_state "$tpid")" != T ] || fail "target left stopped"
kill -0 "$tpid" || fail "target died"
kill -INT "$tpid"
wait "$tpid"
grep -q 'ticker: calls tick=[0-9]* (interrupted)' "$TMP/ticker.out" || fail "target did not finish cleanly"

# --- vigil attach + SIGINT: detach, the target runs on --------------------
start_ticker
"$VIGIL" attach specs/ticks.vigil -p "$tpid" >"$TMP/out" 2>&1 &
vpid=$!
interrupt_vigil
[ "$rc" -eq 0 ] || fail "vigil exited $rc after SIGINT"
grep -q 'detaching, the target runs on' "$TMP/out" || fail "no detach message"
grep -qE 'before:tick=[1-9][0-9]*' "$TMP/out" || fail "no tick counted"
sleep 0.3
[ "$(links)" -eq "$base" ] || fail "probes left after detach"
kill -0 "$tpid" || fail "target died on detach"
kill -INT "$tpid"
wait "$tpid"

# --- vigil run + SIGINT: the target gets it and exits cleanly -------------
"$VIGIL" run specs/ticks.vigil -- "$TARGETS/ticker" >"$TMP/out" 2>&1 &
vpid=$!
interrupt_vigil
[ "$rc" -eq 0 ] || fail "vigil exited $rc"
expect_out "passing it to the target"
expect_out "ticker: calls tick=[0-9]+ \(interrupted\)"
n=$(sed -nE 's/.*ticker: calls tick=([0-9]+).*/\1/p' "$TMP/out")
expect_out "before:tick=$n( |$)"
expect_out "target exited with status 0"
