# --webhook URL (user/webhook/): each violation and the run's end POSTed
# as JSON to a receiver on 127.0.0.1 (tests/e2e/webhook_recv.py), in the
# chat tools' form (a "text" field) and Alertmanager's; a dead endpoint
# costs the run nothing and is said once; bad options are usage errors.
. "$(dirname "$0")/lib.sh"

recv() {	# recv OUT [STATUS]: a receiver; sets PORT
	rm -f "$TMP/port"
	python3 "$(dirname "$0")/webhook_recv.py" "$1" "$TMP/port" "${2:-200}" &
	RECV=$!
	for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
	PORT=$(cat "$TMP/port")
	[ -n "$PORT" ] || fail "the receiver did not start"
}

# 1. the violation (queue --bug under continue), then the end
recv "$TMP/posts.jsonl"
run_vigil run --on-violation=continue --webhook "http://127.0.0.1:$PORT/hook" \
	specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
expect_rc 1
expect_out "vigil: verdicts are POSTed to http://127.0.0.1:$PORT/hook \(JSON\)"
kill "$RECV"
cat "$TMP/posts.jsonl"
python3 - "$TMP/posts.jsonl" "$TMP/out" <<'PY' || fail "the posts"
import json, re, sys
posts = [json.loads(l) for l in open(sys.argv[1])]
out = open(sys.argv[2]).read()
viol = [p["body"] for p in posts if p["body"]["kind"] == "violation"]
end = [p["body"] for p in posts if p["body"]["kind"] == "end"]
assert all(p["path"] == "/hook" and p["type"] == "application/json" for p in posts)
n = len(re.findall(r"^vigil: VIOLATION of queue_bounds", out, re.M))
assert n >= 1 and len(viol) == n, (n, len(viol))
slices = re.findall(r"^  slice  q=(0x[0-9a-f]+)", out, re.M)
for v, q in zip(viol, slices):
    assert v["property"] == "queue_bounds" and v["state"] == "overflow", v
    assert v["from"] == "ready" and v["slice"] == {"q": q}, v
    assert v["event"].startswith("before queue_push(" + q), v
    assert v["text"].startswith("vigil: queue_bounds: violation: slice (q=" + q + ") entered overflow"), v
    assert v["exe"].endswith("/queue") and v["stopped"] is False, v
assert len(end) == 1 and posts[-1]["body"] is end[0], "the end, last"
e = end[0]
m = re.search(r"ERROR SUMMARY: (\d+) error", out)
assert e["errors"] == int(m.group(1)) and e["how"] == "the program exited", e
assert e["exit_code"] == 0 and e["inconclusive"] == 0, e
PY

# 2. Alertmanager's form: an array of alerts, no end
recv "$TMP/am.jsonl"
run_vigil run --webhook "http://127.0.0.1:$PORT/api/v2/alerts" --webhook-format alertmanager \
	specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
kill "$RECV"
cat "$TMP/am.jsonl"
python3 - "$TMP/am.jsonl" <<'PY' || fail "Alertmanager's form"
import json, sys
posts = [json.loads(l) for l in open(sys.argv[1])]
assert len(posts) == 1 and posts[0]["path"] == "/api/v2/alerts", posts
a = posts[0]["body"]
assert isinstance(a, list) and len(a) == 1, a
l = a[0]["labels"]
assert l["alertname"] == "vigil_violation" and l["property"] == "queue_bounds", l
assert l["state"] == "overflow" and l["pid"] == str(l["pid"]), l
assert a[0]["annotations"]["summary"].endswith(", stopped there"), a
assert a[0]["startsAt"].endswith("Z"), a
PY
kill -KILL "$pid" 2>/dev/null

# 3. an endpoint that answers 500, and one nobody listens on: the run
# goes on as without, says it once, and counts at the end
recv "$TMP/err.jsonl" 500
run_vigil run --on-violation=continue --webhook "http://127.0.0.1:$PORT/" \
	specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
kill "$RECV"
expect_rc 1
expect_out "^vigil: webhook: POST to http://127.0.0.1:$PORT/ failed: the server answered HTTP 500$"
[ "$(grep -c 'webhook: POST to' "$TMP/out")" -eq 1 ] || fail "the failure said more than once"
expect_out "^vigil: webhook: [0-9]+ of [0-9]+ posts to http://127.0.0.1:$PORT/ failed, 0 not sent"
run_vigil run --on-violation=continue --webhook "http://127.0.0.1:1/" \
	specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
expect_rc 1
expect_out "webhook: POST to http://127.0.0.1:1/ failed: Couldn't connect to server"
expect_out "^queue: "

# 4. bad options
run_vigil run --webhook ftp://x/ specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 2
expect_out "--webhook: 'ftp://x/' is not an http:// or https:// URL"
run_vigil run --webhook http://127.0.0.1:1/ --webhook-format xml specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 2
expect_out "--webhook-format: 'xml' is not json or alertmanager"
echo PASS
