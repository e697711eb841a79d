# Helpers of the tests of vigil on processes in containers
# (tests/e2e/watch_container.sh, watch_container_libc.sh), after lib.sh.
# A container here is build/targets/instance as pid 1 of new mount and
# pid namespaces under pivot_root into $R (a tmpfs: its files are other
# inodes than the host's, as in a container image), in cgroup $CG of its
# own. Each test puts its own copy of libc into $R where it wants it.

R=$TMP/root
CG=/sys/fs/cgroup/unified/vigil-e2e-$$
[ -d /sys/fs/cgroup/unified ] || CG=/sys/fs/cgroup/vigil-e2e-$$
CGPATH=/${CG##*/}
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

# make_container_root: the cgroup, and the tmpfs $R with a copy of the
# program (/instance) and of the loader (/lib64); no libc yet
make_container_root() {
	mkdir -p "$R" "$CG" || fail "cannot make cgroup $CG"
	mount -t tmpfs tmpfs "$R" || fail "cannot mount a tmpfs on $R"
	mkdir -p "$R/lib64" "$R/old"
	cp "$TARGETS/instance" "$R/instance"
	cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
}

# own_libc_root: make_container_root, and the host's libc copied to
# $R$LIBC: /lib/libc.so.6, a directory ld.so searches by default and a
# name the host's libc ($HOSTLIBC) does not have, so that the links on it
# are told from the host's by the name the kernel gives them
own_libc_root() {
	HOSTLIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
	LIBC=/lib/libc.so.6
	[ "$HOSTLIBC" != "$LIBC" ] || fail "the host's libc is $LIBC too"
	make_container_root
	mkdir -p "$R/lib"
	cp "$HOSTLIBC" "$R$LIBC"
}

# free_spec: $TMP/free.vigil, a property counting the calls of free (it
# sees them only when the libc probed is the one the process runs)
free_spec() {
	cat >"$TMP/free.vigil" <<'SPEC'
property frees "free is called (in the process's own libc)"
int n = 0
state s accepting {
  before free(p) { n = n + 1; } -> s
}
SPEC
}

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

# start_watch ARGS...: `vigil watch ARGS` in the background (VIGIL_PID),
# its output in $TMP/out; until it monitors the processes running already
start_watch() {
	"$VIGIL" watch "$@" >"$TMP/out" 2>&1 &
	VIGIL_PID=$!
	wait_for "$TMP/out" "processes running it, monitored" 60
}

# start_watched_container BUG: a container started under vigil watch (held
# at its exec until its probes are in), its instance closing a handle
# twice once /BUG exists in it; its host pid in CPID
start_watched_container() {
	start_container --bug-when "/$1"
	wait_for "$TMP/out" "watch: pid $CPID \(pid 1 in its pid namespace\), cgroup $CGPATH: started" 30
	sleep 0.3
}

# break_container BUG PID: /BUG made; the violation of close_once must be
# seen and PID left stopped
break_container() {
	touch "$R/$1"
	wait_for "$TMP/out" "VIOLATION of close_once" 30
	wait_for "$TMP/out" "pid $2 is left stopped" 10
}

# end_container PID: the containers' instances are told to stop; PID, a
# watched one, must exit and vigil watch say so
end_container() {
	touch "$R/stop"
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$1" 2>/dev/null && fail "the container's other instance did not end"
	wait_for "$TMP/out" "watch: pid $1 \(pid 1 in its pid namespace\), cgroup $CGPATH: exited" 10
}

# interrupt_vigil WHAT: vigil (VIGIL_PID) is interrupted and must exit 1
# (a violation); its output shown
interrupt_vigil() {
	kill -INT "$VIGIL_PID"
	wait "$VIGIL_PID"
	RC=$?
	cat "$TMP/out"
	[ "$RC" = 1 ] || fail "$1 exited $RC, not 1"
}

# expect_violation_of PID [JSON]: the one violation's report (in $TMP/out
# and, given JSON, in its JSON lines) names the container's process: its
# host pid PID, pid 1 in its pid namespace, and cgroup $CGPATH
expect_violation_of() {
	grep -qE "^  process pid $1 \(pid 1 in its pid namespace\), cgroup $CGPATH$" "$TMP/out" ||
		fail "the report does not name pid $1, pid 1 and cgroup $CGPATH"
	[ $# -lt 2 ] && return 0
	python3 - "$2" "$1" "$CGPATH" <<'PY' || fail "the JSON verdict lacks the pids or the cgroup"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1])]
v = [l for l in v if l.get("verdict") == "violation"]
assert len(v) == 1 and v[0]["pid"] == int(sys.argv[2]) and v[0]["ns_pid"] == 1 \
    and v[0]["cgroup"] == sys.argv[3], v
PY
}
