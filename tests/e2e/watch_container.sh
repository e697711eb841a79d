# A process in a container -- its own mount namespace with pivot_root into
# a directory (a tmpfs) holding a copy of its program, libc and loader,
# and its own pid namespace, where it is pid 1, in a cgroup of its own --
# is monitored by vigil attach -p and by vigil watch --exe. Its files are
# read through its root (the copy of libc is another file than the host's:
# `before free` fires there only if vigil found the container's libc), and
# the violation's report names both pids and the cgroup path, in text and
# JSON; its stacks are symbolized from its own files. No process is left stopped but the one a violation stopped.
. "$(dirname "$0")/lib.sh"

R=$TMP/root
CG=/sys/fs/cgroup/unified/vigil-e2e-$$
[ -d /sys/fs/cgroup/unified ] || CG=/sys/fs/cgroup/vigil-e2e-$$
SPEC=$(dirname "$0")/../specs/close_once.vigil
CONTAINERS=()

cleanup_container() {
	for u in "${CONTAINERS[@]}"; do
		pkill -KILL -P "$u" 2>/dev/null
		kill -KILL "$u" 2>/dev/null
	done
	sleep 0.2
	umount -l "$R" 2>/dev/null
	rmdir "$CG" 2>/dev/null
	cleanup
}
trap cleanup_container EXIT

mkdir -p "$R" "$CG" || fail "cannot make cgroup $CG"
mount -t tmpfs tmpfs "$R" || fail "cannot mount a tmpfs on $R"
mkdir -p "$R/lib64" "$R/lib/x86_64-linux-gnu" "$R/old"
cp "$TARGETS/instance" "$R/instance"
cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
cp -L /lib/x86_64-linux-gnu/libc.so.6 "$R/lib/x86_64-linux-gnu/"

cat >"$TMP/free.vigil" <<'SPEC'
property frees "free is called (in the container's libc)"
int n = 0
state s accepting {
  before free(p) { n = n + 1; } -> s
}
SPEC

# start_container ARGS...: the instance as pid 1 of new mount and pid
# namespaces under pivot_root into $R, in cgroup $CG; its host pid in CPID
start_container() {
	unshare --mount --pid --fork sh -c \
		'echo $$ > "$1/cgroup.procs" && mount --bind "$0" "$0" && cd "$0" &&
		 pivot_root . old && shift && exec /instance "$@"' \
		"$R" "$CG" --until /stop "$@" &
	CONTAINERS+=("$!")
	CPID=
	for _ in $(seq 100); do
		CPID=$(pgrep -P "$!" | head -1)
		[ -n "$CPID" ] && [ "$(readlink "/proc/$CPID/exe")" = /instance ] && break
		sleep 0.05
	done
	[ "$(readlink "/proc/$CPID/exe" 2>/dev/null)" = /instance ] ||
		fail "the container's instance did not start"
	grep -qE '^NSpid:\s+[0-9]+\s+1$' "/proc/$CPID/status" ||
		fail "pid $CPID is not pid 1 in a pid namespace of its own"
	[ "$(readlink "/proc/$CPID/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] ||
		fail "pid $CPID is in vigil's mount namespace"
	grep -q "^0::${CG#/sys/fs/cgroup*/}" "/proc/$CPID/cgroup" 2>/dev/null ||
		grep -q ":/${CG##*/}$" "/proc/$CPID/cgroup" || fail "pid $CPID is not in $CG"
}
CGPATH=/${CG##*/}

# expect_violation_of PID JSON: the one violation's report (in $TMP/out
# and in JSON lines) names the container's process: its host pid PID,
# pid 1 in its pid namespace, and cgroup $CGPATH
expect_violation_of() {
	grep -qE "^  process pid $1 \(pid 1 in its pid namespace\), cgroup $CGPATH$" "$TMP/out" ||
		fail "the report does not name pid $1, pid 1 and cgroup $CGPATH"
	python3 - "$2" "$1" "$CGPATH" <<'PY' || fail "the JSON verdict lacks the pids or the cgroup"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1])]
v = [l for l in v if l.get("verdict") == "violation"]
assert len(v) == 1 and v[0]["pid"] == int(sys.argv[2]) and v[0]["ns_pid"] == 1 \
    and v[0]["cgroup"] == sys.argv[3], v
PY
}

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
"$VIGIL" watch --stacks "$SPEC" --exe "$R/instance" --json "$TMP/w.json" >"$TMP/out" 2>&1 &
VIGIL_PID=$!
wait_for "$TMP/out" "processes running it, monitored" 60
start_container --bug-when /bug2
C=$CPID
wait_for "$TMP/out" "watch: pid $C \(pid 1 in its pid namespace\), cgroup $CGPATH: started" 30
sleep 0.3
touch "$R/bug2"
wait_for "$TMP/out" "VIOLATION of close_once" 30
wait_for "$TMP/out" "pid $C is left stopped" 10
touch "$R/stop"
for _ in $(seq 100); do kill -0 "$B" 2>/dev/null || break; sleep 0.1; done
kill -0 "$B" 2>/dev/null && fail "the container's other instance did not end"
wait_for "$TMP/out" "watch: pid $B \(pid 1 in its pid namespace\), cgroup $CGPATH: exited" 10
kill -INT "$VIGIL_PID"
wait "$VIGIL_PID"
RC=$?
cat "$TMP/out"
[ "$RC" = 1 ] || fail "vigil watch exited $RC, not 1"
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
