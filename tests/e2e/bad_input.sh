# Bad input gets a clear message and the documented exit status, never a
# crash or a hang: a PID that does not exist, a kernel thread, an unknown
# option (one line and where the options are, not a page of them), a bad
# option value, a trace that is not there. And vigil's private directory
# does not keep the files of processes that are gone.
. "$(dirname "$0")/lib.sh"

# a pid that is surely free: above pid_max
nopid=$(($(cat /proc/sys/kernel/pid_max) + 1))
run_vigil attach specs/ticks.vigil -p "$nopid"
expect_rc 3
expect_out "^vigil: no process with pid $nopid$"

run_vigil attach specs/ticks.vigil -p 2
expect_rc 3
expect_out "pid 2 is a kernel thread: vigil monitors user-space processes"

run_vigil run --bogus specs/ticks.vigil -- /bin/true
expect_rc 2
expect_out "unrecognized option '--bogus'"
expect_out "^usage: vigil run \[OPTIONS\] SPEC\.\.\. -- PROGRAM \[ARGS\]$"
expect_out "^\(vigil run --help lists the options\)$"
[ "$(wc -l <"$TMP/out")" -le 5 ] || fail "a bad option printed $(wc -l <"$TMP/out") lines"

run_vigil run --ringbuf-size 12Q specs/ticks.vigil -- /bin/true
expect_rc 2
expect_out "--ringbuf-size: '12Q' is not a size of at least 4K"

run_vigil check specs/unsafe_iter.vigil "$TMP/no-such-trace.csv"
expect_rc 2
expect_out "cannot read .*no-such-trace.csv: No such file or directory"

# files left by processes that are gone are swept; a live one's stays
rundir=${TMPDIR:-/tmp}/vigil-$(id -u)
mkdir -p "$rundir"
: >"$rundir/gdb-$nopid.gdb"
: >"$rundir/violation-$nopid.json"
: >"$rundir/gdb-$$.gdb"
run_vigil run specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 0
[ ! -e "$rundir/gdb-$nopid.gdb" ] || fail "stale gdb-$nopid.gdb not removed"
[ ! -e "$rundir/violation-$nopid.json" ] || fail "stale violation-$nopid.json not removed"
[ -e "$rundir/gdb-$$.gdb" ] || fail "the file of a live process was removed"
rm -f "$rundir/gdb-$$.gdb"
echo ok
