# specs/lib/heap_overflow.vigil on tests/targets/heapov.c: each overflow
# found at the call, the target stopped there before the call writes
# (the next block's header intact), the object and the overrun in the
# report: memcpy of 100 into a malloc(50) block, 2 into a 1-byte block,
# 80 into the global table[64], snprintf told 200 of a 50-byte block, a
# write starting 8 bytes before a block (between heap blocks), strcpy of
# a 255-byte string into 100 bytes, 48 into posix_memalign's 40, read(2)
# of 100 into 50; memcmp reading 60 of a 40-byte block.
. "$(dirname "$0")/lib.sh"

SPEC=specs/lib/heap_overflow.vigil
unset VIGIL_FAST

# by default (the in-process tier takes what it can: glibc's memcpy it
# cannot patch, so the property stays in the user tier, said why) and
# with every call on uprobes
for FAST in "" --no-fast; do
echo "=== ${FAST:-the default}"

	# check_stop FLAG CALL OBJECT LEN ROOM
	check_stop() {
		run_vigil run $FAST "$SPEC" -- "$TARGETS/heapov" "$1"
		pid=$(stopped_pid)
		[ -n "$pid" ] && LEFT_PIDS+=("$pid")
		expect_rc 1
		expect_out "VIOLATION of heap_overflow"
		expect_out "state  ok -> overflow \(violation\)"
		expect_out "event  before $2\(([0-9]+, )?0x[0-9a-f]+$3"
		expect_out "vars   len=$4 room=$5 over=$(($4 - $5))"
		expect_out "target pid [0-9]+ is stopped at this event"
		expect_no_out "heapov: survived"
		[ "$(proc_state "$pid")" = T ] || fail "$1: target not stopped"
	}

	check_stop --memcpy "mem(cpy|move)" " \(block of 50 bytes from malloc, \+0\)" 100 50
	# 1 MB past a 1 MB block (glibc maps it apart from the heap)
	check_stop --big "mem(cpy|move)" " \(block of 1048576 bytes from malloc, \+0\)" 2097152 1048576
	expect_out "heap_overflow: user tier because line [0-9]+: uses valid\(\): the object map is in user space"
	# stopped at the call's first instruction, called from main: the copy has
	# not run, so the header of the chunk after the block (dst + 56: 50
	# rounded up to malloc's 64-byte chunk, less its own 8-byte header) is
	# not yet the source's 'y' bytes
	gdb_handoff "-ex bt -ex 'x/gx \$rdi+56'"
	cat "$TMP/gdb"
	expect_frame 0 "mem(cpy|move)" "--memcpy: not stopped in memcpy"
	expect_frame 1 "main" "--memcpy: main is not the caller"
	grep -qE "0x[0-9a-f]+:\s+0x[0-9a-f]+" "$TMP/gdb" || { cat "$TMP/gdb"; fail "gdb did not read the next chunk's header"; }
	! grep -q "0x7979797979797979" "$TMP/gdb" || { cat "$TMP/gdb"; fail "the next chunk's header was overwritten"; }
	kill -KILL "$pid"

	# --stacks: the block named by its allocation's caller
	run_vigil run $FAST --stacks "$SPEC" -- "$TARGETS/heapov" --memcpy
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "event  before mem(cpy|move)\(0x[0-9a-f]+ \(block of 50 bytes from make_buf at heapov.c:[0-9]+, \+0\), 0x[0-9a-f]+, 100\)"
	kill -KILL "$pid"

	check_stop --one "mem(cpy|move)" " \(block of 1 bytes from malloc, \+0\)" 2 1
	kill -KILL "$pid"
	check_stop --global "mem(cpy|move)" " \(&table\)" 80 64
	kill -KILL "$pid"
	check_stop --snprintf snprintf " \(block of 50 bytes from malloc, \+0\)" 200 50
	kill -KILL "$pid"
	# 8 bytes before the block: the heap, in no block (room 0)
	check_stop --before "mem(cpy|move)" "" 16 0
	kill -KILL "$pid"
	# posix_memalign's block (glibc serves a 16-byte alignment with malloc)
	check_stop --aligned "mem(cpy|move)" " \(block of 40 bytes from malloc, \+0\)" 48 40
	kill -KILL "$pid"
	check_stop --read read " \(block of 50 bytes from malloc, \+0\)" 100 50
	kill -KILL "$pid"
	# a read past the end: memcmp's second buffer
	run_vigil run $FAST "$SPEC" -- "$TARGETS/heapov" --memcmp
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "state  ok -> overread \(violation\)"
	expect_out "event  before memcmp\(0x[0-9a-f]+, 0x[0-9a-f]+ \(block of 40 bytes from malloc, \+0\), 60\)"
	expect_out "vars   len=60 room=40 over=20"
	expect_no_out "heapov: memcmp"
	kill -KILL "$pid"
	check_stop --strcpy strcpy " \(block of 100 bytes from malloc, \+0\)" 256 100
	kill -KILL "$pid"
done
echo ok
