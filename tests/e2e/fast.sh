# The in-process tier (--fast): hot functions patched in the target, their
# events recorded and their kernel-tier properties stepped by the agent
# vigil puts there, with no uprobe.
#  - lint says which calls it takes and why not the others;
#  - a double free is stopped before free runs (glibc would abort on it),
#    the same verdict and the same counts as with uprobes;
#  - no uprobe is attached on a patched function;
#  - a program function (--fast tick) under vigil attach: patched while
#    it runs, the patch gone after a detach (the bytes in memory are the
#    file's again), the target runs on;
#  - SIGKILL of vigil at random points: the target runs on and finishes
#    right (the agent sees vigil gone and records nothing more).
. "$(dirname "$0")/lib.sh"
unset VIGIL_FAST	# the default list (hot): this test sets its own

# --- lint ---------------------------------------------------------------
"$VIGIL" lint specs/lib/double_free.vigil --binary "$TARGETS/allocs" \
	--fast hot >"$TMP/lint" 2>&1 || fail "lint failed: $(cat "$TMP/lint")"
grep -q 'in-process before free: .*libc.so.6' "$TMP/lint" || fail "lint: free not in-process: $(cat "$TMP/lint")"
grep -q 'in-process after malloc: .*at its return' "$TMP/lint" || fail "lint: malloc's return not in-process"
grep -q 'uprobe before free' "$TMP/lint" && fail "lint: free keeps a uprobe too"
# a property that arms watchpoints: its calls in-process too (the agent
# holds the thread while vigil arms), its hits by the debug registers
"$VIGIL" lint specs/lib/use_after_free.vigil --binary "$TARGETS/allocs" \
	--fast hot >"$TMP/lint" 2>&1
grep -q 'in-process before free: .*libc.so.6' "$TMP/lint" || fail "lint: use_after_free's free not in-process: $(cat "$TMP/lint")"
grep -q 'in-process after malloc: .*at its return' "$TMP/lint" || fail "lint: use_after_free's malloc not in-process: $(cat "$TMP/lint")"
# the default is --fast hot; --no-fast and VIGIL_FAST=off take it away
"$VIGIL" lint specs/lib/double_free.vigil --binary "$TARGETS/allocs" >"$TMP/lint" 2>&1
grep -q 'in-process before free' "$TMP/lint" || fail "lint: free not in-process by default"
"$VIGIL" lint specs/lib/double_free.vigil --binary "$TARGETS/allocs" --no-fast >"$TMP/lint" 2>&1
grep -q 'in-process' "$TMP/lint" && fail "lint: in-process with --no-fast"
VIGIL_FAST=off "$VIGIL" lint specs/lib/double_free.vigil --binary "$TARGETS/allocs" >"$TMP/lint" 2>&1
grep -q 'in-process' "$TMP/lint" && fail "lint: in-process with VIGIL_FAST=off"
VIGIL_FAST=tick "$VIGIL" lint specs/ticks.vigil --binary "$TARGETS/ticker" >"$TMP/lint" 2>&1
grep -q 'in-process before tick' "$TMP/lint" || fail "lint: VIGIL_FAST=tick not taken"

# --- a double free, stopped before free runs ----------------------------
run_vigil run --fast hot --json "$TMP/fast.json" specs/lib/double_free.vigil -- "$TARGETS/allocs" --double-free
expect_rc 1
expect_out 'in-process tier: [0-9]+ functions patched'
expect_out 'VIOLATION of double_free'
expect_out 'state  freed -> double_free'
expect_no_out 'double free detected|Aborted|killed by signal'
pid=$(stopped_pid)
[ -n "$pid" ] || fail "no stopped target named"
LEFT_PIDS+=("$pid")
[ "$(proc_state "$pid")" = T ] || fail "target not stopped"
# the thread is stopped before free's first instruction ran: free's own
# first bytes are the patch (a jmp), the thread is in the agent
kill -KILL "$pid"

# --- one state per slice: malloc in-process, release() by uprobe --------
"$VIGIL" lint tests/specs/release_once.vigil --binary "$TARGETS/allocs" \
	--fast hot >"$TMP/lint" 2>&1
grep -q 'in-process after malloc' "$TMP/lint" || fail "lint: malloc not in-process"
grep -q 'uprobe before release' "$TMP/lint" || fail "lint: release not by uprobe"
run_vigil run --fast hot tests/specs/release_once.vigil -- "$TARGETS/allocs" --double-free
expect_rc 1
expect_out 'state  gone -> twice'
expect_out 'after malloc\(\) returned 0x[0-9a-f]+  init -> live'
pid=$(stopped_pid)
[ -n "$pid" ] && kill -KILL "$pid"

# --- the same verdicts and counts as with uprobes -----------------------
for how in fast nofast; do
	opt=--fast; arg=hot
	[ $how = nofast ] && { opt=--no-fast; arg=; }
	run_vigil run $opt $arg --disable-aslr --json "$TMP/$how.json" \
		specs/lib/double_free.vigil -- "$TARGETS/allocs"
	expect_rc 0
	python3 - "$TMP/$how.json" >"$TMP/$how.sum" <<'PY' || fail "$how: no stats"
import collections, json, sys
verdicts = collections.Counter()
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "verdict":
        verdicts[(o["property"], o["state"], o["verdict"])] += 1
    elif o["type"] == "stats":
        print("events", o["events"], "lost", o["lost"], "violations", o["violations"])
        for p in o["probes"]:
            print("probe", p["kind"], p["name"], "hits", p["hits"], "lost", p["lost"])
for v, n in sorted(verdicts.items()):
    print("verdicts", *v, n)
PY
done
cat "$TMP/fast.sum"
diff "$TMP/nofast.sum" "$TMP/fast.sum" || fail "in-process and uprobe runs disagree"
grep -q 'events [1-9]' "$TMP/fast.sum" || fail "no event counted"

# --- vigil attach --fast tick, then detach ------------------------------
"$TARGETS/ticker" >"$TMP/ticker.out" &
tpid=$!
LEFT_PIDS+=("$tpid")
sleep 0.3
tick=$(nm "$TARGETS/ticker" | awk '$3 == "tick" { print $1 }')
base=$(awk -v p="$TARGETS/ticker" '$6 ~ /ticker$/ && $3 == "00000000" { print $1; exit }' /proc/$tpid/maps | cut -d- -f1)
bytes() {	# the first 8 bytes of tick in the running process
	python3 - "$tpid" "$base" "$tick" <<'PY'
import sys
pid, base, off = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
with open("/proc/%s/mem" % pid, "rb") as m:
    m.seek(base + off)
    print(m.read(8).hex())
PY
}
orig=$(bytes)
"$VIGIL" attach --fast tick specs/ticks.vigil -p "$tpid" >"$TMP/out" 2>&1 &
vpid=$!
for _ in $(seq 100); do grep -q 'in-process tier' "$TMP/out" && break; sleep 0.1; done
sleep 0.5
cat "$TMP/out"
grep -q 'in-process tier: 1 function patched' "$TMP/out" || fail "tick not patched"
[ "$(bytes | cut -c1-2)" = e9 ] || fail "tick does not start with the patch's jmp: $(bytes)"
[ "$(uprobes_on "$TARGETS/ticker")" -eq 0 ] || fail "a uprobe on a patched function"
kill -INT "$vpid"
wait "$vpid"
rc=$?
cat "$TMP/out"
[ "$rc" -eq 0 ] || fail "vigil exited $rc after SIGINT"
grep -qE 'before:tick=[1-9][0-9]*' "$TMP/out" || fail "no tick counted in-process"
[ "$(bytes)" = "$orig" ] || fail "tick's bytes not restored after the detach: $(bytes), was $orig"
kill -0 "$tpid" || fail "target died"
kill -INT "$tpid"
wait "$tpid"
grep -q 'ticker: calls tick=[0-9]* (interrupted)' "$TMP/ticker.out" || fail "target did not finish cleanly"

# --- SIGKILL of vigil at random points ----------------------------------
for i in $(seq 12); do
	"$VIGIL" run --fast tick specs/ticks.vigil -- "$TARGETS/ticker" 400000 >"$TMP/k.out" 2>&1 &
	vpid=$!
	sleep "0.$((RANDOM % 9 + 1))"
	kill -KILL "$vpid" 2>/dev/null
	wait "$vpid" 2>/dev/null
	# the target (vigil's child) runs on to its end, unharmed
	for _ in $(seq 200); do pgrep -f "$TARGETS/ticker 400000" >/dev/null || break; sleep 0.1; done
	pgrep -f "$TARGETS/ticker 400000" >/dev/null && fail "kill $i: the target did not finish"
	if grep -q 'ticker: calls' "$TMP/k.out"; then
		grep -q 'ticker: calls tick=400000$' "$TMP/k.out" || fail "kill $i: the target went wrong: $(cat "$TMP/k.out")"
	fi
done
echo "fast: ok"
