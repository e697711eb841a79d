# vigil ctl PID load / unload from a shell while the program runs, in the
# user tier (--tier=user): a loaded property sees the queues made after the
# load and catches their overflows; -D passes a spec parameter; a
# checkpoint's monitor state has the loaded property's section; unloaded,
# its probes are gone from `probes` and `status`; so are those of the
# session's own property, unloaded too. And every command of the
# control channel answers --json.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_load_helpers.bash"

load_specs

# the program outlives the test, which detaches and kills it: 18 s of
# queues (--loops 20) were 14 s of a sanitized build's test under load
"$VIGIL" run --tier=user --on-violation=continue "$TMP/pops.vigil" -- "$TARGETS/queue3" --pause 300 --loops 1000 \
	>"$TMP/vigil.out" 2>"$TMP/vigil.err" </dev/null &
VIGIL_PID=$!
wait_ctl queue3
probes() { "$VIGIL" ctl "$pid" probes --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["probes"]))'; }
n0=$(probes)
# pops's probe, and vigil's own at the loader's rendezvous (the names of
# libraries' globals, symval/symval.c), which gdb's extension must know
[ "$n0" = 2 ] || fail "the session's own probes: $n0, not 2"
"$VIGIL" ctl "$pid" probes | grep -q '/ld-linux-x86-64\.so\.2+0x' ||
	fail "no probe at the loader's rendezvous: $("$VIGIL" ctl "$pid" probes)"
links() { "$VIGIL" ctl "$pid" status --json | python3 -c 'import json,sys; d = json.load(sys.stdin)["data"]; print(d["probes"], d["probes_attached"])'; }
l0=$(links)

"$VIGIL" ctl "$pid" load "$TMP/qb.vigil" --json >"$TMP/load.json" || { cat "$TMP/load.json" "$TMP/vigil.err"; fail "vigil ctl load"; }
python3 - "$TMP/load.json" <<'PY' || fail "load --json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["v"] == 1 and r["ok"] is True, r
assert r["data"]["properties"] == [{"name": "queue_bounds", "tier": "user"}], r
PY
"$VIGIL" ctl "$pid" load "$TMP/calls.vigil" -D fn=queue_pop >"$TMP/load2" || fail "vigil ctl load -D"
grep -q '^loaded calls (user tier)' "$TMP/load2" || fail "load -D: $(cat "$TMP/load2")"
n1=$(probes)
[ "$n1" -gt "$n0" ] || fail "no probes added by the loads ($n0 -> $n1)"
[ "$(links)" != "$l0" ] || fail "status does not count the loaded properties' probes"
wait_state queue_bounds overflow 1 || fail "no queue overflowed after the load"

"$VIGIL" ctl "$pid" status --json >"$TMP/status.json" || fail "vigil ctl status --json"
python3 - "$TMP/status.json" <<'PY' || fail "status --json with the loaded properties"
import json, sys
d = json.load(open(sys.argv[1]))["data"]
props = {p["name"]: p for p in d["properties"]}
assert set(props) == {"pops", "queue_bounds", "calls"}, props
qb = props["queue_bounds"]
assert qb["tier"] == "user" and qb["loaded"].endswith("/qb.vigil"), qb
assert qb["states"]["overflow"] >= 1, qb
assert "loaded" not in props["pops"], props["pops"]
# calls -D fn=queue_pop: its event is queue_pop, not queue_push
names = [e["name"] for e in d["per_event"]]
assert names.count("queue_pop") == 3 and names.count("queue_push") == 1 and names[-1] == "queue_pop", names
PY
"$VIGIL" ctl "$pid" slices queue_bounds overflow >"$TMP/slices" || fail "vigil ctl slices of a loaded property"
grep -qE '^q=0x[0-9a-f]+ +overflow' "$TMP/slices" || { cat "$TMP/slices"; fail "no overflowed queue in the loaded property"; }

"$VIGIL" ctl "$pid" checkpoint --json >"$TMP/ck" || { cat "$TMP/ck" "$TMP/vigil.err"; fail "vigil ctl checkpoint"; }
img=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data"]["checkpoints"][-1]["path"])' "$TMP/ck")
LEFT_FILES+=("$img")
st="$img/monitor.state"
[ -f "$st" ] || fail "no monitor state at $st"
cat "$st"
grep -qx "loaded $TMP/qb.vigil" "$st" || fail "the monitor state does not name the loaded spec"
grep -qx "loaded $TMP/calls.vigil" "$st" && grep -qx 'define fn=queue_pop' "$st" || fail "the monitor state lacks the -D of a load"
grep -qx 'properties queue_bounds' "$st" || fail "the monitor state does not name the loaded property"
sed -n "\|^loaded $TMP/qb.vigil|,\$p" "$st" | grep -qE '^slice queue_bounds [0-9]+ overflow ' ||
	fail "the loaded property's slices are not in its section"
sed -n "1,\|^loaded |p" "$st" | grep -q '^slice queue_bounds' && fail "a loaded property's slice before its section"

"$VIGIL" ctl "$pid" unload queue_bounds --json >"$TMP/unload.json" || fail "vigil ctl unload"
grep -q '"properties":\["queue_bounds"\]' "$TMP/unload.json" || fail "unload --json: $(cat "$TMP/unload.json")"
"$VIGIL" ctl "$pid" unload calls >/dev/null || fail "vigil ctl unload calls"
[ "$(probes)" = "$n0" ] || fail "the unloaded properties' probes are still listed"
"$VIGIL" ctl "$pid" status --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
assert [p["name"] for p in d["properties"]] == ["pops"], d["properties"]
assert d["probes"] == d["probes_attached"], d' || fail "status still shows the unloaded properties"
[ "$(links)" = "$l0" ] || fail "status counts other probes than before the loads: $(links), not $l0"
# a property given at the start unloads too (live_unload_start.sh and
# live_unload_restore.sh test it further): its uprobes are detached (the
# process's tracepoints stay), the session then has no property
"$VIGIL" ctl "$pid" unload pops >"$TMP/out" || fail "unloading a start property: $(cat "$TMP/out")"
grep -q '^unloaded pops (user tier, given at the start)' "$TMP/out" || fail "unloading a start property: $(cat "$TMP/out")"
"$VIGIL" ctl "$pid" status --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
assert d["properties"] == [] and d["probes"] == d["probes_attached"] < int(sys.argv[1]), d' "${l0%% *}" ||
	fail "status still shows the unloaded start property or its probes"
"$VIGIL" ctl "$pid" unload pops 2>"$TMP/err"
RC=$?
expect_rc 1
grep -q 'no property pops' "$TMP/err" || fail "a second unload: $(cat "$TMP/err")"
"$VIGIL" ctl "$pid" load 2>"$TMP/err"
RC=$?
expect_rc 1
grep -q 'usage: load SPEC' "$TMP/err" || fail "load without a spec"
"$VIGIL" ctl "$pid" load "$TMP/qb.vigil" -D novalue 2>"$TMP/err"
RC=$?
expect_rc 2
# watchpoints are planned at the start of a run: refused, said so
"$VIGIL" ctl "$pid" load specs/lib/use_after_free.vigil 2>"$TMP/err"
RC=$?
expect_rc 1
grep -q 'use_after_free.vigil: a watch event (.*) cannot be loaded into a running session' "$TMP/err" ||
	fail "a spec with watch events: $(cat "$TMP/err")"

# every command answers --json (a refusal too: ok false and the error;
# restore 99, there is no such checkpoint: live_load_restore.sh restores)
for c in "status" "slices pops" "break pops seen" "checkpoints" "restore 99" "set pops q=0x1 state=seen" \
	 "graph" "graph pops" "load $TMP/nosuch.vigil" "unload nosuch" "detach"; do
	# shellcheck disable=SC2086
	"$VIGIL" ctl "$pid" $c --json >"$TMP/j"
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["v"] == 1 and isinstance(r["ok"], bool), r
assert r["ok"] or r["error"], r' "$TMP/j" || fail "ctl $c --json: $(cat "$TMP/j")"
done
wait "$VIGIL_PID"
RC=$?
expect_rc 1	# the loaded property's violations count
cat "$TMP/vigil.err"
grep -q '^vigil: loaded queue_bounds from .*qb.vigil: user tier' "$TMP/vigil.err" || fail "vigil's stderr does not say what was loaded"
grep -q '^vigil: VIOLATION of queue_bounds' "$TMP/vigil.err" || fail "the loaded property's violation is not reported"
echo PASS
