# --json writes the verdict and stats objects of the DESIGN.md schema.
. "$(dirname "$0")/lib.sh"

for tier in kernel user; do
	run_vigil run --tier=$tier --json "$TMP/v.jsonl" specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	python3 - "$TMP/v.jsonl" <<'PY' || fail "JSON check failed ($tier)"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
v = [o for o in objs if o["type"] == "verdict" and o["verdict"] == "violation"]
assert len(v) >= 1, objs
v = v[0]
for k in ("property", "slice", "state", "verdict", "event", "pid", "tid", "time_ns"):
    assert k in v, k
assert v["property"] == "queue_bounds"
assert v["state"] == "overflow"
assert v["slice"]["q"].startswith("0x")
assert v["event"]["name"] == "queue_push"
assert v["vars"] == {"n": 8, "max": 8}, v["vars"]
s = [o for o in objs if o["type"] == "stats"]
assert len(s) == 1 and "lost" in s[0] and "probes" in s[0], s
print("ok", v)
PY
	# (a user-tier stop may come after the target began to exit)
	if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null; fi
done
echo ok
