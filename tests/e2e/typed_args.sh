# Positional parameters get their C types and locations from DWARF
# (tests/targets/typed.c): an int, an unsigned short, a signed char and a
# bool with garbage above them in their registers; integers after a double
# and a float, which the ABI passes in SSE registers; the seventh and eighth
# arguments, on the stack; a short return value. Both tiers see the C
# values, and the per-probe counts are the target's own. A copy without
# DWARF reads whole registers by position, and the same spec then fails.
# A spec name that is not the function's own draws a warning; reading a
# double, or a parameter the function does not have, is an error with the
# spec line.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/typed.vigil" <<'SPEC'
property narrow_args "narrow parameters keep their C values"
state s accepting {
  before narrow(a, b, c, d) when a < 0 && b == 65535 + a && c == 0 - (0 - a) % 64 && d == (a % 2 != 0) -> s
  before narrow(a, b, c, d) -> bad
}
state bad violation

property stack_args "the seventh and eighth arguments come from the stack"
state s accepting {
  before many(a1, _, _, _, _, _, a7, a8) when a7 == -a1 && a8 == a1 * 1000 -> s
  before many(a1, _, _, _, _, _, a7, a8) -> bad
}
state bad violation

property after_sse "integers after a double stay in their registers"
state s accepting {
  before scaled(x, n, y, u) when n < 0 && u == 1000 - n -> s
  before scaled(x, n, y, u) -> bad
}
state bad violation

property short_ret "a short return value is sign-extended"
state s accepting {
  after neg(i) returns r when r == -i && r < 0 -> s
  after neg(i) returns r -> bad
}
state bad violation
SPEC

for tier in kernel user; do
	run_vigil run --tier=$tier "$TMP/typed.vigil" -- "$TARGETS/typed" 250
	expect_rc 0
	expect_out "typed: calls=250"
	expect_out "narrow_args: $tier tier"
	expect_no_out "VIOLATION|warning"
	expect_out "before:narrow=250 before:many=250 before:scaled=250 after:neg=250"
done

# what the probes read, as lint --binary lists it
run_vigil lint "$TMP/typed.vigil" --binary "$TARGETS/typed"
expect_rc 0
expect_out "^    c: signed char in %rdx$"
expect_out "^    d: _Bool in %rcx$"
expect_out "^    a7: int at 8\(%rsp\)$"
expect_out "^    a8: long int at 16\(%rsp\)$"
expect_out "^    x: not read \(vigil's language has no floating-point type"
expect_out "^    n: int in %rdi$"
expect_out "^    u: unsigned int in %rsi$"
expect_out "^    return value: short int in %rax$"

# without DWARF: whole registers by position, and the C values are lost
cp "$TARGETS/typed" "$TMP/typed-nodwarf"
strip --strip-debug "$TMP/typed-nodwarf"
run_vigil run --tier=user --on-violation=continue "$TMP/typed.vigil" -- "$TMP/typed-nodwarf"
expect_rc 1
for p in narrow_args stack_args after_sse short_ret; do
	expect_out "VIOLATION of $p"
done
run_vigil lint "$TMP/typed.vigil" --binary "$TMP/typed-nodwarf"
expect_out "^    a7: 8 bytes at 8\(%rsp\) \(no DWARF type\)$"

# a name that is not the function's own: a warning only when it is likely
# a mistake, the function's own name for another position (swapped); lint
# --all-warnings lists every one
cat >"$TMP/names.vigil" <<'SPEC'
property names "positional names"
state s accepting {
  before narrow(a, count) when count > 0 -> s
}
SPEC
run_vigil run "$TMP/names.vigil" -- "$TARGETS/typed" 3
expect_rc 0
expect_no_out "warning"
run_vigil lint "$TMP/names.vigil" --binary "$TARGETS/typed"
expect_rc 0
expect_no_out "warning:"
expect_out "^1 property, 0 warnings$"
run_vigil lint --all-warnings "$TMP/names.vigil" --binary "$TARGETS/typed"
expect_rc 0
expect_out "names.vigil:3:20: warning: narrow: the spec calls parameter 2 'count'; .*typed calls it 'b'$"
expect_out "^1 property, 1 warning$"
# swapped: both names are the function's own, at the other's position
cat >"$TMP/swapped.vigil" <<'SPEC'
property swapped "positional names swapped"
state s accepting {
  before narrow(b, a) when a > 0 -> s
}
SPEC
run_vigil run "$TMP/swapped.vigil" -- "$TARGETS/typed" 3
expect_rc 0
expect_out "swapped.vigil:3:17: warning: narrow: the spec calls parameter 1 'b'; .*typed calls it 'a', and 'b' is its parameter 2: swapped\?"
expect_out "swapped.vigil:3:20: warning: narrow: the spec calls parameter 2 'a'; .*typed calls it 'b', and 'a' is its parameter 1: swapped\?"
run_vigil lint "$TMP/swapped.vigil" --binary "$TARGETS/typed"
expect_out "^1 property, 2 warnings$"
# a name that binds a slice parameter is the spec's own: no warning there
cat >"$TMP/bound.vigil" <<'SPEC'
property bound "a slice parameter's name"
slice on b
state s accepting {
  before narrow(b, a) when a > 0 -> s
}
SPEC
run_vigil lint "$TMP/bound.vigil" --binary "$TARGETS/typed"
expect_no_out "parameter 1 'b'"
expect_out "bound.vigil:4:20: warning: narrow: the spec calls parameter 2 'a'"
expect_out "^1 property, 1 warning$"

# reading a double: an error at the name, saying why
cat >"$TMP/double.vigil" <<'SPEC'
property dbl "a double"
state s accepting {
  before scaled(x, n) when x > 0 -> s
}
SPEC
run_vigil run "$TMP/double.vigil" -- "$TARGETS/typed" 3
expect_rc 2
expect_out "double.vigil:3:17: parameter 1 'x' of scaled in .*typed is a double: vigil's language has no floating-point type, and a uprobe cannot read the SSE registers"

# a parameter the function does not have
cat >"$TMP/extra.vigil" <<'SPEC'
property extra "one too many"
state s accepting {
  before neg(i, j) when j == 0 -> s
}
SPEC
run_vigil run "$TMP/extra.vigil" -- "$TARGETS/typed" 3
expect_rc 2
expect_out "extra.vigil:3:17: neg in .*typed has 1 parameter in DWARF; the spec names parameter 2 'j'"
echo ok
