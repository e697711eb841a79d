# vigil watch in containers that run their own copies of the program AND
# of libc and the loader (copied into a tmpfs root: other inodes than the
# host's files, as in a container image). Each container is new mount and
# pid namespaces under pivot_root, its process pid 1 there, in a cgroup of
# its own. One runs when vigil starts (attached: its libc found in its
# maps), one starts later (held at its exec, before its loader ran: its
# libc found where its loader will look, under its root). vigil must put
# the libc probes (specs/lib/double_free.vigil, a count of free) on each
# container's own libc -- a probe on the host's libc never fires there --
# and the program's (close_once) on its program; the violation's report
# names the host pid, the pid in the container and the cgroup. A library
# the spec probes (--lib libz.so.1) that the containers do not have is
# named in each one's line. Then the
# same with --exe naming the host's build and --same-build: the
# containers' copies of the program are found by their build id.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/container_helpers.bash"

own_libc_root
[ "$(stat -c %d:%i "$HOSTLIBC")" != "$(stat -c %d:%i "$R$LIBC")" ] ||
	fail "the container's libc is the host's file"

free_spec
cat >"$TMP/zlib.vigil" <<'SPEC'
property inflates "inflateEnd is called (libz, which the containers lack)"
state s accepting {
  before inflateEnd(z) -> s
}
SPEC

start_container
B=$CPID
for _ in $(seq 100); do	# its loader maps libc a moment after the exec
	grep -q " $LIBC$" "/proc/$B/maps" && break
	sleep 0.05
done
grep -q " $LIBC$" "/proc/$B/maps" || fail "the container's instance has no libc mapped"
start_watch "$(dirname "$0")/../specs/close_once.vigil" \
	"$(dirname "$0")/../../specs/lib/double_free.vigil" "$TMP/free.vigil" \
	"$TMP/zlib.vigil" --lib libz.so.1 --exe "$R/instance" --json "$TMP/w.json"
start_watched_container bug
C=$CPID
# the libc probes of each container process are on its own libc, none
# on the host's
ONB=$(python3 "$(dirname "$0")/uprobes_on.py" --pid "$B" "$LIBC")
ONC=$(python3 "$(dirname "$0")/uprobes_on.py" --pid "$C" "$LIBC")
ONHOST=$(( $(python3 "$(dirname "$0")/uprobes_on.py" --pid "$B" "$HOSTLIBC") +
	   $(python3 "$(dirname "$0")/uprobes_on.py" --pid "$C" "$HOSTLIBC") ))
break_container bug "$C"
end_container "$B"
interrupt_vigil "vigil watch"
grep -qE "watch: pid $B \(pid 1 in its pid namespace\), cgroup $CGPATH: attached: running already; probed in its own copies: libc\.so\.6 \(same build\); not in it \(its probes there see nothing\): libz\.so\.1$" "$TMP/out" ||
	fail "pid $B (running) was not probed in its own libc"
grep -qE "watch: pid $C \(pid 1 in its pid namespace\), cgroup $CGPATH: started: held at its exec until its probes were in; probed in its own copies: libc\.so\.6 \(same build\); not in it \(its probes there see nothing\): libz\.so\.1$" "$TMP/out" ||
	fail "pid $C (held at its exec) was not probed in its own libc"
expect_violation_of "$C" "$TMP/w.json"
[ "$ONB" -gt 0 ] && [ "$ONC" -gt 0 ] ||
	fail "no uprobes on the containers' own libc while watched ($ONB for pid $B, $ONC for pid $C)"
[ "$ONHOST" = 0 ] || fail "$ONHOST uprobes for the containers' processes on the host's libc"
# and they fired: free counted, blocks followed by double_free
grep -qE "^vigil: pid $C: double_free: live slices by state: .* freed=[1-9]" "$TMP/out" ||
	fail "double_free saw no block freed in pid $C"
grep -qE "^vigil: pid $B: double_free: live slices by state: .* live=[1-9]" "$TMP/out" ||
	fail "double_free saw no live block in pid $B"
grep -qE "before:free=[1-9]" "$TMP/out" || fail "no call of free seen in the containers' libc"
[ "$(proc_state "$C")" = T ] || fail "the violating container process is not left stopped"
[ "$(python3 "$(dirname "$0")/uprobes_on.py" --pid 0 "$LIBC")" = 0 ] ||
	fail "uprobes left on the container's libc"
kill -KILL "$C"

# --- --same-build: --exe names the host's build of the program; the
# containers run copies of it (other inodes), found by file name and
# build id; a program of the same name but another build (a copy of
# sleep) is let go at its exec, unmonitored and running ---
rm -f "$R/stop" "$R/bug"
start_container
D=$CPID
: >"$TMP/out"	# not the first run's lines, before the redirection below is made
start_watch "$(dirname "$0")/../specs/close_once.vigil" "$TMP/free.vigil" \
	--exe "$TARGETS/instance" --same-build --json "$TMP/s.json"
mkdir -p "$TMP/decoy"
cp "$(command -v sleep)" "$TMP/decoy/instance"
"$TMP/decoy/instance" 30 &
DECOY=$!
LEFT_PIDS+=("$DECOY")
# a copy on the host (vigil's root, its libc the host's)
mkdir -p "$TMP/copy"
cp "$TARGETS/instance" "$TMP/copy/instance"
"$TMP/copy/instance" --until "$TMP/copy/stop" >/dev/null 2>&1 &
H=$!
LEFT_PIDS+=("$H")
start_watched_container bug
E=$CPID
break_container bug "$E"
DECOY_STATE=$(proc_state "$DECOY")
wait_for "$TMP/out" "watch: pid $H[,:].*started" 10
touch "$TMP/copy/stop"	# it ends with a handle open
wait_for "$TMP/out" "watch: pid $H[,:].*exited" 10
interrupt_vigil "vigil watch --same-build"
grep -qE "watch: pid $D \(pid 1 in its pid namespace\), cgroup $CGPATH: attached: running already; probed in its own copies: instance \(same build\), libc\.so\.6 \(same build\)" "$TMP/out" ||
	fail "pid $D (a running copy) was not attached in its own files"
grep -qE "watch: pid $E \(pid 1 in its pid namespace\), cgroup $CGPATH: started: held at its exec until its probes were in; probed in its own copies: instance \(same build\), libc\.so\.6 \(same build\)" "$TMP/out" ||
	fail "pid $E (a copy started later) was not held and probed in its own files"
expect_violation_of "$E"
grep -qE "watch: pid $H[,:].* started: held at its exec until its probes were in; probed in its own copies: instance \(same build\)$" "$TMP/out" ||
	fail "pid $H (a copy on the host) was not probed in its own program"
grep -qE "^vigil: pid $H: close_once: live slices by state: init=0 opened=1 " "$TMP/out" ||
	fail "close_once saw no handle of pid $H"
grep -q "\"pid\":$DECOY[,}]" "$TMP/s.json" && fail "pid $DECOY (another build named instance) was monitored"
[ "$DECOY_STATE" = S ] || fail "pid $DECOY (another build named instance) is in state $DECOY_STATE, not sleeping"
grep -qE "before:free=[1-9]" "$TMP/out" || fail "no call of free seen in the copies' libc"
echo "PASS"
