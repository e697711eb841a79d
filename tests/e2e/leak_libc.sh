# The leak property's verdict at exit with --leak-check: on a program that
# leaks one block of its own (77 bytes, own_leak) and uses stdio, threads,
# the locale and the time zone (tests/targets/leak_libc.c), exactly that
# block ends nonaccepting ("definitely lost") and counts as an error; its
# still reachable block (48 bytes) and the blocks the C library allocated
# for itself end accepting, not errors, with their class in the JSON
# verdict. --errors-for-leak-kinds=all makes the reachable block an error
# (never the C library's). A program that aborts is checked at abort.
# Without --leak-check the verdict is unchanged: every live block.
. "$(dirname "$0")/lib.sh"

T="$TARGETS/leak_libc"

run_vigil run --leak-check --json "$TMP/out.jsonl" specs/lib/leak.vigil -- "$T"
expect_rc 1
expect_out "leak_libc: done"
expect_out "leak check of pid [0-9]+ \(at exit\): [0-9]+ blocks live"
expect_out "^The C library's own \(left out\): [0-9,]+ bytes in [1-9][0-9]* blocks$"
[ "$(grep -c 'ends nonaccepting' "$TMP/out")" = 1 ] ||
	fail "not exactly one block ends nonaccepting"
grep -A3 "ends nonaccepting in state allocated: definitely lost$" "$TMP/out" |
	grep -q "own_leak+" || fail "the nonaccepting block is not own_leak's"
expect_out "^vigil: leak: not errors \(the leak check's classes\): 1 blocks still reachable, [1-9][0-9]* of the C library's own$"
expect_out "^vigil: ERROR SUMMARY: 1 error: leak.allocated=1 \(at the end\)$"

python3 - "$TMP/out.jsonl" <<'PY' || fail "the JSON verdicts are not right"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
v = [o for o in objs if o["type"] == "verdict" and o["property"] == "leak"]
bad = [o for o in v if o["verdict"] != "accepting" or o.get("leak")]
errs = [o for o in v if o["verdict"] == "nonaccepting"]
assert len(errs) == 1, errs
assert errs[0]["leak"] == "definite" and errs[0]["vars"]["size"] == 77, errs
reach = [o for o in v if o.get("leak") == "reachable"]
assert len(reach) == 1 and reach[0]["verdict"] == "accepting", reach
assert reach[0]["vars"]["size"] == 48, reach
libc = [o for o in v if o.get("leak") == "libc"]
assert libc and all(o["verdict"] == "accepting" for o in libc), libc
lk = [o for o in objs if o["type"] == "leaks"]
assert len(lk) == 1 and lk[0]["libc_own"]["blocks"] == len(libc), lk
assert lk[0]["summary"]["definite"] == {"bytes": 77, "blocks": 1}, lk
s = [o for o in objs if o["type"] == "summary"]
assert s and s[0]["errors"] == 1, s
PY

# More distinct stacks than the kernel's stack map holds (8,192 blocks
# allocated and freed first, each under a stack of its own): the stacks
# it has no room for reach vigil in records of their own, so the C
# library's blocks are still told apart and own_leak's block keeps its
# stack. (Without them: 3 blocks still reachable, 1 of the C library's.)
VIGIL_DEBUG=1 run_vigil run --leak-check specs/lib/leak.vigil -- "$T" --many-stacks >/dev/null
grep -v '^libbpf: ' "$TMP/out" | grep -E 'vigil: (leak|debug: .*stack)'
expect_rc 1
grep -qE '^vigil: debug: [1-9][0-9]{3,} call stacks sent outside the stack map$' "$TMP/out" ||
	fail "--many-stacks: no stacks went outside the stack map"
expect_no_out "call stacks were lost"
[ "$(grep -c 'ends nonaccepting' "$TMP/out")" = 1 ] ||
	fail "--many-stacks: not exactly one block ends nonaccepting"
grep -qE '^   by own_leak\+' "$TMP/out" || fail "--many-stacks: own_leak's block has no stack"
expect_out "^vigil: leak: not errors \(the leak check's classes\): 1 blocks still reachable, [1-9][0-9]* of the C library's own$"

# still reachable blocks made errors too; the C library's never are
run_vigil run --leak-check --errors-for-leak-kinds=all specs/lib/leak.vigil -- "$T"
expect_rc 1
[ "$(grep -c 'ends nonaccepting' "$TMP/out")" = 2 ] ||
	fail "--errors-for-leak-kinds=all: not exactly two blocks nonaccepting"
expect_out "ends nonaccepting in state allocated: still reachable$"
expect_out "^vigil: ERROR SUMMARY: 2 errors: leak.allocated=2 \(at the end\)$"
run_vigil run --leak-check --errors-for-leak-kinds=lost specs/lib/leak.vigil -- "$T"
expect_rc 2
expect_out "--errors-for-leak-kinds: 'lost' is not a list"

# abort: no _exit comes; the check is made at abort, memory intact
run_vigil run --leak-check specs/lib/leak.vigil -- "$T" --abort
expect_out "leak check of pid [0-9]+ \(at abort\)"
expect_out "target killed by signal 6"
[ "$(grep -c 'ends nonaccepting' "$TMP/out")" = 1 ] ||
	fail "at abort: not exactly one block ends nonaccepting"
expect_out "^vigil: ERROR SUMMARY: 1 error: leak.allocated=1 \(at the end\)$"

# without --leak-check there is no scan: every live block is reported
run_vigil run specs/lib/leak.vigil -- "$T"
expect_rc 1
n=$(grep -c 'ends nonaccepting in state allocated$' "$TMP/out")
[ "$n" -ge 3 ] || fail "without --leak-check: $n blocks nonaccepting, expected every live block"
expect_no_out "not errors"
echo PASS
