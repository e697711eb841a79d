# A thread's exit hands the blocks left in its tcache back with free
# (glibc's __libc_thread_freeres, then tcache_thread_shutdown): blocks the
# program freed already, and the tcache itself, which malloc never
# returned. The memory specs leave those frees out (`outside
# __libc_thread_freeres`): a correct threaded program (4 producers and 2
# consumers, C++ threads) is no double free, no bad free and no use after
# free, in-process and with uprobes alike; and a real double free is still
# one.
. "$(dirname "$0")/lib.sh"

for opt in --fast=hot --no-fast; do
	for spec in double_free bad_free use_after_free; do
		run_vigil run $opt --on-violation=continue specs/lib/$spec.vigil -- \
			"$TARGETS/cxxthreads" clean
		expect_rc 0
		expect_out "^cxxthreads: done"
		expect_out "ERROR SUMMARY: 0 errors"
	done
	# the frees at a thread's exit were seen, and left out: without the
	# clause, they are the double frees above
	sed 's/ outside __libc_thread_freeres//' specs/lib/double_free.vigil >"$TMP/df.vigil"
	run_vigil run $opt --on-violation=continue "$TMP/df.vigil" -- "$TARGETS/cxxthreads" clean
	expect_out "ERROR SUMMARY: [1-9][0-9]* errors?: double_free.double_free="
	run_vigil run $opt specs/lib/double_free.vigil -- "$TARGETS/allocs" --double-free
	expect_rc 1
	expect_out "VIOLATION of double_free"
	pid=$(stopped_pid)
	[ -n "$pid" ] && kill -KILL "$pid"
done
# an outside function the program lacks (a machine without libc6-dbg's
# symbols lacks __libc_thread_freeres) is a warning at the clause, one
# for the function, and the clause leaves nothing out
sed 's/outside __libc_thread_freeres/outside no_such_function_here/' \
	specs/lib/double_free.vigil >"$TMP/df.vigil"
run_vigil run --on-violation=continue "$TMP/df.vigil" -- "$TARGETS/allocs"
expect_rc 0
[ "$(grep -c "df.vigil:[0-9]*:[0-9]*: warning: outside no_such_function_here: function 'no_such_function_here' not found in .*; the clause leaves nothing out" "$TMP/out")" = 1 ] ||
	fail "not one warning for the function"
expect_out "ERROR SUMMARY: 0 errors"
echo "lib_thread_exit: ok"
