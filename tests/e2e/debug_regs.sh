# Debug registers that never fire: some hypervisors accept a hardware
# breakpoint and never raise it (a PVM guest's kernel does). vigil checks
# once a boot (user/probe/debugregs.c) and, where they do not fire, says
# so in its first lines, arms nothing, and ends what a watch guarded
# inconclusive, never accepting. This test runs on either kind of machine:
#  1. vigil's answer agrees with the oracle (tests/targets/
#     debug_regs_oracle, a perf breakpoint of its own, not vigil: fire,
#     silent, or fire and report old hits again, as QEMU's TCG does), and is
#     kept for the boot in the run directory: a second vigil does not check
#     again;
#  2. with VIGIL_DEBUG_REGS=off (vigil takes the registers as silent), what
#     a user of such a machine gets: lint --binary's machine line and no
#     thread held for a register, a global's property inconclusive, a
#     slice's memory still seen through calls, the JSON saying why.
. "$(dirname "$0")/lib.sh"
# section 1 is the check itself, whatever the caller's environment says
unset VIGIL_DEBUG_REGS

cat >"$TMP/w.vigil" <<'SPEC'
property counts "counter goes 1, 2, 3..."
int next = 1
state s accepting {
  write counter when value == next { next = next + 1; } -> s
  write counter -> bad
}
state bad violation
SPEC

# 1. vigil's check against the oracle's, and its cache
export TMPDIR=$TMP	# a run directory of this test's own: no cache yet
rundir=$TMP/vigil-$(id -u)
run_vigil run "$TMP/w.vigil" -- "$TARGETS/watched" 10 1
[ -f "$rundir/debug-regs" ] || fail "no answer kept in $rundir"
read -r boot answer <"$rundir/debug-regs"
[ "$boot" = "$(cat /proc/sys/kernel/random/boot_id)" ] || fail "the answer is not this boot's: $boot"
if has_debug_regs && has_sound_debug_regs; then
	echo "oracle: $WHY"
	[ "$answer" = fire ] || fail "vigil kept '$answer', the oracle saw them fire"
	expect_rc 0
	expect_out 'write:counter=10\b'
	expect_no_out 'debug registers do not fire|report an earlier hit again'
elif has_debug_regs; then	# they fire, and report old hits again
	echo "oracle: $WHY"
	[ "$answer" = stale ] || fail "vigil kept '$answer', the oracle saw old hits reported again"
	expect_rc 0
	expect_out 'write:counter=10\b'
	expect_stale
	expect_out "ERROR SUMMARY: 0 errors; 1 slice inconclusive \(this machine's debug registers report old hits again\)"
else
	echo "oracle: $WHY"
	[ "$answer" = silent ] || fail "vigil kept '$answer', the oracle saw none fire"
	expect_rc 0
	expect_blind
fi
# a second vigil takes the kept answer: no breakpoint opened to check
strace -f -qq -e trace=perf_event_open -o "$TMP/strace" \
	"$VIGIL" lint --binary "$TARGETS/watched" "$TMP/w.vigil" >/dev/null 2>&1
grep -q perf_event_open "$TMP/strace" && fail "the second vigil checked again: $(cat "$TMP/strace")"
# a kept answer of another boot is not taken
echo "00000000-0000-0000-0000-000000000000 silent" >"$rundir/debug-regs"
strace -f -qq -e trace=perf_event_open -o "$TMP/strace" \
	"$VIGIL" lint --binary "$TARGETS/watched" "$TMP/w.vigil" >/dev/null 2>&1
grep -q 'perf_event_open({type=PERF_TYPE_BREAKPOINT' "$TMP/strace" ||
	fail "another boot's answer was taken: $(cat "$TMP/strace")"

# 2. a machine whose registers do not fire, as vigil sees one
export VIGIL_DEBUG_REGS=off
# lint --binary says it with the plan; no event holds its thread (not
# even use_after_free's frees: the calls into freed blocks are all sent,
# unfiltered, and checked in time order: below)
"$VIGIL" lint --binary "$TARGETS/watched" "$TMP/w.vigil" >"$TMP/out" 2>&1
cat "$TMP/out"
expect_out "^machine: this machine's debug registers do not fire \(checked: a write to a watched variable was not seen\): these events cannot be seen: counts: write counter; nothing is armed for them"
cat >"$TMP/slice.vigil" <<'SPEC'
property counted "an open object's count goes up by one"
slice on ptr o
int next = 1
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  write o->count when value == next { next = next + 1; } -> open
  write o->count -> bad
  before obj_close(o) -> closed
}
state bad violation
SPEC
# (the machine's own registers: a hold where they fire, as the oracle
# says, none where they do not)
unset VIGIL_DEBUG_REGS
"$VIGIL" lint --binary "$TARGETS/objects" "$TMP/slice.vigil" >"$TMP/out" 2>&1
if has_debug_regs; then
	grep -qE '^  event [0-9]+ before obj_open:.*hold' "$TMP/out" || fail "no hold for the watch where registers fire"
else
	grep -qE '^  event [0-9]+ before obj_open:' "$TMP/out" || fail "lint shows no obj_open event: $(cat "$TMP/out")"
	grep -qE '^  event [0-9]+ before obj_open:.*hold' "$TMP/out" && fail "a hold for the watch where registers do not fire ($WHY)"
fi
export VIGIL_DEBUG_REGS=off
"$VIGIL" lint --binary "$TARGETS/objects" "$TMP/slice.vigil" >"$TMP/out" 2>&1
cat "$TMP/out"
expect_out "^machine: .*: counted: write o->count;"
grep -qE '^  event [0-9]+ before obj_open:.*hold' "$TMP/out" && fail "a thread is held for a register nobody arms"

# a global's property: the program runs, nothing is armed, the verdict
# is inconclusive (text and JSON), never accepting
run_vigil run --json "$TMP/v.jsonl" "$TMP/w.vigil" -- "$TARGETS/watched" 10 1
expect_rc 0
expect_blind
expect_out '^watched: counter=10'
expect_out "^vigil: counts: slice \(the one instance\) ends inconclusive in state s$"
expect_no_out "ends accepting"
python3 - "$TMP/v.jsonl" <<'PY' || fail "the JSON does not say why"
import json, sys
o = [json.loads(l) for l in open(sys.argv[1])]
st = [x for x in o if x["type"] == "stats"][0]
su = [x for x in o if x["type"] == "summary"][0]
why = "this machine's debug registers do not fire"
assert st["blind"] == why, st
assert su["inconclusive"] == 1 and su["inconclusive_why"] == why, su
assert [x["verdict"] for x in o if x["type"] == "verdict"] == ["inconclusive"]
PY

# a slice's memory: use_after_free over blocks read by memcpy, write(2)
# and strlen after their free (tests/e2e/uaf_calls.sh): the calls are
# still seen, the slices that needed a register end inconclusive, and no
# free held its thread for a register nobody arms (each hold cost 82 us)
"$VIGIL" lint --binary "$TARGETS/uafcalls" specs/lib/use_after_free.vigil >"$TMP/out" 2>&1
grep -qE '^  event [0-9]+ before free:' "$TMP/out" || fail "lint shows no free event: $(cat "$TMP/out")"
grep -qE '^  event [0-9]+ before free:.*hold' "$TMP/out" && fail "a free holds its thread for a register nobody arms: $(grep 'before free:' "$TMP/out")"
# with no page filter, the calls checked against freed blocks go
# in-process like any hot call; where registers fire (a kept answer,
# lint runs nothing) the filter keeps them on uprobes
grep -qE '^  in-process before memcpy: ' "$TMP/out" || fail "memcpy not in-process where no filter needs its probe: $(grep 'memcpy' "$TMP/out")"
mkdir -p -m 700 "$TMP/fire/vigil-$(id -u)"
echo "$(cat /proc/sys/kernel/random/boot_id) fire" >"$TMP/fire/vigil-$(id -u)/debug-regs"
env -u VIGIL_DEBUG_REGS TMPDIR="$TMP/fire" "$VIGIL" lint --binary "$TARGETS/uafcalls" specs/lib/use_after_free.vigil >"$TMP/out" 2>&1
grep -qE '^  uprobe before memcpy: .*not in-process: it is checked against watched blocks' "$TMP/out" || fail "memcpy not on its filtered uprobe where registers fire: $(grep 'memcpy' "$TMP/out")"
run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uafcalls"
expect_rc 1
expect_blind
expect_no_out "^vigil: holds:"
n=$(grep -c 'state  freed -> use_after_free (violation)' "$TMP/out")
[ "$n" -eq 3 ] || fail "$n accesses after free through calls, not 3"
expect_out '^vigil: ERROR SUMMARY: 3 errors: use_after_free.use_after_free=3; [0-9]+ slices? inconclusive \(this machine.s debug registers do not fire\)$'
echo PASS
