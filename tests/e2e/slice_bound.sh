# --max-slices: past the bound new slices are refused, said at once (kernel
# tier) and in the stats, and the verdicts become inconclusive, never a
# clean "accepting". Both tiers.
. "$(dirname "$0")/lib.sh"

for tier in kernel user; do
	run_vigil run --tier=$tier --max-slices 100 --json "$TMP/v.jsonl" specs/lib/double_free.vigil -- "$TARGETS/allocs"
	expect_rc 0
	expect_out "new slices refused: the slice table was full \(--max-slices\)"
	expect_out "ends inconclusive"
	python3 - "$TMP/v.jsonl" <<'PY' || fail "$tier: JSON verdicts not all inconclusive"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
v = [o["verdict"] for o in objs if o["type"] == "verdict"]
assert v and set(v) == {"inconclusive"}, set(v)
s = [o for o in objs if o["type"] == "stats"][0]
assert s["slices_refused"] + s["kernel_slices_refused"] >= 900, s
PY
done
