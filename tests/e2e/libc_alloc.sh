# Functions in a shared library (libc malloc/free): exact per-probe counts,
# and a double free stopped inside free, before glibc aborts the process.
. "$(dirname "$0")/lib.sh"

for tier in kernel user; do
	run_vigil run --tier=$tier specs/lib/double_free.vigil -- "$TARGETS/allocs"
	expect_rc 0
	expect_out "^vigil: stats: .* after:malloc=1000 "
	expect_out "^vigil: stats: .* before:free=1000( |$)"
	expect_out "allocs: calls malloc=1000 free=1000"

	run_vigil run --tier=$tier specs/lib/double_free.vigil -- "$TARGETS/allocs" --double-free
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "state  freed -> double_free"
	expect_no_out "allocs: calls"	# it never finished
	if [ $tier = kernel ]; then
		# synchronous: the second free has not run, glibc has not aborted
		[ "$(proc_state "$pid")" = T ] || fail "target not stopped"
		gdb_handoff "-ex bt"
		cat "$TMP/gdb"
		expect_frame 0 free "not stopped in free"
		expect_frame 1 release "release() is not the caller"
		kill -KILL "$pid"
	fi
	# the user tier stops late: glibc may already have aborted on the
	# second free (docs/INTERNALS.md, two tiers)
done

# calloc and realloc hand freed addresses out again: each block is freed
# once, no double free may be reported (there was one per run when the
# property saw only malloc)
for tier in kernel user; do
	run_vigil run --tier=$tier specs/lib/double_free.vigil -- "$TARGETS/reuse"
	expect_rc 0
	expect_no_out VIOLATION
	for c in after:malloc=3200 after:calloc=3200 after:realloc=3200 before:free=6400; do
		expect_out "$c( |$)"
	done
done
