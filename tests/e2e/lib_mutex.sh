# specs/lib/mutex.vigil: quiet on the clean target; each bug found, the
# kernel-tier ones with the target stopped at the bad call.
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lib/mutex.vigil -- "$TARGETS/locks"
expect_rc 0
expect_no_out VIOLATION
expect_out "mutex_discipline: kernel tier"
expect_out "locks: done"
# contention on one mutex, slices created and back to initial all the time:
# no lock timeout, no inconclusive verdict
expect_no_out "inconclusive|could not lock"

check_stop() {	# $1: flag, $2: state, $3: function at frame 0
	run_vigil run specs/lib/mutex.vigil -- "$TARGETS/locks" "$1"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "state  held -> $2"
	[ "$(proc_state "$pid")" = T ] || fail "$1: target not stopped"
	expect_no_out "second lock returned|locks: done"	# stopped first
	# (the gdb command file lets the target run on once gdb detaches)
	gdb_handoff "-ex bt"
	# the function itself (___pthread_mutex_unlock), not the callee
	# of its tail jmp (__GI___pthread_mutex_unlock_usercnt), where the
	# stop takes effect before the gdb file puts the thread back
	expect_frame 0 "[ _]$3 \\(" "$1: not stopped in $3"
	kill -KILL "$pid"
}
check_stop --wrong-thread wrong_thread 'pthread_mutex_unlock'
check_stop --double-lock self_deadlock 'pthread_mutex_lock'

run_vigil run specs/lib/mutex.vigil -- "$TARGETS/locks" --exit-held
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of mutex_held_at_exit"
expect_out "state  held -> exited_holding"

# a real program: xz -T2's threads wait on condition variables with a
# timeout (pthread_cond_timedwait releases and retakes the mutex in libc)
seq 1 400000 >"$TMP/in"
echo "+ vigil run specs/lib/mutex.vigil -- xz -0 -T2 -c in"
"$VIGIL" run specs/lib/mutex.vigil -- xz -0 -T2 -c "$TMP/in" >"$TMP/in.xz" 2>"$TMP/out"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_no_out VIOLATION
expect_out "before:pthread_cond_timedwait=[1-9]"
xz -dc "$TMP/in.xz" | cmp - "$TMP/in" || fail "xz output does not decompress to its input"
