# specs/lib/heap_overflow.vigil on tests/targets/heapov.c's good run:
# 200 rounds of memcpy, memmove and snprintf inside heap blocks and the
# global table[64], none a violation (nor realloc's own copy into the
# block it moves to, which malloc has not returned yet); the copies from and into a stack
# buffer (memory vigil does not know) are unknown, so inconclusive, never
# a violation. And a program whose only copy is into a stack buffer.
. "$(dirname "$0")/lib.sh"

SPEC=specs/lib/heap_overflow.vigil
unset VIGIL_FAST

# by default (the in-process tier takes what it can: glibc's memcpy it
# cannot patch, so the property stays in the user tier, said why) and
# with every call on uprobes
for FAST in "" --no-fast; do
echo "=== ${FAST:-the default}"

	run_vigil run $FAST "$SPEC" -- "$TARGETS/heapov"
	expect_rc 0
	expect_out "heapov: good done"
	expect_no_out "VIOLATION"
	expect_out "ERROR SUMMARY: 0 errors"
	expect_out "^vigil: stats: .* after:malloc=433( |$)"
	expect_out "^vigil: stats: .* after:realloc=32( |$)"
	expect_out "^vigil: stats: .* before:snprintf=200( |$)"
	# three calls a round touch the stack buffers: unknown, each said
	expect_out "heap_overflow: [0-9]+ slices went back to the initial state inconclusive"
	expect_out "heap_overflow: [0-9]+ events not checked: a memory predicate was unknown"

	# a million copies between two heap blocks, every one inside both: no
	# false violation, and every check known (no inconclusive). No stop asked
	# for, so no call is held: the user tier checks each after the fact
	"$VIGIL" run $FAST --on-violation=continue "$SPEC" -- "$TARGETS/heapov" --many 1000000 \
		>"$TMP/out" 2>&1
	RC=$?
	tail -4 "$TMP/out"
	expect_rc 0
	expect_out "^heapov: many done 1000000 "
	expect_out "^vigil: stats: .* lost=0 "
	expect_out "^vigil: stats: .* before:memcpy=1000000( |$)"
	expect_no_out "VIOLATION"
	expect_out "ERROR SUMMARY: 0 errors$"

	# no call held: the last write (printf's, from its buffer on the stack)
	# is checked after the program has ended, whose maps then read empty:
	# unknown, not "in no mapping" (it was a false overread)
	"$VIGIL" run $FAST --on-violation=continue "$SPEC" -- "$TARGETS/heapov" >"$TMP/out" 2>&1
	RC=$?
	tail -3 "$TMP/out"
	expect_rc 0
	expect_out "heapov: good done"
	expect_no_out "VIOLATION"

	run_vigil run $FAST "$SPEC" -- "$TARGETS/heapov" --stack
	expect_rc 0
	expect_out "heapov: survived --stack"
	expect_no_out "VIOLATION"
	expect_out "ERROR SUMMARY: 0 errors; [0-9]+ slices? inconclusive"
	# a map of one block: the others are not held, so what falls in them is
	# unknown, never a violation; the overflow into the one it holds is still
	# found
	run_vigil run $FAST --max-objects 1 "$SPEC" -- "$TARGETS/heapov"
	expect_rc 0
	expect_out "heapov: good done"
	expect_no_out "VIOLATION"
	run_vigil run $FAST --max-objects 1 "$SPEC" -- "$TARGETS/heapov" --memcpy
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "vars   len=100 room=50 over=50"
	kill -KILL "$pid"
done
echo ok
