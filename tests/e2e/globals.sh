# The program's globals read at an event (tests/targets/globals.c):
# `::counter`, `::cfg.level` (a member), `::head->n` (through a pointer),
# `::small` (a negative short), `str(::cfg.name)` (a char * member) and
# `str(::cfg.tag)` (a char array) -- in a PIE, wherever it is loaded. Both
# tiers; the values show in the report and survive a recording; without
# DWARF a plain integer global still reads from .symtab; a global that does
# not exist is an error naming it, the binary and the spec line.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/g.vigil" <<'SPEC'
property in_step "tick(k) sees counter == k, and the config"
state s accepting {
  before tick(k) when ::counter == k && ::cfg.level == 3 && (::head == null || ::head->n == 10 * k) -> s
  before tick(k) -> bad
}
state bad violation

property names "the config's strings, a short"
state s nonaccepting {
  after tick(k) when ::small == -7 && str(::cfg.name) == "prod" && str(::cfg.tag) == "blue" -> ok
}
state ok accepting
SPEC

file "$TARGETS/globals" | grep -q "pie executable" || fail "the target is not a PIE"
for tier in auto user; do
	run_vigil run --tier=$tier "$TMP/g.vigil" -- "$TARGETS/globals"
	expect_rc 0
	expect_out "in_step: ${tier/auto/kernel} tier"
	expect_out "in_step: live slices by state: s=1 bad=0"
	expect_out "names: live slices by state: s=0 ok=1"
	expect_out "before:tick=20 after:tick=20"
	# ::head->n while head is still NULL: 5 calls
	expect_out "5 reads of target memory \(p->field, \*p\) faulted"
done

run_vigil run --on-violation=continue --record "$TMP/g.rec" "$TMP/g.vigil" -- "$TARGETS/globals" --bug
expect_rc 1
expect_out "event  before tick\(12\) with ::counter=13 ::cfg.level=3 ::head=0x[0-9a-f]+ ::head->n=120"
run_vigil check "$TMP/g.vigil" "$TMP/g.rec"
expect_rc 1
expect_out "before tick\(12\) with ::counter=13"
expect_out "names: live slices by state: s=0 ok=1"

# without DWARF: .symtab gives ::counter's address and size, not types
cp "$TARGETS/globals" "$TMP/globals-nodwarf"
strip --strip-debug "$TMP/globals-nodwarf"
cat >"$TMP/plain.vigil" <<'SPEC'
property p "counter"
state s accepting {
  before tick(k) when ::counter == k -> s
  before tick(k) -> bad
}
state bad violation
SPEC
run_vigil run "$TMP/plain.vigil" -- "$TMP/globals-nodwarf" --bug
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "with ::counter=13"
run_vigil run "$TMP/g.vigil" -- "$TMP/globals-nodwarf"
expect_rc 2
expect_out "g.vigil:3:[0-9]+: cannot read '::cfg.level': .*globals-nodwarf has no DWARF type for global 'cfg'"

sed 's/::counter == k -> s/::countr == k -> s/' "$TMP/plain.vigil" >"$TMP/typo.vigil"
run_vigil run "$TMP/typo.vigil" -- "$TARGETS/globals"
expect_rc 2
expect_out "typo.vigil:3:[0-9]+: cannot read '::countr': global 'countr' not found in .*globals"
echo ok
