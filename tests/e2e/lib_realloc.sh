# specs/lib/realloc.vigil on tests/targets/reallocs.c: quiet on the clean
# run (a buffer that grows by realloc, moving 6 times, its old addresses
# handed out again by malloc and freed; a growth and a shrink in place),
# with exact per-probe counts; free and realloc of the pointer a realloc moved away
# from, each stopped at the call in the kernel tier, before glibc aborts.
# And specs/lib/use_after_free.vigil, which arms its watchpoint on the
# block a moving realloc released: a write through the old pointer stops
# the target in the function that wrote.
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lib/realloc.vigil -- "$TARGETS/reallocs"
expect_rc 0
expect_out "realloc_stale: kernel tier"
expect_out "reallocs: done, 9 reallocs, buffer moved 6 times"
expect_no_out "VIOLATION|nonaccepting|inconclusive"
for c in before:realloc=9 after:realloc=9 after:malloc=16 before:free=17; do
	expect_out "^vigil: stats: .* $c( |$)"
done
# 9 slices, one per realloc: 2 back to idle at once (in place), 6 moved
# away from and handed out again by malloc (back to idle), the record's
# old address still released
expect_out "realloc_stale: live slices by state: idle=0 released=1 "
expect_out "slices created=9 freed=8 live=1 "

check_stop() {	# $1 flag, $2 violation state, $3 function at frame 0
	run_vigil run specs/lib/realloc.vigil -- "$TARGETS/reallocs" "$1"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "VIOLATION of realloc_stale"
	expect_out "state  released -> $2 \(violation\)"
	expect_no_out "reallocs: done"
	# the slice is the old pointer, the first realloc's argument
	slice=$(sed -nE 's/^  slice  p=(0x[0-9a-f]+)$/\1/p' "$TMP/out")
	expect_out "event  before $3\($slice(, [0-9]+)?\) in tid $pid$"
	[ "$(proc_state "$pid")" = T ] || fail "$1: target not stopped"
	gdb_handoff "-ex bt"
	expect_frame 0 "$3" "$1: not stopped in $3"
	kill -KILL "$pid"
}
check_stop --stale-free stale_free free
check_stop --stale-realloc stale_realloc realloc

# writes: use_after_free.vigil
if ! has_debug_regs; then
	run_vigil run --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/reallocs" --stale-write
	expect_rc 0
	expect_blind
	expect_out "reallocs: done"
	expect_no_out "VIOLATION"
	skip debug_regs "$WHY"
fi
if ! has_sound_debug_regs; then
	# an old hit reported again could be taken for an access after free:
	# vigil says so, the stale write is still caught, with its slice
	# marked as maybe not real
	run_vigil run --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/reallocs" --stale-write
	pid=$(stopped_pid)
	[ -n "$pid" ] && kill -KILL "$pid"
	expect_rc 1
	expect_stale
	expect_out "VIOLATION of use_after_free"
	expect_out "the violation may not be real"
	skip sound_debug_regs "$WHY"
fi
run_vigil run --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/reallocs"
expect_rc 0
expect_out "reallocs: done"
expect_no_out "VIOLATION"
expect_out "^vigil: stats: .* before:realloc=9( |$)"

run_vigil run --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/reallocs" --stale-write
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "state  freed -> use_after_free \(violation\)"
expect_out "event  access \*p @ span outside malloc, free, calloc, realloc, __libc_thread_freeres: .* at 0x[0-9a-f]+8 in tid $pid$"
expect_out "vars   size=32 span=32$"
expect_no_out "reallocs: done"
[ "$(proc_state "$pid")" = T ] || fail "--stale-write: target not stopped"
gdb_handoff "-ex bt"
expect_frame 0 " bump \(r=.*\) at .*reallocs.c" "--stale-write: not stopped in bump"
expect_frame 1 " main " "--stale-write: not stopped in bump"
kill -KILL "$pid"
echo ok
