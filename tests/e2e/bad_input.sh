# Bad input gets a clear message and the documented exit status, never a
# crash or a hang: a PID that does not exist, a kernel thread, another
# user's process without CAP_SYS_PTRACE, an unknown option (one line and
# where the options are, not a page of them), a bad option value, a trace
# that is not there, a function inlined everywhere (built here at -O2, as
# tests/unit/test_sym.c does). What vigil writes is private to the user,
# and its directory does not keep the files of processes that are gone.
. "$(dirname "$0")/lib.sh"

# a pid that is surely free: above pid_max
nopid=$(($(cat /proc/sys/kernel/pid_max) + 1))
run_vigil attach specs/ticks.vigil -p "$nopid"
expect_rc 3
expect_out "^vigil: no process with pid $nopid$"

run_vigil attach specs/ticks.vigil -p 2
expect_rc 3
expect_out "pid 2 is a kernel thread: vigil monitors user-space processes"

# a process of another user, without CAP_SYS_PTRACE
setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 30 &
other=$!
LEFT_PIDS+=("$other")
sleep 0.2
RC=0
setpriv --bounding-set=-sys_ptrace --inh-caps=-sys_ptrace "$VIGIL" attach specs/ticks.vigil -p "$other" >"$TMP/out" 2>&1 || RC=$?
cat "$TMP/out"
expect_rc 3
expect_out "cannot inspect pid $other \(Permission denied\): vigil needs CAP_SYS_PTRACE or the same user"
kill "$other"

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

# a function the compiler inlined into every caller: DWARF says so
cc -O2 -g -o "$TMP/inl" tests/targets/sym_inline.c || fail "cannot build sym_inline at -O2"
printf 'property p "x"\nstate s accepting {\n  before square(x) -> s\n}\n' >"$TMP/inl.vigil"
run_vigil run "$TMP/inl.vigil" -- "$TMP/inl"
expect_rc 2
expect_out "inl.vigil:3:3: function 'square' in .*/inl is inlined everywhere; it has no address to probe"

# what vigil writes is private: its directory 0700, the gdb command file,
# the violation report, --record and --json files 0600
run_vigil run --record "$TMP/rec" --json "$TMP/v.json" specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
rundir=${TMPDIR:-/tmp}/vigil-$(id -u)
[ "$(stat -c %a "$rundir")" = 700 ] || fail "$rundir is not 0700"
for f in "$rundir/gdb-$pid.gdb" "$rundir/violation-$pid.json" "$TMP/rec" "$TMP/v.json"; do
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f is $(stat -c %a "$f"), not 0600"
done
kill -KILL "$pid"

# files left by processes that are gone are swept; a live one's stays
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
