# Too few debug registers free for a whole freed block: --watch-policy=
# refuse watches its first bytes with those left, rather than none
# (tests/targets/uafprefix.c: an 8-byte block freed takes one register,
# a 32-byte one freed next gets the other three, its first 24 bytes). A
# write at byte 4 is caught; one at byte 28 is not seen, and the block's
# verdict says so: inconclusive, never accepting.
. "$(dirname "$0")/lib.sh"

if ! has_debug_regs; then
	run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uafprefix"
	expect_rc 0
	expect_blind
	expect_out "^uafprefix: done$"
	expect_no_out "VIOLATION"
	skip debug_regs "$WHY"
fi

run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uafprefix"
expect_rc 1
expect_out "^uafprefix: done$"
expect_out "needs 4 debug registers for \*p @ span .* and 3 of 4 are free; --watch-policy=refuse watches its first 24 bytes: its verdict is inconclusive"
expect_out "VIOLATION of use_after_free"
expect_out "ERROR SUMMARY: 1 error: use_after_free.use_after_free=1"
expect_out "watchpoints: 4 armed, 1 hits, 0 slices refused, 1 watched in part"

run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uafprefix" past
expect_rc 0
expect_out "^uafprefix: done$"
expect_no_out "VIOLATION"
expect_out "ERROR SUMMARY: 0 errors; 1 slice inconclusive"
expect_out "watchpoints: 4 armed, 0 hits, 0 slices refused, 1 watched in part"
echo ok
