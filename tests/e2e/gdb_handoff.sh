# The `gdb` reaction: on a terminal, vigil stops the target at the bad call
# and opens a live gdb session on it (the monitor stays on), with vigil's
# message for the stop and `continue` working. script(1) gives the run a
# terminal; its input is what the user types. Off a terminal, the target
# is left stopped, the command that joins is printed, and vigil serves
# until the program ends.
. "$(dirname "$0")/lib.sh"

sed 's/^on enter double_free: stop/on enter double_free: gdb/' specs/lib/double_free.vigil >"$TMP/dfg.vigil"

(sleep 8; printf 'bt\n'; sleep 2; printf 'continue\n'; sleep 3; printf 'kill\n'; sleep 1; printf 'y\n'; sleep 1; printf 'quit\n') |
	# MALLOC_PERTURB_: a stream freed under a report that still writes to it
	# hangs or crashes at once, not once in a while
	MALLOC_PERTURB_=85 timeout 60 script -qec "$VIGIL run $TMP/dfg.vigil -- $TARGETS/allocs --double-free" /dev/null >"$TMP/raw" 2>&1
# drop terminal escapes and carriage returns
sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r//g' "$TMP/raw" >"$TMP/out"
cat "$TMP/out"
expect_out "VIOLATION of double_free"
expect_out "double_free: kernel tier"
expect_out "vigil: double_free entered state double_free at before free"
expect_out "^#0 .*free"
expect_out "^#1 .*release"
# continue runs the second free: glibc aborts, and gdb sees it
expect_out "Program received signal SIGABRT"
pgrep -f "^$TARGETS/allocs --double-free" && fail "target left behind"

start_live run "$TMP/dfg.vigil" -- "$TARGETS/allocs" --double-free
grep -q 'VIOLATION of double_free' "$TMP/vigil.err" || fail "no violation reported"
[ "$(proc_state "$TARGET_PID")" = T ] || fail "target not left stopped for gdb"
kill -0 "$VIGIL_PID" || fail "vigil did not stay to serve the session"
live_gdb "-ex bt -ex kill"
grep -q 'vigil: double_free entered state double_free at before free' "$TMP/gdb" || fail "gdb did not get vigil's message for the stop"
grep -qE '^#1 .*release' "$TMP/gdb" || fail "bt at the stop"
wait_vigil
expect_rc 1
