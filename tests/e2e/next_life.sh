# A violated object is not good again (issue 32 point 1). One accepting
# state s, `put(o) when n < 12 { n = n + 1; } -> s` and `put(o) -> over`,
# a violation: every put would start an instance from s into s, and the
# "next life" rule let each put after a violation start the object over,
# so objects that violated were reported again and listed as ending
# accepting. A binding's next life starts only where an event creates the
# value it binds (`after ... returns o`, `*o` at a return) or the spec says
# `creation`; everywhere else the tombstone absorbs (docs/LANGUAGE.md,
# Memory). The trace (tests/targets/puts.c, seeded) is counted here by
# awk: vigil check over 2,000,000 puts on 200,000 objects, and both live
# tiers over the target making 20,000 such calls, give exactly the objects
# with more than 12 puts, each ending `over`, none `s`.
. "$(dirname "$0")/lib.sh"

T="$TARGETS/puts"
# objects with more than 12 puts, and distinct objects
count() { awk -F, '{ c[$2]++ } END { n = 0; for (k in c) if (c[k] > 12) n++; print n, length(c) }' "$1"; }
# with put a creation event: each life is 12 puts and the violating 13th
lives() { awk -F, '{ c[$2]++ } END { n = 0; for (k in c) n += int(c[k] / 13); print n }' "$1"; }
expect_verdicts() {	# N OBJECTS: N violations, N objects end over, the rest s
	expect_out "^vigil: stats: .* violations=$1 "
	expect_out "^vigil: ERROR SUMMARY: $1 errors: puts.over=$1\$"
	expect_out "^vigil: puts: live slices by state: s=$(($2 - $1)) over=$1\$"
}

"$T" --calls 2000000 --objects 200000 --trace "$TMP/big.csv" --no-calls >/dev/null ||
	fail "the generator failed"
read -r want objs < <(count "$TMP/big.csv")
echo "+ awk: $want of $objs objects take more than 12 puts"
[ "$want" -gt 40000 ] && [ "$objs" -gt 199000 ] || fail "the trace is not the one meant ($want, $objs)"

cat >"$TMP/puts.vigil" <<'V'
property puts "an object takes at most 12 puts"
slice on o
int n = 0
event put(o)
state s accepting {
  put(o) when n < 12 { n = n + 1; } -> s
  put(o) -> over
}
state over violation
V
run_vigil check "$TMP/puts.vigil" "$TMP/big.csv" >/dev/null
expect_rc 1
expect_verdicts "$want" "$objs"
expect_out "slices created=$objs freed=0 "

# `creation event put(o)`: the spec says put makes the object, so each
# put after a violation starts its next life, as JavaMOP's creation events
sed 's/^event put(o)$/creation event put(o)/' "$TMP/puts.vigil" >"$TMP/created.vigil"
grep -q '^creation event put' "$TMP/created.vigil" || fail "no creation event"
printf 'put,1\n%.0s' $(seq 30) >"$TMP/one.csv"	# 2 lives' violations, 4 puts left
run_vigil check "$TMP/created.vigil" "$TMP/one.csv"
expect_rc 1
expect_out "^vigil: ERROR SUMMARY: 2 errors: puts.over=2\$"
run_vigil check "$TMP/created.vigil" "$TMP/big.csv" >/dev/null
expect_out "^vigil: ERROR SUMMARY: $(lives "$TMP/big.csv") errors: puts.over="

# both live tiers over the same calls, made by the target
"$T" --trace "$TMP/small.csv" --no-calls >/dev/null || fail "the generator failed"
read -r want objs < <(count "$TMP/small.csv")
echo "+ awk: $want of $objs objects take more than 12 puts"
[ "$want" -gt 100 ] || fail "too few objects violate for a test ($want)"
sed -e 's/^event put(o)$//' -e 's/^  put(o)/  before put(o)/' "$TMP/puts.vigil" >"$TMP/live.vigil"
for tier in kernel user; do
	run_vigil run -q --tier=$tier --on-violation=continue "$TMP/live.vigil" -- "$T" >/dev/null
	expect_rc 1
	expect_out "^vigil: puts: $tier tier"
	expect_out "^puts: 20000 calls over 2000 objects$"
	expect_verdicts "$want" "$objs"
done
echo PASS
