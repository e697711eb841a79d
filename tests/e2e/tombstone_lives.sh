# A slice that reached a violation is a finished instance, not a dead
# binding: when the object comes back at the same id (an address malloc
# hands out again), its next life is a new slice, whose own error is
# reported too, while a repeat within the violating life is not. The same
# in the kernel tier and the user tier (docs/LANGUAGE.md, "Memory:
# freeing and tombstones").
. "$(dirname "$0")/lib.sh"

cat >"$TMP/lives.vigil" <<'SPEC'
property use_closed "no use of a closed object"
slice on int id

state init accepting {
  after obj_open() returns id -> open
}
state open accepting {
  before obj_use(id) -> open
  before obj_close(id) -> closed
}
state closed accepting {
  before obj_use(id) -> used_closed
  after obj_open() returns id -> open
}
state used_closed violation
SPEC
"$VIGIL" lint "$TMP/lives.vigil" | grep -q ': kernel tier' || fail "the property is not kernel-tier eligible"
for tier in auto user; do
	run_vigil run --tier=$tier --on-violation=continue --json "$TMP/$tier.jsonl" "$TMP/lives.vigil" -- "$TARGETS/lives"
	expect_rc 1
	expect_out "^lives: done"
	n=$(grep -c 'state  closed -> used_closed (violation)' "$TMP/out")
	[ "$n" -eq 2 ] || fail "$tier tier: $n violations, not one per life"
	python3 - "$TMP/$tier.jsonl" <<'PY' || fail "$tier tier: JSON verdicts"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
v = [o for o in objs if o["type"] == "verdict"]
bad = [o for o in v if o["verdict"] == "violation"]
assert len(bad) == 2 and all(o["slice"]["id"] == 5 for o in bad), bad
# id 5 ends closed (its second life, reported), 7 closed: no more verdicts
assert all(o["verdict"] in ("violation", "accepting") for o in v), v
PY
done
grep -q 'use_closed: kernel tier' "$TMP/out" && fail "the user-tier run was not in the user tier"
echo ok
