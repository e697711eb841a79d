# At a normal end whose target is gone, vigil's exit does not wait for the
# kernel to release its probes (user/probe/late_release.h): a
# vigil-release process holds them and they are gone a grace period
# after vigil. Where the target still runs (attach, then detach), the
# detach stays synchronous: no uprobe is left when vigil has exited.
. "$(dirname "$0")/lib.sh"

holders() { ps -C vigil-release -o stat= | grep -cv '^Z'; }
# (uprobes_on waits for the holders; this test looks before they go)
count() { timeout 30 python3 "$(dirname "$0")/uprobes_on.py" "$1"; }

for _ in $(seq 100); do releasing || break; sleep 0.1; done

# The holder as vigil leaves it: vigil's end is held up on a full pipe
# (its --json verdicts, 3,000 of them, into a FIFO nobody reads yet:
# more than the pipe holds), after the holder was
# made: the holder then waits for vigil's word and is looked at whole.
mkfifo "$TMP/json"
exec 3<>"$TMP/json"
before=" $(ps -C vigil-release -o pid= | tr '\n' ' ') "
"$VIGIL" run --json "$TMP/json" specs/lib/double_free.vigil -- \
	"$TARGETS/allocs" --many >"$TMP/out" 2>&1 &
v=$!
LEFT_PIDS+=("$v")
pid=
for _ in $(seq 300); do
	for q in $(ps -C vigil-release -o pid=); do
		case "$before" in *" $q "*) ;; *) pid=$q ;; esac
	done
	# made, renamed, done sorting its descriptors: asleep on vigil's pipe
	args=$( [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | sed 's/ *$//')
	[ -n "$pid" ] && [ "$(proc_state "$pid")" = S ] && [ -n "$args" ] && break
	sleep 0.05
done
if [ -z "$pid" ] || [ -z "$args" ]; then
	echo "holder ${pid:-none}: state $(proc_state "$pid"), vigil $v alive: $(kill -0 "$v" 2>/dev/null && echo yes || echo no)"
	cat "$TMP/out"
	fail "no vigil-release waiting while vigil ends"
fi
# its command line is not vigil's: `pgrep -f PROGRAM` must not find it
[ "$args" = vigil-release ] || fail "vigil-release's command line: $args"
[ "$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status")" = 1 ] ||
	fail "vigil-release is not reparented to init"
ls -l "/proc/$pid/fd" | grep -q 'bpf-link\|bpf_link' || fail "vigil-release holds no BPF link"
ls -l "/proc/$pid/fd" | grep -q 'bpf-map' || fail "vigil-release holds no BPF map"
# (its one pipe is vigil's word to let go; the FIFO vigil writes is vigil's)
ls -l "/proc/$pid/fd" | grep -qE '/dev/|socket:|/tmp/' &&
	fail "vigil-release holds descriptors other than BPF's and perf's: $(ls -l "/proc/$pid/fd")"
cat <&3 >/dev/null &
drain=$!
wait "$v"
RC=$?
kill "$drain" 2>/dev/null
exec 3>&-
cat "$TMP/out"
expect_rc 0
# ... and lets go of them by itself (a zombie has: init reaps it)
gone() { ! kill -0 "$pid" 2>/dev/null || [ "$(proc_state "$pid")" = Z ]; }
for _ in $(seq 100); do gone && break; sleep 0.1; done
gone || fail "vigil-release still there after 10 s"

# vigil has exited: what it held is held by vigil-release, not released
# (it may be in its own exit by now, releasing them: its command line
# then empty). A race by nature: vigil lets the holder go before its own
# exit, and on a loaded machine the holder's releases may end before this
# script looks (4 of 12 runs beside a whole CI run). So up to 3 runs: a
# vigil whose exit waited for the releases leaves no holder in any.
# (under make test SANITIZE=1, LeakSanitizer's scan at vigil's exit comes
# after vigil has let the holder go, and lasts longer than its releases:
# the exit this part times is vigil's own, without that scan)
pid=
for try in 1 2 3; do
	for _ in $(seq 100); do releasing || break; sleep 0.1; done
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run_vigil run specs/queue_bounds.vigil -- "$TARGETS/queue"
	expect_rc 0
	pid=$(ps -C vigil-release -o pid=,stat= | awk '$2 !~ /^Z/ { print $1; exit }')
	[ -n "$pid" ] && break
	echo "run $try: no vigil-release left when vigil had exited"
done
[ -n "$pid" ] || fail "no vigil-release holds the probes after vigil's exit (3 runs)"
[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = vigil-release ] || [ ! -e "/proc/$pid" ] ||
	fail "the holder is named $(cat "/proc/$pid/comm")"
for _ in $(seq 100); do gone && break; sleep 0.1; done
gone || fail "vigil-release still there after 10 s"
# (the kernel may put a link's last release on a workqueue: the holder
# gone, its uprobes go within moments, not necessarily at once)
for _ in $(seq 50); do [ "$(count "$TARGETS/queue")" -eq 0 ] && break; sleep 0.1; done
[ "$(count "$TARGETS/queue")" -eq 0 ] || fail "uprobes left 5 s after vigil-release ended"

# a target that runs on: vigil detaches before it exits, no holder
"$TARGETS/ticker" >/dev/null &
t=$!
LEFT_PIDS+=("$t")
wait_exec "$t" "$TARGETS/ticker"
"$VIGIL" attach specs/ticks.vigil -p "$t" >"$TMP/out" 2>&1 &
v=$!
wait_links "$v"
sleep 0.5	# (in its loop: as never_harm.sh interrupts an attach)
kill -INT "$v"
# 60 s at most, then what it was doing, not a hang
for _ in $(seq 600); do kill -0 "$v" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$v" 2>/dev/null; then
	cat "$TMP/out"
	echo "vigil $v after SIGINT: $(cat /proc/$v/wchan 2>/dev/null) $(grep -E '^(State|SigBlk|SigPnd|ShdPnd)' /proc/$v/status | tr '\n' ' ')"
	for t in /proc/$v/task/*; do echo "  ${t##*/}: $(cat "$t/wchan" 2>/dev/null)"; done
	kill -KILL "$v"
	fail "vigil attach did not end 60 s after SIGINT"
fi
wait "$v"
cat "$TMP/out"

[ "$(holders)" -eq 0 ] || fail "a vigil-release was made for a target that runs on"
[ "$(count "$TARGETS/ticker")" -eq 0 ] || fail "uprobes left on a running target after vigil's exit"
kill -KILL "$t"
echo PASS
