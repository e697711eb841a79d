# --leak-check on a program that kills itself (tests/targets/leak_abort.c
# loses a 40-byte block, keeps a 72-byte one, then dies): held at abort(),
# at a failed assert, at raise(SIGTERM), the check runs with the program's
# memory whole, then the signal kills it as it would have; a raise it
# handles is no end (the check runs at exit); a fault is said to leave no
# check, and in a live gdb session `vigil leaks` at the fault checks. memcheck, on the same binary, gives the same definitely lost
# record for abort and assert.
. "$(dirname "$0")/lib.sh"

T="$TARGETS/leak_abort"
SRC=tests/targets/leak_abort.c
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
LOSE=$(line_of 'char \*volatile p = malloc(40)')

# one run: how the check is named, the signal that ends the program
check_death() {	# MODE WHEN SIGNAL
	run_vigil run --leak-check --json "$TMP/$1.jsonl" specs/lib/leak.vigil -- "$T" "$1"
	expect_rc 1
	expect_out "leak check of pid [0-9]+ \($2\): 2 blocks live"
	expect_out "^40 bytes in 1 blocks are definitely lost in loss record 1 of 2$"
	grep -A3 "^40 bytes in 1 blocks are definitely lost" "$TMP/out" | tr '\n' '|' |
		grep -qE "at malloc\|   by lose\+0x[0-9a-f]+ \([^)]*leak_abort.c:$LOSE\)\|   by main\+" ||
		fail "$1: the 40-byte record lacks its stack (malloc, lose, main)"
	expect_out "^   definitely lost: 40 bytes in 1 blocks$"
	expect_out "^   still reachable: 72 bytes in 1 blocks$"
	expect_out "vigil: target killed by signal $3 "
	expect_no_out "did not run"
	[ "$(grep -c 'LEAK SUMMARY' "$TMP/out")" = 1 ] || fail "$1: not one leak report"
	[ "$(grep -n 'LEAK SUMMARY' "$TMP/out" | cut -d: -f1)" -lt \
	  "$(grep -n 'target killed by signal' "$TMP/out" | cut -d: -f1)" ] ||
		fail "$1: the leak report is not before the end"
	python3 - "$TMP/$1.jsonl" "$2" <<'PY' || fail "$1: the JSON leak report is not right"
import json, sys
lk = [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "leaks"]
assert len(lk) == 1 and lk[0]["when"] == sys.argv[2], lk
assert lk[0]["summary"]["definite"] == {"bytes": 40, "blocks": 1}, lk[0]["summary"]
PY
}

check_death abort "at abort" 6
check_death assert "at a failed assert" 6
expect_out "Assertion .keep == NULL. failed"
check_death raise "at SIGTERM" 15

# the target's own end is unchanged: the same status as without vigil
"$T" abort >/dev/null 2>&1
[ $? = 134 ] || fail "leak_abort abort does not die of SIGABRT natively"

# a raise the program handles does not end it: no check there, one at exit
run_vigil run --leak-check specs/lib/leak.vigil -- "$T" caught
expect_rc 1
expect_out "leak check of pid [0-9]+ \(at exit\): 2 blocks live"
expect_out "^   definitely lost: 40 bytes in 1 blocks$"
[ "$(grep -c 'LEAK SUMMARY' "$TMP/out")" = 1 ] || fail "caught: not one leak report"
expect_out "target exited with status 0"

# a fault: no point to hold it at, and the report says so
run_vigil run --leak-check specs/lib/leak.vigil -- "$T" segv
expect_rc 1
expect_out "the leak check did not run: the program died of SIGSEGV"
expect_no_out "LEAK SUMMARY"
expect_out "vigil: target killed by signal 11 "

# a fault in a live gdb session: gdb stops it at the fault, before the
# signal is taken, and `vigil leaks` there runs the check
start_live run --interactive --stacks specs/lib/leak.vigil -- "$T" segv
live_gdb "-ex continue -ex 'vigil leaks' -ex continue"
grep -q "Program received signal SIGSEGV" "$TMP/gdb" || fail "gdb did not stop at the fault"
grep -qE "leak check of pid $TARGET_PID \(on demand\): 2 blocks live" "$TMP/gdb" ||
	fail "vigil leaks at the fault gave no check"
grep -q "^   definitely lost: 40 bytes in 1 blocks$" "$TMP/gdb" || fail "vigil leaks at the fault: wrong summary"
wait_vigil
grep -q "target killed by signal 11 " "$TMP/vigil.err" || fail "the program did not die of its fault after gdb"

# memcheck, the oracle: the same record, in lose at the same line
command -v valgrind >/dev/null || fail "valgrind is not installed (scripts/setup.sh installs it): no oracle"
for m in abort assert; do
	valgrind --leak-check=full "$T" "$m" >"$TMP/mc" 2>&1
	grep -A2 "40 bytes in 1 blocks are definitely lost in loss record" "$TMP/mc" |
		grep -q "by 0x[0-9A-F]*: lose (leak_abort.c:$LOSE)" ||
		{ cat "$TMP/mc"; fail "memcheck does not give the 40-byte block to lose ($m)"; }
	grep -q "definitely lost: 40 bytes in 1 blocks" "$TMP/mc" ||
		{ cat "$TMP/mc"; fail "memcheck's summary differs ($m)"; }
done
echo PASS
