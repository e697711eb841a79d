# The memory properties of specs/lib/ run together, all in the kernel
# tier, on 5000 blocks live at once (tests/targets/heap.c): every
# block is a slice of each of the four (bad_free's in its initial state:
# its object map decides), and the kernel-tier slice table
# must hold them all (no slice refused, no verdict inconclusive). The
# table's hash once ignored the property in the slot it picked, so the
# same address in several properties piled up on one probe path and
# hundreds of slices were refused.
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lib/bad_free.vigil specs/lib/double_free.vigil \
	specs/lib/realloc.vigil specs/lib/leak.vigil -- "$TARGETS/heap"
expect_rc 0
expect_out "heap: 5000 blocks, all freed"
for p in double_free realloc_stale leak; do
	expect_out "^vigil: $p: kernel tier$"
done
# (bad_free asks the object map, which the in-process agent keeps)
expect_out "^vigil: bad_free: kernel tier \(in-process"
expect_no_out "refused|inconclusive|table full|VIOLATION|nonaccepting"
expect_out "^vigil: stats: .* after:malloc=5000 "
expect_out "^vigil: stats: .* before:free=5000( |$)"

# --max-slices N holds N slices: the 15000 here fit in a table sized for
# 16000 (a probe path of 8 slots refused ~200 of them, and 2 now and
# then at the default size). 10000 are double_free's and leak's; bad_free
# makes none (the object map decides), but its free's transition from
# the initial state (to bad_free) has each freed address take a slot,
# which stays in the initial state: 5000 more in the table
run_vigil run --max-slices 16000 specs/lib/bad_free.vigil \
	specs/lib/double_free.vigil specs/lib/realloc.vigil \
	specs/lib/leak.vigil -- "$TARGETS/heap"
expect_rc 0
expect_out "^vigil: stats: .* slices created=10000 "
expect_no_out "refused|inconclusive|table full|VIOLATION|nonaccepting"
echo ok
