# A run that goes on past a use after free reports each place that
# touches the freed block, as memcheck does (user/session/
# watchset_repeat.c): tests/targets/uafrepeat.c reads a freed 16-byte
# block from three call sites of main (one of them in a loop, three times
# over) and writes it from one: four places, six accesses, four reports
# of the one slice, each with its own stack. Once malloc hands the block
# out again, the same functions' accesses are the program's right: no
# report. Nor when glibc merges a freed block into its freed neighbour
# and hands the whole out at the neighbour's address
# (tests/targets/uafmerge.c): the new block's fill touches the first
# block's old bytes, which a debug register watched (before: a false
# violation), and after a real use after free of it, no repeat either.
. "$(dirname "$0")/lib.sh"

UAF=specs/lib/use_after_free.vigil
if ! has_debug_regs; then
	run_vigil run --on-violation=continue $UAF -- "$TARGETS/uafrepeat"
	expect_rc 0
	expect_blind
	expect_out "^uafrepeat: [0-9]+ again=1$"
	expect_no_out "VIOLATION"
	skip debug_regs "$WHY"
fi
run_vigil run --on-violation=continue --json "$TMP/v.jsonl" $UAF -- "$TARGETS/uafrepeat"
expect_rc 1
expect_out "^uafrepeat: [0-9]+ again=1$"	# the block came back
expect_out "ERROR SUMMARY: 4 errors: use_after_free.use_after_free=4"
expect_out "6 hits, .* 3 violations again from new places"
python3 - "$TMP/v.jsonl" <<'PY' || fail "not one report per place, all of the one block"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1])]
v = [o for o in v if o.get("type") == "verdict" and o["verdict"] == "violation"]
assert len(v) == 4, len(v)
assert len({json.dumps(o["slice"]) for o in v}) == 1, [o["slice"] for o in v]
top = [o["stack"][0].split("+")[0] for o in v]
assert top == ["peek", "peek", "poke", "peek"], top
callers = [o["stack"][1].split(" ")[0] for o in v]
assert all(c.startswith("main+") for c in callers) and len(set(callers)) == 4, callers
PY

run_vigil run --on-violation=continue $UAF -- "$TARGETS/uafmerge"
expect_rc 0
expect_out "^uafmerge: 0 merged=1$"
expect_no_out "VIOLATION"
run_vigil run --on-violation=continue $UAF -- "$TARGETS/uafmerge" --touch
expect_rc 1
expect_out "^uafmerge: -?[0-9]+ merged=1$"
[ "$(grep -c 'VIOLATION of use_after_free' "$TMP/out")" -eq 1 ] || fail "the merged block's fill was reported"

# the spec's own stop: the first access stops the target, nothing more
run_vigil run $UAF -- "$TARGETS/uafrepeat"
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
[ "$(grep -c 'VIOLATION of use_after_free' "$TMP/out")" -eq 1 ] || fail "a stopping run reported more than the first access"
kill -KILL "$pid" 2>/dev/null
echo ok
