# --leak-check on tests/targets/leak_classes.c, one block of each of
# memcheck's classes: at exit (held at _exit), the classes, byte and block
# counts, loss records with their allocation stacks, the LEAK SUMMARY, the
# JSON line; no block of the C library's own (pthread's DTVs, stdout's
# buffer); a suppression file in LSan's and in valgrind's form; the same
# check on demand, with SIGUSR1 and `vigil ctl PID leaks`, the program
# going on after each. memcheck is the oracle: on the same binary it gives
# the same class to each of the program's blocks.
. "$(dirname "$0")/lib.sh"

T="$TARGETS/leak_classes"
SRC=tests/targets/leak_classes.c
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }

run_vigil run --leak-check --show-leak-kinds=all --json "$TMP/out.jsonl" \
	specs/lib/leak.vigil -- "$T"
expect_rc 1
expect_out "leak_classes: ready"
expect_out "leak check of pid [0-9]+ \(at exit\): 7 blocks live; roots: 3 threads' stacks \(3 with registers\)"
expect_out "^24 bytes in 1 blocks are definitely lost in loss record 2 of 7$"
expect_out "^48 \(32 direct, 16 indirect\) bytes in 1 blocks are definitely lost in loss record 5 of 7$"
expect_out "^16 bytes in 1 blocks are indirectly lost in loss record 1 of 7$"
expect_out "^64 bytes in 1 blocks are possibly lost in loss record 7 of 7$"
expect_out "^48 bytes in 1 blocks are still reachable in loss record 4 of 7$"
expect_out "^40 bytes in 1 blocks are still reachable in loss record 3 of 7$"
expect_out "^56 bytes in 1 blocks are still reachable in loss record 6 of 7$"
expect_out "^   definitely lost: 56 bytes in 2 blocks$"
expect_out "^   indirectly lost: 16 bytes in 1 blocks$"
expect_out "^     possibly lost: 64 bytes in 1 blocks$"
expect_out "^   still reachable: 144 bytes in 3 blocks$"
expect_out "^        suppressed: 0 bytes in 0 blocks$"
# the leak property's verdict agrees with the classes: the lost blocks
# (definitely, indirectly, possibly) are its errors, each with its class;
# the 3 still reachable ones end accepting, not errors
[ "$(grep -c 'ends nonaccepting in state allocated: ' "$TMP/out")" = 4 ] ||
	fail "not exactly the 4 lost blocks end nonaccepting"
[ "$(grep -c 'ends nonaccepting in state allocated: definitely lost$' "$TMP/out")" = 2 ] ||
	fail "not 2 definitely lost verdicts"
expect_out "ends nonaccepting in state allocated: indirectly lost$"
expect_out "ends nonaccepting in state allocated: possibly lost$"
expect_out "^vigil: leak: not errors \(the leak check's classes\): 3 blocks still reachable, 0 of the C library's own$"
expect_out "^vigil: ERROR SUMMARY: 4 errors: leak.allocated=4 \(at the end\)$"
# each record's allocation stack: malloc, the function, main
grep -A3 "^24 bytes in 1 blocks are definitely lost" "$TMP/out" | tr '\n' '|' |
	grep -qE "at malloc\|   by lose\+0x[0-9a-f]+ \([^)]*leak_classes.c:$(line_of 'char \*volatile p = malloc(24)')\)\|   by main\+" ||
	fail "the 24-byte record lacks its stack (malloc, lose, main)"
grep -A2 "^40 bytes in 1 blocks are still reachable" "$TMP/out" | grep -qE "by reg_thread\+" ||
	fail "the block in a register is not attributed to reg_thread"
# the leak report comes before the target's end: it was held at _exit
[ "$(grep -n 'LEAK SUMMARY' "$TMP/out" | cut -d: -f1)" -lt \
  "$(grep -n 'target exited with status 0' "$TMP/out" | cut -d: -f1)" ] ||
	fail "the leak report is not before the exit"
# pthread_create's DTVs (calloc in _dl_allocate_tls: memcheck calls them
# possibly lost) and stdout's buffer are not the program's (a record's
# size, not the scan's count of bytes read: "5942272 bytes read")
expect_no_out "(^|[^0-9,])(272|1,024) bytes in |_dl_allocate_tls\+|_IO_file_doallocate\+"

python3 - "$TMP/out.jsonl" <<'PY' || fail "the JSON leak report is not right"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
lk = [r for r in recs if r.get("type") == "leaks"]
assert len(lk) == 1 and lk[0]["when"] == "at exit", lk
r = lk[0]
assert r["blocks"] == 7 and r["roots"]["threads_with_registers"] == 3, r
s = r["summary"]
assert s["definite"] == {"bytes": 56, "blocks": 2}, s
assert s["indirect"] == {"bytes": 16, "blocks": 1}, s
assert s["possible"] == {"bytes": 64, "blocks": 1}, s
assert s["reachable"] == {"bytes": 144, "blocks": 3}, s
by = {(x["kind"], x["bytes"]): x for x in r["records"]}
d = by[("definite", 32)]
assert d["indirect_bytes"] == 16 and d["record"] == 5 and d["of"] == 7, d
fn = [f["function"] for f in d["stack"]]
assert fn[:3] == ["malloc", "lose_struct", "main"], fn
assert d["stack"][1]["file"].endswith("leak_classes.c") and d["stack"][1]["line"] > 0, d
assert by[("reachable", 56)]["stack"][1]["function"] == "stack_thread"
assert by[("possible", 64)]["stack"][1]["function"] == "keep_interior"
v = {o["vars"]["size"]: o for o in recs
     if o.get("type") == "verdict" and o["property"] == "leak"}
want = {24: ("definite", "nonaccepting"), 32: ("definite", "nonaccepting"),
        16: ("indirect", "nonaccepting"), 64: ("possible", "nonaccepting"),
        48: ("reachable", "accepting"), 40: ("reachable", "accepting"),
        56: ("reachable", "accepting")}
assert {k: (o.get("leak"), o["verdict"]) for k, o in v.items()} == want, v
PY

# memcheck, the oracle, on the same binary: each of our blocks in the
# same class (by its distinct size); it also lists the two DTVs, which
# vigil leaves out as the C library's own
if command -v valgrind >/dev/null; then
	valgrind --leak-check=full --show-leak-kinds=all "$T" >"$TMP/mc" 2>&1 ||
		fail "valgrind failed: $(tail -3 "$TMP/mc")"
	for want in "24 definitely" "32 direct, 16 indirect) bytes in 1 blocks are definitely" \
		    "16 indirectly" "64 possibly" "48 still" "40 still" "56 still"; do
		set -- $want
		pat="$1 bytes in 1 blocks are $2"
		[ "$2" = direct, ] && pat="48 ($*"
		grep -qF "$pat" "$TMP/mc" || { cat "$TMP/mc"; fail "memcheck does not say '$pat'"; }
	done
else
	fail "valgrind is not installed (scripts/setup.sh installs it): no oracle"
fi

# suppressions: LSan's form (a function) and valgrind's (kinds, frames)
cat >"$TMP/leaks.supp" <<'EOF'
# the struct and what it points to
leak:lose_struct
{
   interior_pointer
   Memcheck:Leak
   match-leak-kinds: possible
   fun:malloc
   fun:keep_*
   ...
}
EOF
run_vigil run --leak-check --suppressions "$TMP/leaks.supp" specs/lib/leak.vigil -- "$T"
expect_rc 1
expect_out "^24 bytes in 1 blocks are definitely lost in loss record 1 of 4$"
expect_no_out "possibly lost in loss record|indirect\) bytes"
expect_out "^   definitely lost: 24 bytes in 1 blocks$"
expect_out "^   indirectly lost: 0 bytes in 0 blocks$"
expect_out "^     possibly lost: 0 bytes in 0 blocks$"
expect_out "^        suppressed: 112 bytes in 3 blocks$"
expect_out "^used suppression: +2 leak:lose_struct$"
expect_out "^used suppression: +1 interior_pointer$"
expect_out "Reachable blocks \(those to which a pointer was found\) are not shown"

# blocks the monitor lost track of (slices refused) are said to be so:
# what only they point to is counted lost
run_vigil run --leak-check --tier user --max-slices 3 --json "$TMP/few.jsonl" specs/lib/leak.vigil -- "$T"
expect_out "leak check of pid [0-9]+ \(at exit\): 3 blocks live"
expect_out "the leak property lost track of some blocks"
grep -q '"type":"leaks","pid":[0-9]*,"when":"at exit","complete":false' "$TMP/few.jsonl" ||
	fail "the JSON leak report does not say it is incomplete"
grep -q '"type":"leaks".*"complete":true' "$TMP/out.jsonl" || fail "the full run's leak report is not complete"

# a bad suppression file: exit 2, file:line and what was expected
printf '{\n  x\n  Memcheck:Leak\n  fn:main\n}\n' >"$TMP/bad.supp"
run_vigil run --leak-check --suppressions "$TMP/bad.supp" specs/lib/leak.vigil -- "$T"
expect_rc 2
expect_out "bad.supp:4: expected a frame"
run_vigil run --leak-check specs/lib/double_free.vigil -- "$T"
expect_rc 2
expect_out "--leak-check needs a property whose slices are heap blocks"

# on demand, while the program waits: SIGUSR1 (stderr and --json), then
# vigil ctl (text and --json); the program goes on and exits normally
"$VIGIL" run --stacks --json "$TMP/od.jsonl" specs/lib/leak.vigil -- "$T" --wait "$TMP/go" \
	>"$TMP/od.out" 2>&1 </dev/null &
VIGIL_PID=$!
for _ in $(seq 300); do
	grep -q "leak_classes: ready" "$TMP/od.out" && break
	sleep 0.05
done
pid=$(pgrep -P "$VIGIL_PID" -x leak_classes) || fail "no target"
LEFT_PIDS+=("$pid")
kill -USR1 "$VIGIL_PID"
for _ in $(seq 200); do
	grep -q "LEAK SUMMARY" "$TMP/od.out" && break
	sleep 0.05
done
grep -qE "leak check of pid $pid \(on demand\): 7 blocks live" "$TMP/od.out" ||
	{ cat "$TMP/od.out"; fail "SIGUSR1 gave no leak check"; }
grep -q "^   definitely lost: 56 bytes in 2 blocks$" "$TMP/od.out" || fail "SIGUSR1: wrong summary"
"$VIGIL" ctl "$pid" leaks all >"$TMP/ctl" || fail "vigil ctl leaks failed"
cat "$TMP/ctl"
grep -q "^64 bytes in 1 blocks are possibly lost in loss record 7 of 7$" "$TMP/ctl" || fail "ctl leaks: no possible record"
grep -q "^56 bytes in 1 blocks are still reachable in loss record 6 of 7$" "$TMP/ctl" || fail "ctl leaks all: no reachable record"
"$VIGIL" ctl "$pid" leaks --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["ok"], r
s = r["data"]["summary"]
assert s["definite"]["bytes"] == 56 and s["reachable"]["blocks"] == 3, s' ||
	fail "ctl leaks --json"
"$VIGIL" ctl "$pid" leaks lost 2>"$TMP/ctlerr" && fail "ctl leaks with a bad kind succeeded"
grep -q "usage: leaks" "$TMP/ctlerr" || fail "ctl leaks: no usage for a bad kind"
st=$(proc_state "$pid")
[ "$st" = S ] || [ "$st" = R ] || fail "the program was left in state '$st' after the checks"
touch "$TMP/go"
wait "$VIGIL_PID"
rc=$?
cat "$TMP/od.out"
# the blocks still live at exit are the leak property's errors (no
# --leak-check here to class them): status 1
[ "$rc" = 1 ] || fail "vigil exited $rc"
grep -q "target exited with status 0" "$TMP/od.out" || fail "the program did not exit normally"
[ "$(grep -c '"type":"leaks"' "$TMP/od.jsonl")" = 1 ] || fail "SIGUSR1's check is not in --json"

# in gdb, `vigil leaks`: gdb holds the threads, so their registers come
# from gdb (the 40-byte block is only in reg_thread's r12)
rm -f "$TMP/go"
start_live run --interactive --stacks specs/lib/leak.vigil -- "$T" --wait "$TMP/go"
line=$(line_of 'for the checks on demand while it waits')
live_gdb "-ex 'break leak_classes.c:$line' -ex continue -ex 'vigil leaks all' -ex 'shell touch $TMP/go' -ex continue"
grep -qE "the registers of 3 threads from gdb" "$TMP/gdb" || fail "gdb's vigil leaks did not send the registers"
grep -q "^40 bytes in 1 blocks are still reachable" "$TMP/gdb" || fail "gdb's vigil leaks: the block in r12 is not reachable"
grep -q "^48 (32 direct, 16 indirect) bytes in 1 blocks are definitely lost" "$TMP/gdb" || fail "gdb's vigil leaks: no definite record"
grep -q "^     possibly lost: 64 bytes in 1 blocks$" "$TMP/gdb" || fail "gdb's vigil leaks: wrong summary"
wait_vigil
[ "$RC" = 1 ] || fail "vigil exited $RC after the gdb session (its blocks live at exit are errors)"
echo PASS
