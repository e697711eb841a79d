# The kernel and user tiers give identical verdicts: every spec in specs/
# (and specs/lib/) that is eligible for the kernel tier, on each target that
# exercises it, run in both tiers with --on-violation=continue; the JSON
# verdicts (property, slice, state, verdict) must be the same sets.
. "$(dirname "$0")/lib.sh"

# spec | target and arguments
cases=(
	"specs/queue_bounds.vigil|$TARGETS/queue"
	"specs/queue_bounds.vigil|$TARGETS/queue --bug"
	"specs/lib/double_free.vigil|$TARGETS/allocs"
	"specs/lib/double_free.vigil|$TARGETS/allocs --double-free"
)
checked=0
for c in "${cases[@]}"; do
	spec=${c%%|*} target=${c#*|}
	"$VIGIL" lint "$spec" | grep -q ': kernel tier' || continue
	for tier in kernel user; do
		# drop the spec's own `stop` reactions so both runs go to the end
		sed 's/^on enter \(.*\): stop$/on enter \1: log "entered"/' "$spec" >"$TMP/spec.vigil"
		run_vigil run --disable-aslr --tier=$tier --json "$TMP/$tier.jsonl" "$TMP/spec.vigil" -- $target
		[ "$RC" -le 1 ] || fail "$tier tier failed on $spec $target"
		python3 - "$TMP/$tier.jsonl" >"$TMP/$tier.verdicts" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "verdict":
        print(o["property"], json.dumps(o["slice"], sort_keys=True), o["state"], o["verdict"])
PY
		sort -o "$TMP/$tier.verdicts" "$TMP/$tier.verdicts"
	done
	echo "== $spec $target: $(wc -l <"$TMP/kernel.verdicts") verdicts"
	diff "$TMP/kernel.verdicts" "$TMP/user.verdicts" || fail "tiers disagree on $spec $target"
	[ -s "$TMP/kernel.verdicts" ] || fail "no verdicts at all on $spec $target"
	checked=$((checked + 1))
done
[ "$checked" -ge 4 ] || fail "only $checked eligible cases checked"
