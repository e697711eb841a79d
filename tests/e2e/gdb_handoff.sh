# The `gdb` reaction: on a terminal, vigil stops the target at the bad call
# and hands it to gdb, with the violating thread selected and `continue`
# working (SIGCONT handled). script(1) gives the run a terminal; its input
# is what the user types. Off a terminal, the target is left stopped and
# the command printed.
. "$(dirname "$0")/lib.sh"

sed 's/^on enter double_free: stop/on enter double_free: gdb/' specs/lib/double_free.vigil >"$TMP/dfg.vigil"

(sleep 8; printf 'bt\n'; sleep 2; printf 'continue\n'; sleep 3; printf 'kill\n'; sleep 1; printf 'y\n'; sleep 1; printf 'quit\n') |
	timeout 60 script -qec "$VIGIL run $TMP/dfg.vigil -- $TARGETS/allocs --double-free" /dev/null >"$TMP/raw" 2>&1
# drop terminal escapes and carriage returns
sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r//g' "$TMP/raw" >"$TMP/out"
cat "$TMP/out"
expect_out "VIOLATION of double_free"
expect_out "double_free: kernel tier"
expect_out "thread [0-9]+ is selected"
expect_out "^#0 .*free"
expect_out "^#1 .*release"
# continue runs the second free: glibc aborts, and gdb sees it
expect_out "Program received signal SIGABRT"
pgrep -f "$TARGETS/allocs --double-free" && fail "target left behind"

run_vigil run "$TMP/dfg.vigil" -- "$TARGETS/allocs" --double-free </dev/null
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "not on a terminal: gdb not started"
[ "$(proc_state "$pid")" = T ] || fail "target not left stopped"
