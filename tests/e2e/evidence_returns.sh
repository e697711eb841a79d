# Evidence stacks under return probes (issue 19 point 6, 17 point 4): at a
# `before free` event the stack holds free's direct caller once, and never
# the uretprobe trampoline (0x7fffffffe000, the [uprobes] page):
# - free tail-called by drop(), which has an `after` probe: the return
#   address on the stack at free's entry is the trampoline's, and the real
#   caller (main) comes from the kernel's pending returns (bpf/returns.bpf.h);
# - free called by release(), which has an `after` probe: release's own
#   return address on the stack is the trampoline's;
# - an entry probe on a function that starts with push %rbp, where the
#   kernel adds the caller itself: it is shown once.
. "$(dirname "$0")/lib.sh"

ret_probe() {	# a property that only puts a return probe on $1
	cat >"$TMP/$1.vigil" <<SPEC
property ret_$1 "a return probe on $1"
state a accepting {
  after $1() -> a
}
SPEC
}

# the lines of the evidence step that entered state $1, up to the next step
step() { sed -nE "/ before free\(0x[0-9a-f]+\)  $1/,/^    \+|^vigil:/p" "$TMP/out"; }

ret_probe drop
run_vigil run --stacks --json "$TMP/v.jsonl" specs/lib/double_free.vigil "$TMP/drop.vigil" -- "$TARGETS/tailcalls" --double-drop
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of double_free"
expect_no_out "0x7fffffffe000"
step "live -> freed" | sed -n 3p | grep -qE "^ +main\+0x[0-9a-f]+ \(.*tailcalls.c:44\)" ||
	fail "the first free's caller (main, through drop's tail call) is not frame 1"
step "freed -> double_free" | sed -n 3p | grep -qE "^ +main\+0x[0-9a-f]+ \(.*tailcalls.c:45\)" ||
	fail "the second free's caller (main, through drop's tail call) is not frame 1"
python3 - "$TMP/v.jsonl" <<'PY' || fail "JSON evidence"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1]) if '"violation"' in l][0]
for st in [v["stack"], v["evidence"][1]["stack"]]:
    assert "tailcalls.c:4" in st[1], st
    assert not any("7fffffffe000" in f for f in st), st
print("json ok")
PY
kill -KILL "$pid"

ret_probe release
run_vigil run --stacks specs/lib/double_free.vigil "$TMP/release.vigil" -- "$TARGETS/allocs" --double-free
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_no_out "0x7fffffffe000"
step "freed -> double_free" | sed -n 3,4p | tr '\n' ' ' |
	grep -qE "^ +release\+0x[0-9a-f]+ \(.*allocs.c:13\) +main\+0x[0-9a-f]+ \(.*allocs.c:31\)" ||
	fail "free's callers under release's return probe are not release, then main"
kill -KILL "$pid"

# before release (push %rbp first): main once, right after release
cat >"$TMP/once.vigil" <<'SPEC'
property release_once "a block is released once"
slice on ptr p
state a accepting {
  before release(p) -> b
}
state b accepting {
  before release(p) -> bad
}
state bad violation
on enter bad: stop
SPEC
run_vigil run --stacks "$TMP/once.vigil" -- "$TARGETS/allocs" --double-free
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
grep -A3 "before release(0x[0-9a-f]*)  b -> bad" "$TMP/out" | sed -n 2,4p >"$TMP/frames"
sed -n 1p "$TMP/frames" | grep -qE "at release\+0x0 " || fail "frame 0 is not release"
sed -n 2p "$TMP/frames" | grep -qE "main\+0x[0-9a-f]+ \(.*allocs.c:31\)" || fail "frame 1 is not main"
sed -n 3p "$TMP/frames" | grep -qE "main\+" && fail "release's caller is shown twice"
kill -KILL "$pid"
echo PASS
