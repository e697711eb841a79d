# valgrind's client requests under --leak-check, on
# tests/targets/creq_leaks.c, which uses memcheck.h's own macros: a leak
# check at each VALGRIND_DO_LEAK_CHECK, _ADDED_ (records that grew, with
# "+n"), _CHANGED_ (a record that lost its blocks: "0 (-72)") and _QUICK_
# (the summary alone), the program held meanwhile; COUNT_LEAKS and
# COUNT_LEAK_BLOCKS answered into the program's variables;
# RUNNING_ON_VALGRIND still 0; other requests not even sent up. memcheck
# is the oracle: on the same binary, its records at each check are
# vigil's (but for stdout's buffer, the C library's own, which vigil
# leaves out).
. "$(dirname "$0")/lib.sh"

T="$TARGETS/creq_leaks"

# natively, nobody answers the requests: the macros' zeros
"$T" >"$TMP/native" 2>&1 || fail "the target fails natively"
grep -q "lost 0 bytes in 0 blocks, possibly 0 in 0, reachable 0 in 0, suppressed 0 in 0; on valgrind: 0" \
	"$TMP/native" || fail "native run: $(cat "$TMP/native")"

run_vigil run -q --leak-check --show-leak-kinds=all --json "$TMP/out.jsonl" \
	specs/lib/leak.vigil -- "$T"
expect_rc 1
# the step markers and each check's header and records, in order
records() {
	sed -nE -e 's/^==[0-9]+== //' \
		-e '/^creq_leaks: step/p' \
		-e 's/ in loss record [0-9,]+ of [0-9,]+$//p' "$1" |
		grep -v '^4,096 bytes in 1 blocks are still reachable$'
}
records "$TMP/out" > "$TMP/vigil.rec"
cat > "$TMP/want.rec" <<'WANT'
creq_leaks: step 1
40 bytes in 1 blocks are still reachable
creq_leaks: step 2
40 (+40) bytes in 1 (+1) blocks are definitely lost
72 (+72) bytes in 1 (+1) blocks are still reachable
72 (+72) bytes in 1 (+1) blocks are still reachable
creq_leaks: step 3
creq_leaks: step 4
0 (-72) bytes in 0 (-1) blocks are still reachable
creq_leaks: step 5
40 bytes in 1 blocks are definitely lost
WANT
diff "$TMP/want.rec" "$TMP/vigil.rec" || fail "vigil's records at the checks are not the expected ones"
for w in VALGRIND_DO_LEAK_CHECK VALGRIND_DO_ADDED_LEAK_CHECK \
	 VALGRIND_DO_CHANGED_LEAK_CHECK VALGRIND_DO_QUICK_LEAK_CHECK; do
	expect_out "^vigil: leak check of pid [0-9]+ \(at $w\): "
done
[ "$(grep -c 'leak check of pid [0-9]* (at VALGRIND_DO_ADDED_LEAK_CHECK)' "$TMP/out")" = 2 ] ||
	fail "not two ADDED checks"
# the summaries say what changed in delta checks, not in the quick one
expect_out "^   definitely lost: 40 \(\+40\) bytes in 1 \(\+1\) blocks$"
expect_out "^   still reachable: 72 \(-72\) bytes in 1 \(-1\) blocks$"
# the record of step 2 has its allocation stack
grep -A3 "^40 (+40) bytes in 1 (+1) blocks are definitely lost" "$TMP/out" |
	grep -qE "by alloc_kept\+0x[0-9a-f]+ \([^)]*creq_leaks.c:[0-9]+\)" ||
	fail "the lost record lacks its stack"
# the counts went where the program asked; it does not think it runs on
# valgrind
expect_out "creq_leaks: lost 40 bytes in 1 blocks, possibly 0 in 0, reachable 72 in 1, suppressed 0 in 0; on valgrind: 0"
# only the 7 leak requests reached user space, not RUNNING_ON_VALGRIND
expect_out "before:VALGRIND_CLIENT_REQUEST=7( |$)"

python3 - "$TMP/out.jsonl" <<'PY' || fail "the JSON leak reports are not right"
import json, sys
lk = [json.loads(l) for l in open(sys.argv[1])]
lk = [r for r in lk if r.get("type") == "leaks"]
got = [(r.get("request"), [(x["kind"], x["blocks"], x["bytes"]) for x in r["records"]])
       for r in lk]
want = [("VALGRIND_DO_LEAK_CHECK", [("reachable", 1, 40)]),
        ("VALGRIND_DO_ADDED_LEAK_CHECK", [("definite", 1, 40), ("reachable", 1, 72),
                                          ("reachable", 1, 72)]),
        ("VALGRIND_DO_ADDED_LEAK_CHECK", []),
        ("VALGRIND_DO_CHANGED_LEAK_CHECK", [("reachable", 0, 0)]),
        ("VALGRIND_DO_QUICK_LEAK_CHECK", []),
        (None, [("definite", 1, 40)])]
assert got == want, got
gone = lk[3]["records"][0]
assert gone["previous"] == {"blocks": 1, "bytes": 72, "indirect_bytes": 0}, gone
assert any("alloc_pair" in f["text"] for f in gone["stack"]), gone
PY

# memcheck, on the same binary, prints the same records at each check
if command -v valgrind >/dev/null; then
	valgrind -q --leak-check=full --show-leak-kinds=all "$T" >"$TMP/mc" 2>&1
	records "$TMP/mc" > "$TMP/mc.rec"
	diff "$TMP/mc.rec" "$TMP/vigil.rec" || fail "memcheck's records differ from vigil's"
	grep -q "on valgrind: 1" "$TMP/mc" || fail "memcheck run: $(cat "$TMP/mc")"
else
	fail "valgrind is not installed (scripts/setup.sh installs it)"
fi

# without --leak-check no request is probed: no check, the macros' zeros
run_vigil run -q specs/lib/leak.vigil -- "$T"
expect_rc 1
expect_no_out "leak check of pid"
expect_out "lost 0 bytes in 0 blocks, possibly 0 in 0, reachable 0 in 0, suppressed 0 in 0; on valgrind: 0"
echo PASS
