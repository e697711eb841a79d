# Pointers in reports are named: the address of a global as (&A), one into
# a heap block vigil saw allocated (the spec probes `after malloc`) as
# (block of 24 bytes from make_node at symvals.c:N, +16), in the text
# report, its evidence and the JSON ("names"). The allocation site is
# make_node with --stacks, the allocator without.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/sv.vigil" <<'SPEC'
property symvals "link_to never links a global"
slice on ptr a
state s accepting {
  after malloc(size) returns p -> s
  before link_to(a, p) -> bad
}
state bad violation
SPEC
run_vigil run --stacks --tier=user --on-violation=continue --json "$TMP/v.json" "$TMP/sv.vigil" -- "$TARGETS/symvals"
expect_rc 1
expect_out '^  slice  a=0x[0-9a-f]+ \(&A\)$'
expect_out '^  slice  a=0x[0-9a-f]+ \(&A\+8\)$'
expect_out '^  event  before link_to\(0x[0-9a-f]+ \(&A\), 0x[0-9a-f]+ \(block of 24 bytes from make_node at symvals\.c:[0-9]+, \+16\)\) in tid'
# the evidence: the allocation itself, at +0
expect_out 'after malloc\(24\) returned 0x[0-9a-f]+ \(block of 24 bytes from make_node at symvals\.c:[0-9]+, \+0\)  s -> s'
grep -q '"slice":{"a":"0x[0-9a-f]*"},"vars":{},"names":{"a":"&A"}' "$TMP/v.json" || { cat "$TMP/v.json"; fail "JSON lacks the slice's name"; }
grep -q '"names":{"0":"&A","1":"block of 24 bytes from make_node at symvals.c:[0-9]*, +16"}' "$TMP/v.json" || fail "JSON lacks the event's names"

# without stacks the site is the allocator
run_vigil run --tier=user --on-violation=continue "$TMP/sv.vigil" -- "$TARGETS/symvals"
expect_rc 1
expect_out '\(block of 24 bytes from malloc, \+16\)'
# a value that is neither prints bare
expect_no_out 'tid [0-9]+ \('

# stopped (the default reaction), `vigil status` in gdb names them too
run_vigil run --stacks --tier=user "$TMP/sv.vigil" -- "$TARGETS/symvals"
expect_rc 1
pid=$(stopped_pid)
[ -n "$pid" ] || fail "no stopped target"
LEFT_PIDS+=("$pid")
gdb_handoff "-ex 'vigil status'"
grep -qE '^slice     a=0x[0-9a-f]+ \(&A(\+8)?\)$' "$TMP/gdb" || { cat "$TMP/gdb"; fail "vigil status: the slice is not named"; }
grep -qE '^event     before link_to\(0x[0-9a-f]+ \(&A(\+8)?\), 0x[0-9a-f]+ \(block of 24 bytes from make_node at symvals\.c:[0-9]+, \+16\)\) in tid' "$TMP/gdb" || { cat "$TMP/gdb"; fail "vigil status: the event's values are not named"; }
kill -KILL "$pid"
echo ok
