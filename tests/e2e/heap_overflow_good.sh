# specs/lib/heap_overflow.vigil on tests/targets/heapov.c's good run:
# 200 rounds of memcpy, memmove and snprintf inside heap blocks and the
# global table[64], none a violation (nor realloc's own copy into the
# block it moves to, which malloc has not returned yet); the copies from and into a stack
# buffer (memory vigil does not know) are unknown, so inconclusive, never
# a violation. And a program whose only copy is into a stack buffer.
# memset: calloc's own, and many in-bounds (where memset can be probed).
. "$(dirname "$0")/lib.sh"

SPEC=specs/lib/heap_overflow.vigil

run_vigil run "$SPEC" -- "$TARGETS/heapov"
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
# for, so no call is held: each is checked after the fact. By default
# the in-process tier takes them all (memset too, whatever its first
# instruction).
"$VIGIL" run --on-violation=continue "$SPEC" -- "$TARGETS/heapov" --many 1000000 \
	>"$TMP/out" 2>&1
RC=$?
tail -4 "$TMP/out"
expect_rc 0
expect_out "^heapov: many done 1000000 "
expect_out "^vigil: stats: .* lost=0 "
expect_out "^vigil: stats: .* before:memcpy=1000000( |$)"
expect_no_out "VIOLATION"
expect_out "ERROR SUMMARY: 0 errors$"
# the same by uprobes (fewer): where memset starts with a vector
# instruction it is not seen, and the property says so (heap_overflow.sh)
if vector_entry "$TARGETS/heapov" memset; then
	UNSEEN="; 1 slice inconclusive \(before memset in libc\.so\.6 cannot be probed on this machine\)"
else
	UNSEEN=""
fi
"$VIGIL" run --no-fast --on-violation=continue "$SPEC" -- "$TARGETS/heapov" --many 20000 \
	>"$TMP/out" 2>&1
RC=$?
tail -4 "$TMP/out"
expect_rc 0
expect_out "^heapov: many done 20000 "
expect_out "^vigil: stats: .* lost=0 "
expect_no_out "VIOLATION"
expect_out "ERROR SUMMARY: 0 errors$UNSEEN$"

# no call held: the last write (printf's, from its buffer on the stack)
# is checked after the program has ended, whose maps then read empty:
# unknown, not "in no mapping" (it was a false overread)
"$VIGIL" run --on-violation=continue "$SPEC" -- "$TARGETS/heapov" >"$TMP/out" 2>&1
RC=$?
tail -3 "$TMP/out"
expect_rc 0
expect_out "heapov: good done"
expect_no_out "VIOLATION"

run_vigil run "$SPEC" -- "$TARGETS/heapov" --stack
expect_rc 0
expect_out "heapov: survived --stack"
expect_no_out "VIOLATION"
expect_out "ERROR SUMMARY: 0 errors; [0-9]+ slices? inconclusive"
# a map of one block: the others are not held, so what falls in them is
# unknown, never a violation; the overflow into the one it holds is still
# found
run_vigil run --max-objects 1 "$SPEC" -- "$TARGETS/heapov"
expect_rc 0
expect_out "heapov: good done"
expect_no_out "VIOLATION"
run_vigil run --max-objects 1 "$SPEC" -- "$TARGETS/heapov" --memcpy
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "vars   len=100 room=50 over=50"
kill -KILL "$pid"

# memset where it can be probed (AVX masked for glibc's choice, as in
# heap_overflow.sh): calloc's own memset, into a block calloc has not
# returned yet, is not a violation (each good round callocs a block large
# enough for glibc to clear it with memset), nor free's and malloc's
# under MALLOC_PERTURB_; nor 100000 memsets inside a heap block
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-AVX512F,-AVX512VL,-AVX512BW,-AVX
if vector_entry "$TARGETS/heapov" memset; then
	echo "ok (memset starts with a vector instruction even so: $WHY; not checked)"
	exit 0
fi
MALLOC_PERTURB_=85 run_vigil run --on-violation=continue "$SPEC" -- "$TARGETS/heapov"
expect_rc 0
expect_out "heapov: good done"
expect_no_out "VIOLATION|warning: before memset"
expect_out "^vigil: stats: .* after:calloc=200( |$)"
# the program's 200, calloc's and the allocator's own (left out)
expect_out "^vigil: stats: .* before:memset=([4-9][0-9][0-9]|[0-9]{4,})( |$)"
expect_out "ERROR SUMMARY: 0 errors"
"$VIGIL" run --on-violation=continue "$SPEC" -- "$TARGETS/heapov" --memsets 100000 \
	>"$TMP/out" 2>&1
RC=$?
tail -4 "$TMP/out"
expect_rc 0
expect_out "^heapov: memsets done 100000 "
expect_out "^vigil: stats: .* lost=0 "
expect_out "^vigil: stats: .* before:memset=101000( |$)"
expect_no_out "VIOLATION"
expect_out "ERROR SUMMARY: 0 errors"
unset GLIBC_TUNABLES
echo ok
