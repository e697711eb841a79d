# vigil run --interactive on a terminal (issue 17 point 1; script(1) gives
# the run a pty, its input is what the user types): vigil starts gdb
# itself on the program held at its first instruction, with the monitor
# live; `continue` stops at the violation with vigil's message, bt starts
# at queue_push; the next `continue` stops at the next queue's violation;
# `quit` (confirmed) detaches, vigil says gdb exited and ends, and the
# program runs on to its end.
. "$(dirname "$0")/lib.sh"

# drop terminal escapes and carriage returns
clean() { sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r//g' "$1"; }
tty_type "$TMP/raw" 'info inferiors' continue bt continue quit y |
	timeout 90 script -qec "$VIGIL run --interactive specs/queue_bounds.vigil -- $TARGETS/queue3 --loops 2" /dev/null >"$TMP/raw" 2>&1
clean "$TMP/raw" >"$TMP/out"
cat "$TMP/out"
expect_out "in _start \(\) from /lib64/ld-linux"
expect_out "vigil: live session with the monitor of pid [0-9]+"
[ "$(grep -c '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/out")" = 2 ] ||
	fail "not two violation stops with vigil's message"
expect_out "^#0 .* in queue_push \("
expect_out "vigil: gdb (went away|exited): monitoring ends, the program runs on"
expect_no_out "received signal SIGSTOP"
pid=$(sed -nE 's/.*live session with the monitor of pid ([0-9]+).*/\1/p' "$TMP/out" | head -1)
LEFT_PIDS+=("$pid")
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "the program did not run to its end after gdb quit"
expect_out "queue_new=6 queue_push=18 queue_pop=18"
echo PASS
