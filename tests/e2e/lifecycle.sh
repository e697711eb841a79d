# Lifecycle events from tracepoints: thread_start, thread_exit, signal(sig)
# and exit(code), counted exactly, with the verdicts at a crash.
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lifecycle.vigil -- "$TARGETS/crash"
expect_rc 0
expect_out "exited with status 3 after 3 thread starts and 4 thread exits"
expect_out "thread_start=3 thread_exit=4 signal=0 exit=1"
expect_out "target exited with status 3"

# dies of SIGSEGV: vigil reports signal(11) and the slice verdicts then
run_vigil run specs/lifecycle.vigil -- "$TARGETS/crash" --crash
expect_rc 1
expect_out "state  running -> crashed"
expect_out "event  signal\(11\)"
expect_out "vars   started=3 ended=3 status=-1"
expect_out "target killed by signal 11"
