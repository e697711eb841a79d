# vigil ctl load / unload in a plain vigil watch: a loaded spec applies to
# every process the watch monitors (those running, attached as they run)
# and to those that start later (held at their exec: its probes in from
# their first instruction), each process with its own slices; the spec the
# watch started with keeps its slices and its violation; unloading it
# gives each process's verdicts and takes it out of every process; a fork
# of a watched process gets a copy of its parent's slices of the loaded
# spec (its own record), and its exit its own verdict.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agent_helpers.bash"

agent_setup	# $TMP/req.vigil, the service running (SVC_PID)
"$TARGETS/service" >"$TMP/svc2.out" 2>&1 &
SVC2=$!
LEFT_PIDS+=("$SVC2")
# which request a monitor saw first: 0 only from the first instruction
cat >"$TMP/first.vigil" <<'V'
property first "the first request this process's monitor sees"
state fresh accepting {
  before request_begin(i) when i == 0 -> from_start
  before request_begin(i) -> midway
}
state from_start accepting {
  before request_begin(i) -> from_start
}
state midway accepting {
  before request_begin(i) -> midway
}
V
SVC=$(readlink -f "$TARGETS/service")
"$VIGIL" watch "$TMP/req.vigil" --exe "$SVC" --on-violation=continue \
	--json "$TMP/w.json" >"$TMP/out" 2>&1 &
VIGIL_PID=$!
LEFT_PIDS+=("$VIGIL_PID")	# a failed test leaves no vigil behind
wait_for "$TMP/out" '2 processes running it, monitored' 60
kill -USR1 "$SVC_PID"
wait_for "$TMP/out" 'VIOLATION of requests' 10

"$VIGIL" ctl "$VIGIL_PID" load "$TMP/first.vigil" >"$TMP/load" 2>&1 ||
	{ cat "$TMP/load" "$TMP/out"; fail "vigil ctl load into vigil watch failed"; }
grep -q 'loaded first (user tier): .*, in each of the 2 watched processes and those to come' "$TMP/load" ||
	fail "the load's answer: $(cat "$TMP/load")"
# a third service, started after the load
"$TARGETS/service" >"$TMP/svc3.out" 2>&1 &
SVC3=$!
LEFT_PIDS+=("$SVC3")
wait_for "$TMP/out" "pid $SVC3.*started: held at its exec" 20
status() {
	for _ in $(seq 50); do
		"$VIGIL" ctl "$VIGIL_PID" status >"$TMP/status" 2>&1
		grep -qE "$1" "$TMP/status" && return 0
		sleep 0.2
	done
	cat "$TMP/status"
	fail "vigil ctl status never had /$1/"
}
# the two running ones seen midway, the new one from its first request
status 'from_start +1 slices'
status 'midway +2 slices'
grep -q "^loaded from $TMP/first.vigil" "$TMP/status" || fail "first is not loaded from first.vigil"
grep -qE 'ended_twice +1 slices' "$TMP/status" || fail "requests lost its ended_twice slice"

# requests, given at the start, unloaded: each process's verdicts, and
# out of every process (a new bug is not seen)
"$VIGIL" ctl "$VIGIL_PID" unload requests >"$TMP/unload" 2>&1 ||
	{ cat "$TMP/unload"; fail "vigil ctl unload requests failed"; }
grep -q 'unloaded requests' "$TMP/unload" || fail "the unload's answer: $(cat "$TMP/unload")"
wait_for "$TMP/out" "pid $SVC_PID: requests: live slices by state: .*ended_twice=1" 5
status '^first'
! grep -q '^requests' "$TMP/status" || fail "requests is still in the status"
kill -USR1 "$SVC2"
sleep 0.5
[ "$(grep -c 'VIOLATION of requests' "$TMP/out")" = 1 ] || fail "requests still watches after its unload"
# first's verdicts go with its unload: each process's own
"$VIGIL" ctl "$VIGIL_PID" unload first >"$TMP/unload" 2>&1 ||
	{ cat "$TMP/unload"; fail "vigil ctl unload first failed"; }
wait_for "$TMP/out" "pid $SVC3: first: live slices by state: fresh=0 from_start=1 midway=0" 5
wait_for "$TMP/out" "pid $SVC_PID: first: live slices by state: fresh=0 from_start=0 midway=1" 5
kill -INT "$VIGIL_PID"
wait "$VIGIL_PID"
kill -0 "$SVC_PID" && kill -0 "$SVC2" && kill -0 "$SVC3" || fail "a service did not run on"
kill "$SVC_PID" "$SVC2" "$SVC3"

# forks: the loaded spec's slices of a parent are its child's too
cat >"$TMP/w0.vigil" <<'V'
property any "work is called"
state s accepting {
  before work(k) -> s
}
V
cat >"$TMP/fork.vigil" <<'V'
property copied "work(100) after work(9): only in a child that has its parent's slice"
state fresh accepting {
  before work(k) when k == 9 -> nine
}
state nine accepting {
  before work(k) when k == 100 -> in_child
}
state in_child
V
FORKER=$(readlink -f "$TARGETS/forker")
"$VIGIL" watch "$TMP/w0.vigil" --exe "$FORKER" --json "$TMP/f.json" >"$TMP/out" 2>&1 &
VIGIL_PID=$!
LEFT_PIDS+=("$VIGIL_PID")
wait_for "$TMP/out" '0 processes running it, monitored' 60
"$VIGIL" ctl "$VIGIL_PID" load "$TMP/fork.vigil" >"$TMP/load" 2>&1 ||
	{ cat "$TMP/load" "$TMP/out"; fail "vigil ctl load into vigil watch failed"; }
"$FORKER" /bin/true >"$TMP/forker.out" 2>&1 || fail "forker failed: $(cat "$TMP/forker.out")"
grep -q 'child status=4' "$TMP/forker.out" || fail "forker: $(cat "$TMP/forker.out")"
wait_for "$TMP/out" 'pid [0-9]+: copied: live slices by state: fresh=0 nine=0 in_child=1' 10
kill -INT "$VIGIL_PID"
wait "$VIGIL_PID"
cat "$TMP/out"
# the child's verdict at its exit: its copy of the parent's slice went on;
# the parent's (it exec'd another program): still in nine
CHILD=$(grep -o '"what":"forked","pid":[0-9]*' "$TMP/f.json" | grep -o '[0-9]*$')
PARENT=$(grep -o '"what":"started","pid":[0-9]*' "$TMP/f.json" | grep -o '[0-9]*$')
[ -n "$CHILD" ] && [ -n "$PARENT" ] || fail "no fork or start in the JSON: $(cat "$TMP/f.json")"
grep -q "pid $CHILD: copied: live slices by state: fresh=0 nine=0 in_child=1" "$TMP/out" ||
	fail "the child's copied slice did not go on to in_child"
grep -q "pid $PARENT: copied: live slices by state: fresh=0 nine=1 in_child=0" "$TMP/out" ||
	fail "the parent's slice is not in nine"
echo ok
