# specs/lib/file.vigil: quiet on the clean target (which also writes to
# stdout and stderr, streams it never opened); each bug found: a stream
# leaked at exit (nonaccepting), a use after fclose and a second fclose
# (violations, the target stopped at the call).
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lib/file.vigil -- "$TARGETS/files"
expect_rc 0
expect_out "file_use: kernel tier"
expect_out "files: done"
expect_no_out "VIOLATION|nonaccepting|inconclusive"
expect_out "after:fopen=20 "
expect_out "before:fclose=20( |$)"

run_vigil run specs/lib/file.vigil -- "$TARGETS/files" --leak
expect_rc 1
expect_out "files: done"
expect_no_out VIOLATION
expect_out "file_use: slice f=0x[0-9a-f]+ ends nonaccepting in state open"

check_stop() {	# $1 flag, $2 state, $3 function at frame 0
	run_vigil run specs/lib/file.vigil -- "$TARGETS/files" "$1"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "state  closed -> $2"
	expect_no_out "files: done"
	[ "$(proc_state "$pid")" = T ] || fail "$1: target not stopped"
	gdb_handoff "-ex bt"
	expect_frame 0 "$3" "$1: not stopped in $3"
	kill -KILL "$pid"
}
# (gcc turns fputs of a constant string into fwrite)
check_stop --use-after use_after_close 'fwrite'
check_stop --double-close double_close 'fclose'
