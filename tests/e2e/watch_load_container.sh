# vigil ctl load / unload in a vigil watch of containers that run their
# own copies of the program and of libc (a tmpfs root under pivot_root,
# new mount and pid namespaces, as watch_container_libc.sh): a spec loaded
# while they run (a count of free, a libc function) gets its probes on
# each container's own libc, in the one running when it is loaded and in
# one started after (held at its exec), none on the host's libc; its
# unload takes them out of both, and its verdicts name each process.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/container_helpers.bash"

own_libc_root
free_spec
on() {	# on PID FILE: uprobes of PID's links on FILE
	python3 "$(dirname "$0")/uprobes_on.py" --pid "$1" "$2"
}

start_container
B=$CPID
start_watch "$(dirname "$0")/../specs/close_once.vigil" --exe "$R/instance"
LEFT_PIDS+=("$VIGIL_PID")
[ "$(on "$B" "$LIBC")" = 0 ] || fail "uprobes on the container's libc before the load"
"$VIGIL" ctl "$VIGIL_PID" load "$TMP/free.vigil" >"$TMP/load" 2>&1 ||
	{ cat "$TMP/load" "$TMP/out"; fail "vigil ctl load failed"; }
start_watched_container bug
C=$CPID
ONB=$(on "$B" "$LIBC")
ONC=$(on "$C" "$LIBC")
ONHOST=$(( $(on "$B" "$HOSTLIBC") + $(on "$C" "$HOSTLIBC") ))
echo "uprobes on the containers' libc: $ONB (pid $B, running at the load), $ONC (pid $C, started after); on the host's: $ONHOST"
[ "$ONB" -gt 0 ] && [ "$ONC" -gt 0 ] ||
	fail "the loaded spec has no uprobes on the containers' own libc ($ONB for pid $B, $ONC for pid $C)"
[ "$ONHOST" = 0 ] || fail "$ONHOST uprobes for the containers' processes on the host's libc"
sleep 0.3
"$VIGIL" ctl "$VIGIL_PID" unload frees >"$TMP/unload" 2>&1 ||
	{ cat "$TMP/unload"; fail "vigil ctl unload failed"; }
# each process's calls of free were seen in its own libc (a slice is made
# by the first one)
wait_for "$TMP/out" "^vigil: pid $B: frees: live slices by state: s=1" 5
wait_for "$TMP/out" "^vigil: pid $C: frees: live slices by state: s=1" 5
for _ in $(seq 50); do	# links are closed off the loop (their RCU wait)
	[ "$(on "$B" "$LIBC")" = 0 ] && [ "$(on "$C" "$LIBC")" = 0 ] && break
	sleep 0.1
done
[ "$(on "$B" "$LIBC")" = 0 ] && [ "$(on "$C" "$LIBC")" = 0 ] ||
	fail "uprobes left on the containers' libc after the unload"
# the watch's own spec goes on in both
# (the program's file named from the host or from the container's root)
prog() { echo $(( $(on "$1" /instance) + $(on "$1" "$R/instance") )); }
[ "$(prog "$B")" -gt 0 ] && [ "$(prog "$C")" -gt 0 ] ||
	fail "close_once's probes went with the unload"
touch "$R/stop"
for p in "$B" "$C"; do
	wait_for "$TMP/out" "watch: pid $p \(pid 1 in its pid namespace\), cgroup $CGPATH: exited" 10
done
kill -INT "$VIGIL_PID"
wait "$VIGIL_PID"
RC=$?
cat "$TMP/out"
[ "$RC" = 0 ] || fail "vigil watch exited $RC"
echo "PASS"
