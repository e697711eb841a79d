# p->field, p->a.b, p->a->b, *p and ret->field read from target memory by
# the probe, with their types and offsets from DWARF (tests/targets/fields.c),
# in both tiers; the values show in the report and the JSON; a recording
# replays them; a field that does not exist, a binary without DWARF and a
# text trace are refused with the spec line.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/fields.vigil" <<'SPEC'
property node_shape "each node is built and visited in order"
slice on ptr n
int seen = 0

state init accepting {
  after make(id) returns n when n->id == id && n->in.s == -100 * id && n->in.u == 200 + id -> made
}
state made accepting {
  # counter is the third parameter but arrives in %rsi (a double is in
  # %xmm0): only DWARF says so
  before visit(n, scale, counter) when *counter == n->id - 1 && (n->next == null || n->next->id == n->id + 1) { seen = n->id; } -> visited
  before visit(n, scale, counter) -> misshapen
}
state visited accepting
state misshapen violation
SPEC

for tier in kernel user; do
	run_vigil run --tier=$tier --json "$TMP/v.jsonl" "$TMP/fields.vigil" -- "$TARGETS/fields"
	expect_rc 0
	expect_out "fields: visited=3"
	expect_out "node_shape: $tier tier"
	expect_no_out "VIOLATION|inconclusive|nonaccepting"
	# the last node's next is NULL: n->next->id faults, once
	expect_out "1 reads of target memory \(p->field, \*p\) faulted"

	run_vigil run --tier=$tier --on-violation=continue --json "$TMP/v.jsonl" "$TMP/fields.vigil" -- "$TARGETS/fields" --bug
	expect_rc 1
	expect_out "VIOLATION of node_shape"
	# node 1 sees a next with id 7
	expect_out "before visit\(0x[0-9a-f]+, 0, 0x[0-9a-f]+( \(&visited\))?\) with \*counter=0 n->id=1 n->next=0x[0-9a-f]+ n->next->id=7"
	grep -q '"read":{"\*counter":"0","n->id":"1"' "$TMP/v.jsonl" || fail "the JSON lacks the values read"
done

# a recording carries the values read; vigil check replays them
run_vigil run --on-violation=continue --record "$TMP/f.rec" "$TMP/fields.vigil" -- "$TARGETS/fields" --bug
expect_rc 1
run_vigil check "$TMP/fields.vigil" "$TMP/f.rec"
expect_rc 1
expect_out "n->next->id=7"

# a text trace has no memory
echo "visit,1,2,3" >"$TMP/t.csv"
run_vigil check "$TMP/fields.vigil" "$TMP/t.csv"
expect_rc 2
expect_out "fields.vigil:6:[0-9]+: 'n->id' reads target memory, which the text trace"

# no such field: the spec line, the struct and the binary
sed 's/n->in.u == 200/n->in.z == 200/' "$TMP/fields.vigil" >"$TMP/bad.vigil"
run_vigil run "$TMP/bad.vigil" -- "$TARGETS/fields"
expect_rc 2
expect_out "bad.vigil:6:[0-9]+: cannot read 'n->in.z': .*z.*fields"

# a copy without DWARF (symbols kept): said with the binary's name
cp "$TARGETS/fields" "$TMP/fields-stripped"
strip --strip-debug "$TMP/fields-stripped"
run_vigil run "$TMP/fields.vigil" -- "$TMP/fields-stripped"
expect_rc 2
expect_out "fields.vigil:6:[0-9]+: cannot read 'n->id': .*fields-stripped"
