# vigil watch --exe: 10 instances of a program run before vigil starts
# (attached as they run), 10 more after (held at their exec until their
# probes are in); instance 14 closes a handle twice. Its violation is
# reported for instance 14 only (its pid, its slice, its process line),
# it is left stopped for gdb with its probes removed, the other 19 run on
# and exit 0, each exit is reported and frees its state, and the counts
# say 20 processes, 1 violation. At vigil's end nothing is left: no uprobe
# on the program, no process stopped but instance 14 (which it asked for).
# Then --max-procs 3: of 5 instances started under watch, 2 are refused,
# named, counted, and run on unmonitored.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch_helpers.bash"

# bad input: a clear message and exit status 2
run_vigil watch "$SPEC"
expect_rc 2
expect_out "no --exe PATH"
run_vigil watch "$SPEC" --exe "$TMP/none"
expect_rc 2
expect_out "--exe $TMP/none: no such file"
run_vigil watch "$SPEC" --exe "$EXE" --max-procs 0
expect_rc 2
expect_out "--max-procs: '0' is not a count"

for i in $(seq 10); do start_instance; done
for p in "${PIDS[@]}"; do wait_exec "$p" "$EXE"; done
start_watch "$SPEC" --exe "$EXE" --json "$TMP/v.json"
grep -q "10 processes running it" "$TMP/out" || { cat "$TMP/out"; fail "vigil did not find the 10 running instances"; }
for i in $(seq 11 20); do
	if [ "$i" = 14 ]; then start_instance --bug; else start_instance; fi
done
BUG=${PIDS[13]}
wait_for "$TMP/out" "VIOLATION of close_once" 30
wait_for "$TMP/out" "pid $BUG is left stopped" 10
# the others run on a while under the probes, then end
end_instances "$BUG"
[ "$(proc_state "$BUG")" = T ] || fail "instance 14 (pid $BUG) is not stopped: $(proc_state "$BUG")"
wait_for "$TMP/out" "exited" 10
stop_watch "$TMP/v.json" 19
[ "$RC" = 1 ] || fail "vigil watch exited $RC, not 1 (a violation)"

# one violation, instance 14's: its pid on the event and the process line
[ "$(grep -c 'VIOLATION of close_once' "$TMP/out")" = 1 ] || fail "not exactly one violation"
grep -A8 'VIOLATION of close_once' "$TMP/out" | grep -qE "^  process pid $BUG\b" ||
	fail "the violation does not name pid $BUG"
grep -A8 'VIOLATION of close_once' "$TMP/out" | grep -qE "^  slice  h=0x[0-9a-f]+" ||
	fail "the violation names no slice"
python3 - "$TMP/v.json" "$BUG" "${PIDS[@]}" <<'PY' || fail "the JSON lines disagree"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
bug, pids = int(sys.argv[2]), [int(p) for p in sys.argv[3:]]
viol = [l for l in lines if l.get("type") == "verdict" and l.get("verdict") == "violation"]
assert len(viol) == 1, viol
assert viol[0]["pid"] == bug and viol[0]["ns_pid"] == bug, viol[0]
assert viol[0]["slice"]["h"].startswith("0x"), viol[0]
procs = {}
for l in lines:
    if l.get("type") == "process":
        procs.setdefault(l["pid"], []).append(l["what"])
for i, p in enumerate(pids):
    first = "attached" if i < 10 else "started"
    assert procs.get(p, [None])[0] == first, (i + 1, p, procs.get(p))
    assert procs[p][-1] == ("left" if p == bug else "exited"), (i + 1, p, procs[p])
# every process's verdicts at its exit say whose
at_exit = [l for l in lines if l.get("type") == "verdict" and l.get("at") == "exit"]
# (each instance ends with one handle open: a live slice at its exit)
assert {l["pid"] for l in at_exit} >= set(pids) - {bug}, at_exit[:3]
assert all(l.get("pid") in pids and l.get("ns_pid") == l.get("pid") for l in at_exit), at_exit[:3]
w = [l for l in lines if l.get("type") == "watch"][0]
assert w["processes"] == 20 and w["violations"] == 1 and w["exited"] == 19 \
    and w["refused"] == 0 and w["stopped"] == 1, w
PY
grep -qE "watch: 20 processes monitored .* 1 violations, 1 left stopped" "$TMP/out" ||
	fail "the counts do not say 20 processes and 1 violation"
[ "$(uprobes_on "$EXE")" = 0 ] || fail "uprobes left on $EXE after vigil ended"
kill -CONT "$BUG"
kill -KILL "$BUG"

# --max-procs: 3 at once; the 4th and 5th are refused and run on
rm -f "$TMP/stop"
PIDS=()
start_watch "$SPEC" --exe "$EXE" --max-procs 3 --json "$TMP/m.json"
for i in $(seq 5); do start_instance; done
wait_for "$TMP/out" "refused" 20
for _ in $(seq 100); do
	[ "$(grep -c '"what":"refused"' "$TMP/m.json")" -ge 2 ] && break
	sleep 0.1
done
end_instances ""
stop_watch "$TMP/m.json" 0
[ "$RC" = 0 ] || fail "vigil watch --max-procs exited $RC"
[ "$(grep -c 'refused: --max-procs 3 reached' "$TMP/out")" = 2 ] || fail "not 2 processes named as refused"
grep -qE "watch: 3 processes monitored \(at most 3 at once, --max-procs 3\), 2 refused" "$TMP/out" ||
	fail "the counts do not say 3 monitored, 2 refused"
echo "PASS"
