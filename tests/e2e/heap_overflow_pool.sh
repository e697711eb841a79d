# specs/lib/heap_overflow.vigil on a program's own allocator
# (tests/targets/pool_overflow.c: my_alloc carves 32-byte blocks from one
# malloc'd slab, my_free puts them back). An overflow of a pool block into
# its neighbour stays inside the slab: without -D the object map knows only
# the slab and misses it; with -D alloc=my_alloc -D release=my_free the
# pool block is the object there (the innermost), in the default
# in-process tier and in the user tier (--no-fast), for a block at the
# slab's own start too; blocks released and given out again are quiet,
# and so is a slab freed whole and malloc'd again, its pool blocks gone.
# lint: the default plan is the one without the parameters (the same
# probes), and -D adds my_alloc and my_free, in-process.
. "$(dirname "$0")/lib.sh"

SPEC=specs/lib/heap_overflow.vigil
POOL=(-D alloc=my_alloc -D release=my_free)
unset VIGIL_FAST

# the default: the $alloc/$release lines are malloc's and free's, no
# other probe, no warning of a transition that cannot fire
run_vigil lint "$SPEC" --binary "$TARGETS/pool_overflow"
expect_rc 0
expect_out "^1 property, 0 warnings$"
expect_no_out "my_alloc|my_free"
expect_out "^heap_overflow: kernel tier \(in-process"
run_vigil lint "${POOL[@]}" "$SPEC" --binary "$TARGETS/pool_overflow"
expect_rc 0
expect_out "^1 property, 0 warnings$"
expect_out "^  in-process after my_alloc: [^ ]*pool_overflow\+0x[0-9a-f]+, at its return \(the spec's fast\), reads return value$"
expect_out "^  in-process before my_free: [^ ]*pool_overflow\+0x[0-9a-f]+, at its entry \(the spec's fast\), reads p$"
expect_out "^heap_overflow: kernel tier \(in-process"

# without -D: the copy fits the slab, the only block the map knows
run_vigil run "$SPEC" -- "$TARGETS/pool_overflow" --overflow
expect_rc 0
expect_out "pool_overflow: survived --overflow"
expect_no_out "VIOLATION"
expect_out "ERROR SUMMARY: 0 errors"

# check_pool FLAG [vigil options]: the copy of 40 bytes into a 32-byte
# pool block is stopped before memcpy stores a byte
check_pool() {
	local flag=$1
	shift
	run_vigil run "$@" "${POOL[@]}" "$SPEC" -- "$TARGETS/pool_overflow" "$flag"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "state  ok -> overflow \(violation\)"
	expect_out "event  before mem(cpy|move)\(0x[0-9a-f]+ \(block of 32 bytes from my_alloc, \+0\), 0x[0-9a-f]+ \(static src[.0-9]*\[64\] in pool_overflow.c\), 40\)"
	expect_out "vars   len=40 room=32 over=8 at=0x[0-9a-f]+ \(block of 32 bytes from my_alloc, \+0\)$"
	expect_out "range  \[0x[0-9a-f]+, 0x[0-9a-f]+\): 40 bytes at block of 32 bytes from my_alloc, \+0: 32 fit, 8 past its end$"
	expect_out "ERROR SUMMARY: 1 error: heap_overflow.overflow=1"
	expect_no_out "pool_overflow: survived"
	[ "$(proc_state "$pid")" = T ] || fail "$flag $*: target not stopped"
	kill -KILL "$pid"
}

# the default tier: in the target, on the agent's object map
check_pool --overflow
expect_out "heap_overflow: kernel tier \(in-process"
expect_out "target pid [0-9]+ is stopped at the call of memcpy, .*\(the in-process tier"
# the first block, at the slab's start: both are filed, the pool block
# answers
check_pool --first
# the user tier, on vigil's map; the probe holds the call
check_pool --overflow --no-fast
expect_out "heap_overflow: user tier because line [0-9]+: uses valid\(\)"
expect_out "target pid [0-9]+ is stopped at this event"
check_pool --first --no-fast

# a pool dropped whole (its slab freed, no block released) and the slab
# malloc'd again: the copy over where its blocks were is inside the new
# block. The pool blocks go with the slab, looked for by their keys in the
# agent's map, or for a slab of 512 KB (too many granules) not believed
# there any more; exactly in the user tier's.
for FAST in "" --no-fast; do
	for flag in --drop --drop-big; do
		run_vigil run $FAST "${POOL[@]}" "$SPEC" -- "$TARGETS/pool_overflow" $flag
		pid=$(stopped_pid)
		[ -n "$pid" ] && LEFT_PIDS+=("$pid")
		expect_rc 0
		expect_out "pool_overflow: slab reused"
		expect_out "pool_overflow: dropped done"
		expect_no_out "VIOLATION"
		expect_out "ERROR SUMMARY: 0 errors"
	done
done

# blocks filled whole, released and given out again (the allocator
# writes its free list into them): no violation in either tier
for FAST in "" --no-fast; do
	run_vigil run $FAST "${POOL[@]}" "$SPEC" -- "$TARGETS/pool_overflow"
	expect_rc 0
	expect_out "pool_overflow: clean done"
	expect_no_out "VIOLATION"
	expect_out "ERROR SUMMARY: 0 errors"
	expect_out "^vigil: stats: .*after:my_alloc=24 before:my_free=24( |$)"
done
echo ok
