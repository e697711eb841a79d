# A live gdb session (vigil run --interactive, joined with gdb -batch): the
# program waits at its first instruction; three violations of
# queue_bounds, one per queue, each stop gdb with vigil's message and a
# backtrace starting at queue_push; `continue` resumes under monitoring;
# at the end vigil's probe counts equal the program's own; a `delete` of
# every breakpoint first does not take the stops away. Both tiers: a
# user-tier stop is held at its event under gdb as the kernel tier's is.
. "$(dirname "$0")/lib.sh"

violations_in_gdb() {
	start_live run --interactive --tier="$1" specs/queue_bounds.vigil -- "$TARGETS/queue3"
	# held at the first instruction: in the loader, before main
	[ "$(proc_state "$TARGET_PID")" = T ] || fail "$1 tier: the program is not waiting for gdb"
	live_gdb "-ex 'vigil status' -ex delete -ex continue -ex bt -ex continue -ex bt -ex continue -ex bt -ex continue"
	# `delete` with no number took vigil's catchpoint too: it comes back
	grep -q "catchpoint vigil's stops need was deleted; it is back" "$TMP/gdb" ||
		fail "$1 tier: the SIGSTOP catchpoint did not come back after delete"
	grep -q "in _start () from /lib64/ld-linux" "$TMP/gdb" || fail "$1 tier: gdb did not find the program at its first instruction"
	[ "$(grep -c 'vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb")" = 3 ] ||
		fail "$1 tier: expected three stops with vigil's message"
	[ "$(grep -c '^slice     q=0x' "$TMP/gdb")" = 3 ] || fail "$1 tier: each stop names its slice"
	[ "$(grep '^slice     q=0x' "$TMP/gdb" | sort -u | wc -l)" = 3 ] || fail "$1 tier: the three stops are not three different queues"
	grep -q '^vars      n=2 max=2' "$TMP/gdb" || fail "$1 tier: the stop shows the slice's variables"
	[ "$(grep -cE '^#0 .* in queue_push \(' "$TMP/gdb")" = 3 ] || fail "$1 tier: bt does not start at queue_push at each stop"
	grep -qE '^#1 .* in fill \(' "$TMP/gdb" || fail "$1 tier: bt lacks the caller"
	grep -q 'received signal SIGSTOP' "$TMP/gdb" && fail "$1 tier: a bare SIGSTOP reached the user"
	grep -q 'exited normally' "$TMP/gdb" || fail "$1 tier: the program did not run to its end under gdb"
	wait_vigil
	expect_rc 1
	# the program's own counts, and vigil's probes: the same
	grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "$1 tier: the program's counts"
	grep -q 'after:queue_new=3 before:queue_push=9 before:queue_pop=9' "$TMP/vigil.err" || fail "$1 tier: vigil's probe counts differ from the program's"
	grep -q 'violations=3' "$TMP/vigil.err" || fail "$1 tier: vigil saw other than 3 violations"
}

violations_in_gdb kernel
violations_in_gdb user
echo "PASS"
