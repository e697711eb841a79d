# A spec's `fast` line gives functions to the in-process tier, as --fast
# does on the command line:
#  - lint shows them in-process, and who asked ("the spec's fast");
#  - a run patches them: the target's first bytes of tick are a jmp while
#    it runs, and every call is counted as with uprobes;
#  - --no-fast and VIGIL_FAST=off take them away too;
#  - a `fast` line with no function is an error at its file:line:col.
. "$(dirname "$0")/lib.sh"

unset VIGIL_FAST

# specs/ticks.vigil, its function marked fast by name and by pattern
for mark in 'fast tick' 'fast "ti*", nothing_like_it'; do
	{ echo "$mark"; cat specs/ticks.vigil; } >"$TMP/ticks.vigil"
	"$VIGIL" lint "$TMP/ticks.vigil" --binary "$TARGETS/ticker" >"$TMP/lint" 2>&1 ||
		fail "lint failed: $(cat "$TMP/lint")"
	grep -q "in-process before tick: .*at its entry (the spec's fast)" "$TMP/lint" ||
		fail "lint ($mark): tick not in-process: $(cat "$TMP/lint")"
	grep -q 'uprobe before tick' "$TMP/lint" && fail "lint ($mark): tick keeps a uprobe"
done
# without the line, tick is a uprobe (it is no hot library function)
"$VIGIL" lint specs/ticks.vigil --binary "$TARGETS/ticker" >"$TMP/lint" 2>&1
grep -q 'uprobe before tick' "$TMP/lint" || fail "lint: tick in-process with no fast line: $(cat "$TMP/lint")"
"$VIGIL" lint "$TMP/ticks.vigil" --binary "$TARGETS/ticker" --no-fast >"$TMP/lint" 2>&1
grep -q 'in-process' "$TMP/lint" && fail "lint: the spec's fast taken with --no-fast"
VIGIL_FAST=off "$VIGIL" lint "$TMP/ticks.vigil" --binary "$TARGETS/ticker" >"$TMP/lint" 2>&1
grep -q 'in-process' "$TMP/lint" && fail "lint: the spec's fast taken with VIGIL_FAST=off"

# a run: tick is patched (a jmp where the file has its first byte) and
# every call counted
for how in spec nofast; do
	opt=; [ $how = nofast ] && opt=--no-fast
	"$VIGIL" run $opt --json "$TMP/$how.json" "$TMP/ticks.vigil" -- \
		"$TARGETS/ticker" 3000 >"$TMP/$how.out" 2>&1 || fail "run ($how): $(cat "$TMP/$how.out")"
	python3 - "$TMP/$how.json" >"$TMP/$how.hits" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "stats":
        print({p["name"]: p["hits"] for p in r["probes"]}.get("tick"))
EOF
done
grep -q 'in-process tier: 1 function patched' "$TMP/spec.out" ||
	fail "run: tick not patched: $(cat "$TMP/spec.out")"
grep -q 'in-process tier' "$TMP/nofast.out" && fail "run --no-fast: patched"
[ "$(cat "$TMP/spec.hits")" = 3000 ] || fail "run: $(cat "$TMP/spec.hits") ticks in-process, 3000 made"
[ "$(cat "$TMP/nofast.hits")" = 3000 ] || fail "run --no-fast: $(cat "$TMP/nofast.hits") ticks, 3000 made"

# the error
printf 'fast 3\n' >"$TMP/bad.vigil"
run_vigil lint "$TMP/bad.vigil"
expect_rc 2
expect_out "bad.vigil:1:6: error: unexpected number 3, expected a function name, or a pattern in quotes"
echo "fast_spec: ok"
