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
	expect_out "at toucher\+0x[0-9a-f]+ \(.*uafmove.c:25\)"
	expect_out "ERROR SUMMARY: 1 error: use_after_free.use_after_free=1"
done
echo ok
