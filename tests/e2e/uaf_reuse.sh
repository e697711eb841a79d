# A freed block given out again and written at once: free arms its
# watchpoint, the malloc that hands it back releases it, and the program's
# write lands before vigil has disarmed it. That hit is the program's use
# of its own block: it must not stop the program (bpf/released.bpf.h),
# whether the malloc was seen in-process or by a uprobe (--no-fast). The
# oracle is the program's own count of voluntary context switches around
# each write (tests/targets/uafreuse.c): a stop is one. The block written
# through its stale pointer after a free is still stopped at, in use().
. "$(dirname "$0")/lib.sh"

if ! has_debug_regs; then
	run_vigil run specs/lib/use_after_free.vigil -- "$TARGETS/uafreuse"
	expect_rc 0
	expect_blind
	skip debug_regs "$WHY"
fi

for mode in "" --no-fast; do
	run_vigil run $mode specs/lib/use_after_free.vigil -- "$TARGETS/uafreuse"
	expect_rc 0
	expect_out "^uafreuse: 50 of 50 blocks came back, 0 writes stopped$"
	expect_no_out "VIOLATION"
	expect_out "ERROR SUMMARY: 0 errors"
	# each free held its thread until armed: what that cost is said
	expect_out "^vigil: holds: the program waited [1-9][0-9]* times for vigil, [0-9]+\.[0-9]{3} s in all \([0-9]+ us each on average\)$"
	# a hit on the block after its free is still a stop, where it wrote
	run_vigil run $mode --on-violation=continue specs/lib/use_after_free.vigil -- "$TARGETS/uafreuse" --bug
	expect_rc 1
	expect_out "^uafreuse: 50 of 50 blocks came back, 0 writes stopped$"
	expect_out "VIOLATION of use_after_free"
	expect_out "at use\+0x[0-9a-f]+ \(.*uafreuse.c:[0-9]+\)"
	# (its two writes, each on its own debug register)
	expect_out "ERROR SUMMARY: 2 errors: use_after_free.use_after_free=2"
done
echo ok
