# use_after_free watches a freed block up to the end of its 8-byte granule
# (specs/lib/use_after_free.vigil's span): a write just past a freed
# 10-byte block (byte 10) is a use after free, as memcheck reports it, and
# so is one inside it (byte 5). tests/targets/uaftail.c.
. "$(dirname "$0")/lib.sh"

if ! has_debug_regs; then
	run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uaftail"
	expect_rc 0
	expect_blind
	expect_out "^uaftail: done$"
	expect_out "ERROR SUMMARY: 0 errors; 1 slice inconclusive"
	skip debug_regs "$WHY"
fi

for at in tail inside; do
	if [ "$at" = tail ]; then args=(); else args=(inside); fi
	run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uaftail" "${args[@]}"
	expect_rc 1
	expect_out "^uaftail: done$"
	expect_out "VIOLATION of use_after_free"
	expect_out "ERROR SUMMARY: 1 error: use_after_free.use_after_free=1"
done
echo ok
