# Hardware watchpoints on the program's globals (tests/targets/watched.c):
# `write counter` sees each of the 1000 writes, with the value written;
# `write shared` sees the 8000 writes of 8 threads started after the
# watchpoints were armed; `write ::level` sign-extends a short, and
# `write flag1` is a char: lengths 8, 4, 2 and 1. A global that does not
# exist or does not fit a debug register is an error at the spec line,
# and a fifth watched address says the hardware has four.
# `change counter / 100` makes an event at each hundred, not each write.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/w.vigil" <<'SPEC'
property counts "counter goes 1, 2, 3..."
int next = 1
state s accepting {
  write counter when value == next { next = next + 1; } -> s
  write counter -> bad
}
state bad violation

property all_writes "shared goes up by one at every write, from any thread"
int last = 0
state s accepting {
  write shared when value == last + 1 { last = value; } -> s
  write shared -> bad
}
state bad violation

property neg "a short keeps its sign"
state s nonaccepting {
  write ::level when value == -5 -> seen
}
state seen accepting

property byte "a char is one byte"
state s nonaccepting {
  write flag1 when value == 1 -> seen
}
state seen accepting
SPEC

# a spec's mistakes are said at its line, whatever the machine
sed 's/write counter when/write countr when/' "$TMP/w.vigil" >"$TMP/typo.vigil"
run_vigil run "$TMP/typo.vigil" -- "$TARGETS/watched"
expect_rc 2
expect_out "typo.vigil:4:3: global 'countr' not found in .*watched"

printf 'property p "x"\nstate s accepting {\n  write pair -> s\n}\n' >"$TMP/big.vigil"
run_vigil run "$TMP/big.vigil" -- "$TARGETS/watched"
expect_rc 2
expect_out "big.vigil:3:3: global 'pair' in .*watched is 16 bytes: a watchpoint covers 1, 2, 4 or 8"

if ! has_debug_regs; then
	# nothing can see a global's writes: every property here ends
	# inconclusive, none accepting, and nothing is armed
	run_vigil run --json "$TMP/v.jsonl" "$TMP/w.vigil" -- "$TARGETS/watched" 1000 8
	expect_rc 0
	expect_blind
	expect_out "watched: counter=1000 shared=8000"
	expect_out "counts: write counter, all_writes: write shared, neg: write ::level, byte: write flag1;"
	expect_out "ERROR SUMMARY: 0 errors; 4 slices inconclusive"
	for p in counts all_writes neg byte; do
		expect_out "^vigil: $p: slice \(the one instance\) ends inconclusive"
	done
	expect_no_out "ends accepting"
	grep -q '"blind":"this machine.s debug registers do not fire"' "$TMP/v.jsonl" ||
		fail "the JSON stats do not say why"
	skip debug_regs "$WHY"
fi

run_vigil run --json "$TMP/v.jsonl" "$TMP/w.vigil" -- "$TARGETS/watched" 1000 8
expect_rc 0
expect_out "watched: counter=1000 shared=8000"
expect_out "write:counter=1000 write:shared=8000 write:::level=1 write:flag1=1( |$)"
expect_out "counts: live slices by state: s=1 bad=0"
expect_out "all_writes: live slices by state: s=1 bad=0"
expect_out "neg: live slices by state: s=0 seen=1"
expect_out "byte: live slices by state: s=0 seen=1"
expect_no_out "VIOLATION|lost=[1-9]"

# `change EXPR` is an event only when EXPR's value changes: 1000 writes
# of counter make counter / 100 change 10 times, each by one
cat >"$TMP/chg.vigil" <<'SPEC'
property hundreds "counter / 100 goes up by one at each hundred"
int n = 0
state s accepting {
  change counter / 100 when value == old + 1 { n = n + 1; } -> s
  change counter / 100 -> bad
}
state bad violation
on enter s: log "changes {n}"
SPEC
run_vigil run "$TMP/chg.vigil" -- "$TARGETS/watched" 1000 0
expect_rc 0
expect_out "changes 10$"
expect_no_out "changes 11|VIOLATION|lost=[1-9]"
expect_out "watchpoints: 1 armed, 1000 hits"

printf 'property p "five"\nstate s accepting {\n  write counter -> s\n  write shared -> s\n  write level -> s\n  write flag1 -> s\n  write flag2 -> s\n}\n' >"$TMP/five.vigil"
run_vigil run "$TMP/five.vigil" -- "$TARGETS/watched"
[ "$RC" -ne 0 ] || fail "five watchpoints were accepted"
expect_out "x86 has 4 debug registers per thread"
echo ok
