# specs/lib/use_after_free.vigil on tests/targets/uaf.c: the block freed by
# `free` gets a write watchpoint (its size from the calloc that returned
# it); the stale write stops the target at the writing instruction, and
# gdb's backtrace shows the function that wrote. glibc's own writes into
# freed blocks (its free lists, inside calloc when the block is handed
# out again) are not reported: `outside malloc, free, calloc, realloc, __libc_thread_freeres`.
. "$(dirname "$0")/lib.sh"

if ! has_debug_regs; then
	# the write after free is a plain store: nothing sees it, vigil says
	# so first, arms nothing, and the freed blocks end inconclusive
	run_vigil run --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/uaf" --bug
	expect_rc 0
	expect_blind
	expect_out "use_after_free: access \*p @ span"
	expect_out "uaf: sessions touched, bug=1"
	expect_no_out "VIOLATION|is left stopped"
	skip debug_regs "$WHY"
fi

run_vigil run --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/uaf" --bug
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of use_after_free"
expect_out "state  freed -> use_after_free"
expect_out "event  access \*p @ span outside malloc, free, calloc, realloc, __libc_thread_freeres: .* at 0x[0-9a-f]+"
expect_out "target pid [0-9]+ is stopped at this event"
[ "$(proc_state "$pid")" = T ] || fail "target not left stopped"
# where it stopped: in touch_session, the writer, called from main
timeout 60 gdb -p "$pid" -batch -x "/tmp/vigil-$(id -u)/gdb-$pid.gdb" -ex bt >"$TMP/gdb" 2>&1
cat "$TMP/gdb"
grep -qE "^#0 .* in touch_session \(s=0x[0-9a-f]+\) at .*uaf.c" "$TMP/gdb" || fail "gdb does not show touch_session at #0"
grep -qE "^#1 .* in main " "$TMP/gdb" || fail "gdb does not show main at #1"
kill -KILL "$pid" 2>/dev/null

# no bug: the freed block is handed out again by calloc, which writes its
# bookkeeping into it first
run_vigil run --watch-policy=evict specs/lib/use_after_free.vigil -- "$TARGETS/uaf"
expect_rc 0
expect_out "uaf: sessions touched, bug=0"
expect_out "use_after_free: live slices by state: .* use_after_free=0"
expect_no_out "VIOLATION"
echo ok
