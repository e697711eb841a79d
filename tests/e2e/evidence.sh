# The evidence of a violation: with --stacks, the report shows the slice's
# steps (malloc, free, free again), each with its user stack symbolized to
# function and file:line; the JSON verdict carries the same; `vigil status`
# in the gdb that vigil's command file starts prints it; a `backtrace`
# reaction captures stacks without --stacks.
. "$(dirname "$0")/lib.sh"

run_vigil run --stacks --json "$TMP/v.jsonl" specs/lib/double_free.vigil -- "$TARGETS/allocs" --double-free
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "evidence: the last 3 of this slice's 3 recorded steps, oldest first"
expect_out "after malloc\([0-9]+\) returned 0x[0-9a-f]+  init -> live"
expect_out "before free\(0x[0-9a-f]+\)  live -> freed"
expect_out "before free\(0x[0-9a-f]+\)  freed -> double_free"
expect_out "^ +at main\+0x[0-9a-f]+ \(.*tests/targets/allocs.c:24\)"	# the malloc
expect_out "^ +release\+0x[0-9a-f]+ \(.*tests/targets/allocs.c:13\)"	# free's caller
expect_out "^ +main\+0x[0-9a-f]+ \(.*tests/targets/allocs.c:31\)"	# the bad call

python3 - "$TMP/v.jsonl" <<'PY' || fail "JSON evidence"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1]) if '"violation"' in l][0]
ev = v["evidence"]
assert [s["to"] for s in ev] == ["live", "freed", "double_free"], ev
assert any("allocs.c:31" in f for f in v["stack"]), v["stack"]
assert any("allocs.c:13" in f for f in ev[1]["stack"]), ev[1]["stack"]
assert all(s["tid"] == v["tid"] for s in ev)
print("json evidence ok:", len(ev), "steps")
PY

# gdb, as vigil printed it, then `vigil status`
cmd=$(grep -A1 'Debug it with' "$TMP/out" | tail -1 | sed 's/^ *//')
echo "+ $cmd -batch -ex 'vigil status'"
timeout 60 bash -c "$cmd -batch -ex 'vigil status' -ex detach" >"$TMP/gdb" 2>&1
cat "$TMP/gdb"
grep -q "^property  double_free" "$TMP/gdb" || fail "vigil status: no property"
grep -qE "^slice     p=0x[0-9a-f]+" "$TMP/gdb" || fail "vigil status: no slice"
grep -q "^state     freed -> double_free (violation)" "$TMP/gdb" || fail "vigil status: no state"
grep -q "^evidence  the last 3 steps of this slice" "$TMP/gdb" || fail "vigil status: no evidence"
grep -qE "release\+0x[0-9a-f]+ \(.*allocs.c:13\)" "$TMP/gdb" || fail "vigil status: no file:line"
kill -KILL "$pid"

# a backtrace reaction: stacks without --stacks
sed 's/^on enter double_free: stop$/on enter double_free: backtrace, stop/' specs/lib/double_free.vigil >"$TMP/bt.vigil"
run_vigil run "$TMP/bt.vigil" -- "$TARGETS/allocs" --double-free
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "double_free: backtrace of tid [0-9]+ at before free\(0x[0-9a-f]+\)"
expect_out "^    at free\+0x[0-9a-f]+ \(libc.so.6\)"
expect_out "^       release\+0x[0-9a-f]+ \(.*allocs.c:13\)"
