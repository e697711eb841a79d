# A process in a container -- its own mount namespace with pivot_root into
# a directory (a tmpfs) holding a copy of its program, libc and loader,
# and its own pid namespace, where it is pid 1, in a cgroup of its own --
# is monitored by vigil attach -p and by vigil watch --exe. Its files are
# read through its root (the copy of libc is another file than the host's:
# `before free` fires there only if vigil found the container's libc), and
# the violation's report names both pids and the cgroup path, in text and
# JSON; its stacks are symbolized from its own files. No process is left stopped but the one a violation stopped.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/container_helpers.bash"
SPEC=$(dirname "$0")/../specs/close_once.vigil

make_container_root
mkdir -p "$R/lib/x86_64-linux-gnu"
cp -L /lib/x86_64-linux-gnu/libc.so.6 "$R/lib/x86_64-linux-gnu/"

free_spec

# --- vigil attach -p ---
start_container --bug-when /bug1
A=$CPID
"$VIGIL" attach "$SPEC" "$TMP/free.vigil" -p "$A" --json "$TMP/a.json" >"$TMP/out" 2>&1 &
VIGIL_PID=$!
wait_for "$TMP/out" "is pid 1 in its pid namespace" 60
wait_for "$TMP/out" "tier" 30
sleep 0.5
touch "$R/bug1"
wait_for "$TMP/out" "VIOLATION of close_once" 30
wait "$VIGIL_PID"
RC=$?
cat "$TMP/out"
[ "$RC" = 1 ] || fail "vigil attach exited $RC, not 1"
grep -qE "before:free=[1-9]" "$TMP/out" ||
	fail "no call of free was seen: the container's libc was not the one probed"
expect_violation_of "$A" "$TMP/a.json"
[ "$(proc_state "$A")" = T ] || fail "the container's process is not left stopped"
kill -KILL "$A"

# --- vigil watch --exe, the program's path on the host (the tmpfs) ---
start_container
B=$CPID
start_watch --stacks "$SPEC" --exe "$R/instance" --json "$TMP/w.json"
start_watched_container bug2
C=$CPID
break_container bug2 "$C"
end_container "$B"
interrupt_vigil "vigil watch"
grep -qE "watch: pid $B \(pid 1 in its pid namespace\), cgroup $CGPATH: attached" "$TMP/out" ||
	fail "the running container's instance was not attached"
expect_violation_of "$C" "$TMP/w.json"
[ "$(proc_state "$C")" = T ] || fail "the violating container process is not left stopped"
# its stacks, symbolized from its own files (through its root): the
# caller of inst_close in main, with its line
grep -A40 'VIOLATION of close_once' "$TMP/out" | grep -qE "^ +main\+0x[0-9a-f]+ \(.*instance\.c:[0-9]+\)" ||
	fail "the container process's stacks are not symbolized"
[ "$(uprobes_on "$R/instance")" = 0 ] || fail "uprobes left on the container's program"
echo "PASS"
