# Memory predicates in the in-process tier: tests/specs/heap_overflow_fast.
# vigil (heap_overflow's property on snprintf and read, which the tier
# can patch) on tests/targets/heapfast.c. By default every function of
# the property is patched, so it runs in the kernel tier inside the
# target: the agent files the blocks in its object map and answers
# valid() at the call, and the violating call stops before its first
# instruction. With --no-fast the same findings come from the kernel
# tier in the BPF probes, with their own object map (bpf/kmem.bpf.h),
# which stop the call at its uprobe. The object named, the overrun; the heap between blocks, a
# freed block, a global, strdup's, realloc's and posix_memalign's blocks;
# a stack buffer unknown (inconclusive, never a violation); a process
# attached to, whose earlier blocks are unknown (with --no-fast, in the
# user tier: the probes' map never saw its heap). And lint says which
# tier and why, for specs/lib/heap_overflow.vigil too (glibc's memcpy
# cannot be patched: it stays in the user tier).
. "$(dirname "$0")/lib.sh"

SPEC=tests/specs/heap_overflow_fast.vigil
unset VIGIL_FAST

run_vigil lint --binary "$TARGETS/heapfast" "$SPEC"
expect_rc 0
expect_out "^heap_overflow_fast: kernel tier \(in-process: every function it uses is patched, and the agent's object map answers its memory predicates\)"
expect_out "property heap_overflow_fast: kernel tier \(in-process, with the agent's object map\)"
run_vigil lint --no-fast --binary "$TARGETS/heapfast" "$SPEC"
expect_out "^heap_overflow_fast: kernel tier \(in the BPF probes: --no-fast, and the kernel tier's object map answers its memory predicates\)$"
expect_out "property heap_overflow_fast: kernel tier \(in the BPF probes, with their object map\)"
# and in the user tier when asked
run_vigil lint --no-fast --tier=user --binary "$TARGETS/heapfast" "$SPEC"
expect_out "^heap_overflow_fast: user tier: not kernel because --tier=user$"
# the library spec: every call of it patched (memmove past its first two
# instructions), so in-process; with fewer functions asked for, not
run_vigil lint --binary "$TARGETS/heapov" specs/lib/heap_overflow.vigil
expect_out "^heap_overflow: kernel tier \(in-process: every function it uses is patched, and the agent's object map answers its memory predicates\)"
run_vigil lint specs/lib/heap_overflow.vigil --binary "$TARGETS/heapov" --fast malloc,free
expect_out "^heap_overflow: user tier: not kernel because line [0-9]+: uses valid\(\): the object map is in user space; not all its functions are patched: "
# --stacks: the agent takes no user stack
run_vigil run --stacks "$SPEC" -- "$TARGETS/heapfast"
expect_out "heap_overflow_fast: user tier because line [0-9]+: uses valid\(\): the object map is in user space; not all its functions are patched: [a-z_]+ \(.*user stack"

# freeable(p) at free asks about the block before the call frees it
cat >"$TMP/frees.vigil" <<'EOF'
fast snprintf
property frees "frees are of live blocks"
state ok accepting {
  after malloc(size) returns p -> ok
  after calloc(n, size) returns p -> ok
  after realloc(old, size) returns p -> ok
  after posix_memalign(*p, align, size) returns rc when rc == 0 && p != 0 -> ok
  after strdup(s) returns p -> ok
  before free(p) when p != 0 && !freeable(p) -> bad
}
state bad violation {}
EOF

for FAST in "" --no-fast; do
	echo "=== ${FAST:-the default}"
	run_vigil run $FAST "$TMP/frees.vigil" -- "$TARGETS/heapfast"
	expect_rc 0
	expect_out "heapfast: good done"
	expect_no_out "VIOLATION"
	if [ -z "$FAST" ]; then
		TIER="kernel tier \(in-process"
		WHERE="is stopped at the call of [a-z]+, before its first instruction"
		ATTACH_TIER=$TIER
	else
		TIER="kernel tier \(in the BPF probes: --no-fast"
		# at the call where the kernel lets the probe move the thread
		# back to it, else just past its first instruction
		WHERE="is stopped (at the call of [a-z]+|after [a-z]+'s first instruction)"
		ATTACH_TIER="user tier because line [0-9]+: uses valid\(\): the object map is in user space; attached to a running process"
	fi

	# check_stop FLAG CALL OBJECT LEN ROOM
	check_stop() {
		run_vigil run $FAST "$SPEC" -- "$TARGETS/heapfast" "$1"
		pid=$(stopped_pid)
		[ -n "$pid" ] && LEFT_PIDS+=("$pid")
		expect_rc 1
		expect_out "heap_overflow_fast: $TIER"
		expect_out "state  ok -> overflow \(violation\)"
		expect_out "event  before $2\(([0-9]+, )?0x[0-9a-f]+$3, [0-9]+\)"
		expect_out "vars   len=$4 room=$5 over=$(($4 - $5))"
		expect_out "target pid [0-9]+ $WHERE"
		expect_no_out "heapfast: survived"
		[ "$(proc_state "$pid")" = T ] || fail "$1: target not stopped"
	}

	check_stop --heap snprintf " \(block of 50 bytes from malloc, \+0\)" 200 50
	# stopped at the call, from main: gdb's backtrace
	gdb_handoff "-ex bt"
	expect_frame 0 "snprintf" "--heap: not stopped in snprintf"
	expect_frame 1 "main" "--heap: main is not the caller"
	kill -KILL "$pid"
	check_stop --global snprintf " \(global table\[64\]\)" 80 64
	kill -KILL "$pid"
	# 8 bytes before a block: the heap, in no block (room 0)
	check_stop --before snprintf "" 16 0
	kill -KILL "$pid"
	check_stop --aligned snprintf " \(block of 40 bytes from posix_memalign, \+0\)" 48 40
	kill -KILL "$pid"
	# (the user tier does not know strdup's size; the agent measures it)
	check_stop --strdup snprintf " \(block (of 6 bytes )?from strdup, \+0\)" 7 6
	kill -KILL "$pid"
	check_stop --realloc snprintf " \(block of 30 bytes from realloc, \+0\)" 50 30
	kill -KILL "$pid"
	check_stop --freed snprintf "" 10 0
	kill -KILL "$pid"
	check_stop --read read " \(block of 50 bytes from malloc, \+0\)" 100 50
	kill -KILL "$pid"

	# inside every object: no violation; the stack buffer's calls unknown
	run_vigil run $FAST "$SPEC" -- "$TARGETS/heapfast"
	expect_rc 0
	expect_out "heap_overflow_fast: $TIER"
	expect_out "heapfast: good done"
	expect_no_out "VIOLATION"
	expect_out "heap_overflow_fast: 100 slices went back to the initial state inconclusive"
	expect_out "heap_overflow_fast: 100 events not checked: a memory predicate was unknown"
	expect_out "ERROR SUMMARY: 0 errors; 100 slices inconclusive"
	run_vigil run $FAST "$SPEC" -- "$TARGETS/heapfast" --stack
	expect_rc 0
	expect_out "heapfast: survived --stack"
	expect_no_out "VIOLATION"
	# a map of one block: what it could not hold is unknown, never a
	# violation
	run_vigil run $FAST --max-objects 1 "$SPEC" -- "$TARGETS/heapfast"
	expect_rc 0
	expect_out "heapfast: good done"
	expect_no_out "VIOLATION"

	# attached: the block allocated before is unknown, a new one checked
	"$TARGETS/heapfast" --wait >"$TMP/target.out" 2>&1 &
	tpid=$!
	LEFT_PIDS+=("$tpid")
	wait_for "$TMP/target.out" "heapfast: ready"
	"$VIGIL" attach $FAST "$SPEC" -p "$tpid" >"$TMP/out" 2>&1 &
	vpid=$!
	LEFT_PIDS+=("$vpid")
	wait_for "$TMP/out" "heap_overflow_fast: (kernel|user) tier"
	[ -z "$FAST" ] && wait_for "$TMP/out" "in-process tier: [0-9]+ functions? patched"
	sleep 1
	kill -USR1 "$tpid"
	wait "$vpid"
	RC=$?
	cat "$TMP/target.out" "$TMP/out"
	expect_rc 1
	grep -q "heapfast: the old block passed" "$TMP/target.out" ||
		fail "attached: the block allocated before the attach was taken for a violation"
	expect_out "heap_overflow_fast: $ATTACH_TIER"
	expect_out "vars   len=200 room=50 over=150"
	expect_out "1 event not checked: a memory predicate was unknown"
	kill -KILL "$tpid"
done
echo ok
