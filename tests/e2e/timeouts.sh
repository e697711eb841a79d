# Timed properties (docs/LANGUAGE.md, Time) on tests/targets/timely.c:
# a 300 ms mutex hold among thousands of short ones is stopped by a 100 ms
# limit while the holder is still inside its critical section (gdb's bt),
# and a 500 ms limit is quiet; a handler that never returns is reported
# at the deadline plus a few milliseconds though no further event comes;
# the other library timeouts fire on their targets and are quiet with a
# longer limit; a recording of each run replays to the same verdicts.
# The first two run in both tiers: in the kernel tier the timer of
# bpf/ktimer.bpf.h finds the timeout and stops the holder.
. "$(dirname "$0")/lib.sh"

# verdicts of a --json file, one line each, sorted
verdicts() {
	python3 - "$1" <<'PY' | sort
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "verdict":
        ev = o.get("event", {})
        print(o["property"], json.dumps(o["slice"], sort_keys=True),
              o["state"], o["verdict"], ev.get("kind", ""),
              json.dumps(ev.get("timeout", {}).get("deadline_ns")))
PY
}

# late MS: the violation's timer fired less than MS ms after its deadline
late_under() {
	local late
	late=$(sed -nE 's/.*event  timeout in state .*fired at [0-9.]+s \(\+([0-9.]+)ms\).*/\1/p' "$TMP/out" | head -1)
	[ -n "$late" ] || fail "no timeout line in the report"
	python3 -c "import sys; sys.exit(0 if float('$late') < $1 else 1)" ||
		fail "the timeout fired ${late} ms after its deadline (limit: $1 ms)"
}

# replay SPEC LIMIT: the recording $TMP/rec checks to the live verdicts
replay() {
	"$VIGIL" check --json "$TMP/replay.jsonl" "$1" -D "limit=$2" "$TMP/rec" >"$TMP/replay.out" 2>&1
	verdicts "$TMP/live.jsonl" >"$TMP/live.v"
	verdicts "$TMP/replay.jsonl" >"$TMP/replay.v"
	[ -s "$TMP/live.v" ] || fail "$1: no verdict live"
	diff "$TMP/live.v" "$TMP/replay.v" || fail "$1: the recording replays to other verdicts"
	# the replay computes the timeouts in the trace's time, it does not
	# copy the live ones: with a limit longer than the run, none fires
	"$VIGIL" check "$1" -D limit=10s "$TMP/rec" >"$TMP/replay.out" 2>&1 ||
		{ cat "$TMP/replay.out"; fail "$1: the recording with -D limit=10s is not quiet"; }
	! grep -q VIOLATION "$TMP/replay.out" || fail "$1: a timeout of 10s in a run of less"
}

stopped_in() {	# $1: function the stopped target must be in (any frame); $2: more gdb commands
	pid=$(stopped_pid)
	[ -n "$pid" ] || fail "no target left stopped"
	LEFT_PIDS+=("$pid")
	[ "$(proc_state "$pid")" = T ] || fail "target not stopped"
	gdb_handoff "-ex bt ${2:-}"
	grep -qE "^#[0-9]+ .* $1 " "$TMP/gdb" || { cat "$TMP/gdb"; fail "not stopped inside $1"; }
	kill -KILL "$pid"
}

TIERS="kernel user"
kernel_stops_others || { echo "no kernel-tier timer on this kernel: the user tier only"; TIERS=user; }
for TIER in $TIERS; do
# -- a mutex held 300 ms once among 6000 short holds (kernel tier: with
# VIGIL_DEBUG, which says what the kernel's timer did)
[ $TIER = kernel ] && export VIGIL_DEBUG=1
run_vigil run --tier=$TIER --json "$TMP/live.jsonl" --record "$TMP/rec" specs/lib/mutex_hold.vigil -D limit=100ms -- "$TARGETS/timely" hold 300
unset VIGIL_DEBUG
expect_rc 1
expect_out "VIOLATION of mutex_held_too_long"
expect_out "state  held -> held_too_long"
expect_out "event  timeout in state held: entered at [0-9.]+s, limit 100.000ms"
expect_no_out "hold done"
# the entering event's stack: the lock in hold_long
grep -A2 "backtrace of tid" "$TMP/out" | grep -q "hold_long" || fail "the entering event's stack lacks hold_long"
late_under 20
if [ $TIER = kernel ]; then	# the kernel's timer fired it, not vigil's
	grep -qE "kernel timer: [0-9]+ sweeps, 1 timeouts fired" "$TMP/out" ||
		fail "the kernel tier's timer did not fire the timeout"
fi
# still holding the lock: glibc's owner of m1 is the thread the report names
holder=$(sed -nE 's/.*event  timeout in state held: .* in tid ([0-9]+).*/\1/p' "$TMP/out" | head -1)
[ -n "$holder" ] || fail "the timeout's report names no holder thread"
stopped_in hold_long "-ex 'p m1.__data.__owner'"
grep -qE "^\\\$[0-9]+ = $holder\$" "$TMP/gdb" || { cat "$TMP/gdb"; fail "$TIER: m1 is not held by the holder $holder at the stop"; }
replay specs/lib/mutex_hold.vigil 100ms
# the JSON verdict: the entering event's stack, and the times
python3 - "$TMP/live.jsonl" <<'PY' || fail "$TIER: the JSON violation lacks the timeout's evidence"
import json, sys
v = [o for o in map(json.loads, open(sys.argv[1]))
     if o["type"] == "verdict" and o["verdict"] == "violation"][0]
t = v["event"]["timeout"]
assert v["event"]["kind"] == "timeout", v
assert t["limit_ns"] == 100000000 and t["deadline_ns"] == t["entered_ns"] + t["limit_ns"], t
assert t["fired_ns"] >= t["deadline_ns"] and v["time_ns"] == t["deadline_ns"], t
assert v["stack"][0].startswith("hold_long+"), v["stack"]
PY

run_vigil run --tier=$TIER specs/lib/mutex_hold.vigil -D limit=500ms -- "$TARGETS/timely" hold 300
expect_rc 0
expect_no_out VIOLATION
expect_out "timely: hold done"

# -- a request that never returns: no event follows the call
run_vigil run --tier=$TIER --json "$TMP/live.jsonl" --record "$TMP/rec" specs/lib/call_timeout.vigil -D func=handle -D limit=50ms -- "$TARGETS/timely" stuck
expect_rc 1
expect_out "VIOLATION of call_timeout"
expect_out "slice  r=42"
expect_out "limit 50.000ms"
late_under 20
stopped_in handle
replay specs/lib/call_timeout.vigil 50ms
done

# -- a mutex waited for 280 ms
run_vigil run --json "$TMP/live.jsonl" --record "$TMP/rec" specs/lib/lock_wait.vigil -D limit=100ms -- "$TARGETS/timely" wait 300
expect_rc 1
expect_out "state  waiting -> waited_too_long"
stopped_in "_*pthread_mutex_lock"	# the waiting thread, which gdb selects
replay specs/lib/lock_wait.vigil 100ms
run_vigil run specs/lib/lock_wait.vigil -D limit=500ms -- "$TARGETS/timely" wait 300
expect_rc 0
expect_out "timely: wait done"

# -- a file kept open 300 ms, a socket, a block: reported, not stopped
for c in "open_too_long|files|fd [0-9]+ open for longer than the limit|state  open -> open_too_long" \
	 "open_too_long|sockets|fd [0-9]+ open for longer than the limit|state  open -> open_too_long" \
	 "alloc_age|allocs|block 0x[0-9a-f]+ alive for longer than the limit|state  live -> too_old"; do
	IFS='|' read -r spec mode line state <<<"$c"
	run_vigil run --json "$TMP/live.jsonl" --record "$TMP/rec" "specs/lib/$spec.vigil" -D limit=100ms -- "$TARGETS/timely" "$mode" 300
	expect_rc 1
	expect_out "$line"
	expect_out "$state"
	expect_out "timely: $mode done"
	[ "$(grep -c VIOLATION "$TMP/out")" = 1 ] || fail "$spec: not exactly one violation"
	replay "specs/lib/$spec.vigil" 100ms
	run_vigil run "specs/lib/$spec.vigil" -D limit=500ms -- "$TARGETS/timely" "$mode" 300
	expect_rc 0
	expect_no_out VIOLATION
done

# -- a timed CSV trace (@TIME column): timeouts fire in trace time.
# lock 1: held 10 ms, then 60 ms (slow: more than 50), then from 100 ms to
# 199.999999 ms (released 1 ns before its deadline); lock 2: 20 to 119 ms;
# lock 3: acquired at 100 ms (a line without @ is at the time of the one
# before), released at 150 ms; lock 4: acquired at 201 ms, times out at
# 301 ms when lock 5's acquire at 400 ms lets the trace clock run there.
# Lock 5's deadline (500 ms) is after the trace ends: no verdict.
run_vigil check --json "$TMP/t.jsonl" specs/timed_locks.vigil tests/traces/timed_locks.csv
expect_rc 1
expect_out "lock 4 held too long \(0 slow releases before\)"
python3 - "$TMP/t.jsonl" <<'PY' || fail "timed trace verdicts differ from the hand-computed ones"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
v = [(o["slice"]["l"], o["event"]["timeout"]["entered_ns"], o["time_ns"])
     for o in objs if o["type"] == "verdict" and o["verdict"] == "violation"]
assert v == [(4, 201000000, 301000000)], v
PY
run_vigil check -D limit=99ms specs/timed_locks.vigil tests/traces/timed_locks.csv
expect_rc 1
[ "$(grep -c VIOLATION "$TMP/out")" = 3 ] || fail "-D limit=99ms: expected locks 1, 2 and 4 late"
# the clock in a guard: lock 1's hold from 30 to 90 ms was past half the limit
expect_out "lock 1 held too long \(1 slow releases before\)"
printf '@5ms,acquire,1\n@4ms,release,1\n' >"$TMP/back.csv"
run_vigil check specs/timed_locks.vigil "$TMP/back.csv"
expect_rc 2
expect_out "back.csv:2: timestamp 4000000 ns is before the previous line's 5000000 ns"
printf '@5sec,acquire,1\n' >"$TMP/unit.csv"
run_vigil check specs/timed_locks.vigil "$TMP/unit.csv"
expect_rc 2
expect_out "unit.csv:1: bad timestamp '@5sec', expected @NUMBER with a unit"
echo "timeouts: ok"
