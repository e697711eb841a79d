# specs/lib/fd.vigil on tests/targets/fds.c: quiet on the clean run, where
# closed numbers come back to another open, to a pipe and to opendir's own
# open inside libc (which vigil cannot bind: the number is forgotten, not
# reported when closedir closes it), with exact counts of the libc calls
# that return fds; each bug found: an fd left open at exit (fd_leak,
# nonaccepting), a write on an fd closed before another open that got a
# different number, and a second close (fd_use violations, user tier).
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lib/fd.vigil -- "$TARGETS/fds"
expect_rc 0
expect_out "fds: done, open=9 openat=5 creat=5 dup=5 socket=1"
expect_no_out "VIOLATION|nonaccepting|inconclusive"
for c in after:open=9 after:openat=5 after:creat=5 after:dup=5 after:socket=1; do
	expect_out "^vigil: stats: .* $c( |$)"
done
expect_out "fd_leak: live slices by state: closed=0 open=0$"

run_vigil run specs/lib/fd.vigil -- "$TARGETS/fds" --leak
expect_rc 1
fd=$(sed -nE 's/^fds: fd ([0-9]+) left open$/\1/p' "$TMP/out")
[ -n "$fd" ] || fail "--leak: the target did not say which fd"
expect_out "fds: done"
expect_out "^vigil: fd_leak: slice fd=$fd ends nonaccepting in state open$"
expect_out "fd_leak: live slices by state: closed=0 open=1$"
expect_no_out "VIOLATION"

check_violation() {	# $1 flag, $2 what the target says before the bug, $3 state, $4 system call
	run_vigil run specs/lib/fd.vigil -- "$TARGETS/fds" "$1"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	fd=$(sed -nE "s/^fds: $2$/\\1/p" "$TMP/out")
	[ -n "$fd" ] || fail "$1: the target did not say which fd"
	expect_out "VIOLATION of fd_use"
	expect_out "^  slice  fd=$fd$"
	expect_out "^  state  closed -> $3 \(violation\)$"
	expect_out "^  event  syscall $4\($fd\) in tid [0-9]+$"
	expect_out "^  vars   maybe=0$"
	[ -n "$pid" ] && kill -KILL "$pid" && rm -rf "/tmp/vigil-fds-$pid"	# its files
}
check_violation --use-after "write to fd ([0-9]+), closed" use_after_close write
check_violation --double-close "close fd ([0-9]+) again" double_close close
echo ok
