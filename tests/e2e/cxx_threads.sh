# C++ threads and locks (std::thread, std::mutex, std::lock_guard,
# std::unique_lock, std::condition_variable wait and wait_for) through the
# pthread layer: specs/lib/mutex.vigil and lock_order.vigil quiet on a
# correct program, and each bug stopped, with C++ frames in gdb's bt.
. "$(dirname "$0")/lib.sh"

# wait_for is pthread_cond_clockwait: without it in mutex.vigil, the mutex
# a timed wait released and another thread took looked unlocked by the
# wrong thread
for tier in auto user; do
	run_vigil run --tier=$tier specs/lib/mutex.vigil specs/lib/lock_order.vigil -- "$TARGETS/cxxthreads" clean
	expect_rc 0
	expect_no_out VIOLATION
	expect_out "cxxthreads: done 802 800"
	expect_out "after:pthread_cond_clockwait=[1-9]"
	expect_out "before:pthread_mutex_lock=[1-9][0-9]{3}"
done

run_vigil run specs/lib/lock_order.vigil -- "$TARGETS/cxxthreads" inversion
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of lock_order"
expect_out "state  watching -> inversion"

run_vigil run specs/lib/mutex.vigil -- "$TARGETS/cxxthreads" wrong-thread
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "state  held -> wrong_thread"
[ "$(proc_state "$pid")" = T ] || fail "target not stopped"
gdb_handoff "-ex bt"
cat "$TMP/gdb"
expect_frame 0 "pthread_mutex_unlock" "not stopped in pthread_mutex_unlock"
# std::mutex::unlock (not inlined at -O1 -fno-inline), from the lambda a
# std::thread runs
expect_frame "[12]" "std::mutex::unlock" "std::mutex::unlock is not the caller"
grep -qE "^#[0-9]+ .*std::thread::_State_impl<.*main\(int, char\*\*\)::<lambda\(\)>" "$TMP/gdb" ||
	fail "the std::thread running the lambda is not in gdb's bt"
kill -KILL "$pid"
echo "cxx_threads: ok"
