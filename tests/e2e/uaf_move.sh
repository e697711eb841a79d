# A debug register moved from one freed block to the next: a freed
# block's watch released and the next block's armed in one drain moves
# the breakpoint (PERF_EVENT_IOC_MODIFY_ATTRIBUTES) in every thread that
# has it, a thread made after the first arming included, which has it by
# inheritance (tests/targets/uafmove.c). That thread's write into the
# second block is caught.
. "$(dirname "$0")/lib.sh"

if ! has_debug_regs; then
	run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uafmove"
	expect_rc 0
	expect_blind
	expect_out "^uafmove: a2 is a; done$"
	skip debug_regs "$WHY"
fi

for i in 1 2 3; do
	run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uafmove"
	expect_rc 1
	expect_out "^uafmove: a2 is a; done$"
	expect_out "VIOLATION of use_after_free"
	expect_out "at toucher\+0x[0-9a-f]+ \(.*uafmove.c:33\)"
	expect_out "ERROR SUMMARY: 1 error: use_after_free.use_after_free=1"
done

# Apart: a's watch released in one drain, b's armed in a later one. The
# released breakpoint is kept disabled between them (no trap while the
# program writes a again, 1,000 times, as its own block), then moved to
# b and enabled: the thread's write into b is caught all the same.
hits() { sed -nE 's/.* access:\*p @ span[^=]*=([0-9]+) .*/\1/p' "$TMP/out"; }
for i in 1 2 3; do
	run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uafmove" --apart
	expect_rc 1
	expect_out "^uafmove: a2 is a; done$"
	expect_out "at toucher\+0x[0-9a-f]+ \(.*uafmove.c:[0-9]+\)"
	expect_out "ERROR SUMMARY: 1 error: use_after_free.use_after_free=1"
	n=$(hits)
	[ -n "$n" ] && [ "$n" -lt 100 ] ||
		fail "the released breakpoint trapped the program's own writes: ${n:-no} hits"
done
echo ok
