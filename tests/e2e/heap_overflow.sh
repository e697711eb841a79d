# specs/lib/heap_overflow.vigil on tests/targets/heapov.c: each overflow
# found at the call, the target stopped there before the call writes
# (the next block's header intact), the object and the overrun in the
# report: memcpy of 100 into a malloc(50) block, 2 into a 1-byte block,
# 80 into the global table[64], snprintf told 200 of a 50-byte block, a
# write starting 8 bytes before a block (between heap blocks), strcpy of
# a 255-byte string into 100 bytes, 48 into posix_memalign's 40, read(2)
# of 100 into 50; memcmp reading 60 of a 40-byte block; a global and a
# static named as objects (global table[64], static buf[32] in heapov.c,
# +8), the static from .symtab, from DWARF in a copy without .symtab and
# from a debug file beside a stripped copy; the range the call would
# touch, in text and JSON; under --interactive, gdb's stop message says
# the object and the overrun.
. "$(dirname "$0")/lib.sh"

SPEC=specs/lib/heap_overflow.vigil

# check_stop FLAG CALL OBJECT LEN ROOM
check_stop() {
	run_vigil run "$SPEC" -- "$TARGETS/heapov" "$1"
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
# the bytes it would touch, from the pointer checked (at), the object
# and the overrun
expect_out "vars   len=100 room=50 over=50 at=0x[0-9a-f]+ \(block of 50 bytes from malloc, \+0\)$"
expect_out "range  \[0x[0-9a-f]+, 0x[0-9a-f]+\): 100 bytes at block of 50 bytes from malloc, \+0: 50 fit, 50 past its end$"
# 1 MB past a 1 MB block (glibc maps it apart from the heap)
check_stop --big "mem(cpy|move)" " \(block of 1048576 bytes from malloc, \+0\)" 2097152 1048576
expect_out "heap_overflow: user tier because line [0-9]+: uses valid\(\): the object map is in user space"
# stopped at the call's first instruction, called from main: the copy has
# not run, so the header of the chunk after the block (dst + 56: 50
# rounded up to malloc's 64-byte chunk, less its own 8-byte header) is
# not yet the source's 'y' bytes
gdb_handoff "-ex bt -ex 'x/gx \$rdi+56'"
cat "$TMP/gdb"
# gdb's line at the hand-off: the violation, the block and the overrun
grep -qE "^vigil: heap_overflow entered state overflow at before mem(cpy|move): \[0x[0-9a-f]+, 0x[0-9a-f]+\): 2097152 bytes at block of 1048576 bytes from malloc, \+0: 1048576 fit, 1048576 past its end$" "$TMP/gdb" ||
	fail "gdb's line at the hand-off does not name the block and the overrun"
expect_frame 0 "mem(cpy|move)" "--memcpy: not stopped in memcpy"
expect_frame 1 "main" "--memcpy: main is not the caller"
grep -qE "0x[0-9a-f]+:\s+0x[0-9a-f]+" "$TMP/gdb" || { cat "$TMP/gdb"; fail "gdb did not read the next chunk's header"; }
! grep -q "0x7979797979797979" "$TMP/gdb" || { cat "$TMP/gdb"; fail "the next chunk's header was overwritten"; }
kill -KILL "$pid"

# --stacks: the block named by its allocation's caller
run_vigil run --stacks "$SPEC" -- "$TARGETS/heapov" --memcpy
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "event  before mem(cpy|move)\(0x[0-9a-f]+ \(block of 50 bytes from make_buf at heapov.c:[0-9]+, \+0\), 0x[0-9a-f]+, 100\)"
kill -KILL "$pid"

check_stop --one "mem(cpy|move)" " \(block of 1 bytes from malloc, \+0\)" 2 1
kill -KILL "$pid"
# a global, named as the object it is (an address elsewhere: &table)
check_stop --global "mem(cpy|move)" " \(global table\[64\]\)" 80 64
expect_out "range  \[0x[0-9a-f]+, 0x[0-9a-f]+\): 80 bytes at global table\[64\]: 64 fit, 16 past its end$"
kill -KILL "$pid"
# a static, 8 bytes into it: .symtab's local symbol, and its file
check_stop --static "mem(cpy|move)" " \(static buf\[32\] in heapov.c, \+8\)" 40 24
expect_out "range  \[0x[0-9a-f]+, 0x[0-9a-f]+\): 40 bytes at static buf\[32\] in heapov.c, \+8: 24 fit, 16 past its end$"
kill -KILL "$pid"
check_stop --snprintf snprintf " \(block of 50 bytes from malloc, \+0\)" 200 50
kill -KILL "$pid"
# 8 bytes before the block: the heap, in no block (room 0)
check_stop --before "mem(cpy|move)" "" 16 0
expect_out "range  \[0x[0-9a-f]+, 0x[0-9a-f]+\): 16 bytes in no live object: all 16 outside$"
kill -KILL "$pid"
# posix_memalign's block (glibc serves a 16-byte alignment with malloc)
check_stop --aligned "mem(cpy|move)" " \(block of 40 bytes from malloc, \+0\)" 48 40
kill -KILL "$pid"
check_stop --read read " \(block of 50 bytes from malloc, \+0\)" 100 50
kill -KILL "$pid"
# a read past the end: memcmp's second buffer
run_vigil run "$SPEC" -- "$TARGETS/heapov" --memcmp
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

# The static without .symtab: from DWARF, in the binary (its symbols
# stripped, its debug sections kept) and in a debug file beside a copy
# stripped of everything (.gnu_debuglink); the file from DWARF's unit.
mkdir -p "$TMP/nosym" "$TMP/dbg" "$TMP/nodebug"
cp "$TARGETS/heapov" "$TMP/nosym/heapov"
strip --strip-all --keep-section='.debug_*' "$TMP/nosym/heapov"
cp "$TARGETS/heapov" "$TMP/dbg/heapov"
objcopy --only-keep-debug "$TMP/dbg/heapov" "$TMP/dbg/heapov.debug"
strip --strip-all "$TMP/dbg/heapov"
objcopy --add-gnu-debuglink="$TMP/dbg/heapov.debug" "$TMP/dbg/heapov"
for bin in nosym dbg; do
	readelf -S "$TMP/$bin/heapov" | grep -q '\.symtab' && fail "$bin: the copy still has .symtab"
	VIGIL_DEBUG_DIR="$TMP/nodebug" run_vigil run "$SPEC" -- "$TMP/$bin/heapov" --static
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "event  before mem(cpy|move)\(0x[0-9a-f]+ \(static buf\[32\] in heapov.c, \+8\), 0x[0-9a-f]+, 40\)"
	expect_out "vars   len=40 room=24 over=16"
	kill -KILL "$pid"
done

# JSON: the range as numbers, the pointer and the object named
run_vigil run --json "$TMP/v.json" "$SPEC" -- "$TARGETS/heapov" --global
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
kill -KILL "$pid"
python3 - "$TMP/v.json" <<'PY' || fail "the JSON report lacks the range"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1]) if '"violation"' in l][0]
r = v["range"]
assert (r["len"], r["room"], r["over"]) == (80, 64, 16), r
assert r["object"] == "global table[64]", r
assert r["at"] == v["event"]["args"][0], (r, v["event"])
assert r["text"].endswith("80 bytes at global table[64]: 64 fit, 16 past its end"), r
assert v["names"]["at"] == "global table[64]", v["names"]
PY

# --interactive: the stop gdb announces names the block and the overrun
start_live run --interactive "$SPEC" -- "$TARGETS/heapov" --memcpy
live_gdb "-ex continue -ex kill"
grep -qE "^vigil: heap_overflow entered state overflow at before mem(cpy|move): \[0x[0-9a-f]+, 0x[0-9a-f]+\): 100 bytes at block of 50 bytes from malloc, \+0: 50 fit, 50 past its end$" "$TMP/gdb" ||
	fail "gdb's stop message does not name the block and the overrun"
grep -qE "^range     \[0x[0-9a-f]+, 0x[0-9a-f]+\): 100 bytes at block of 50 bytes from malloc" "$TMP/gdb" ||
	fail "the violation gdb shows has no range"
wait_vigil
echo ok
