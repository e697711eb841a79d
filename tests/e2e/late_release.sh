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
run_vigil run specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 0
# vigil has exited: what it held is held by vigil-release, not released
# (one look at pid, state and command line: the holder may end any time
# after, its command line then empty)
snap=$(ps -C vigil-release -o pid=,stat=,args= | awk '$2 !~ /^Z/ { print; exit }')
pid=$(echo "$snap" | awk '{ print $1 }')
[ -n "$pid" ] || fail "no vigil-release holds the probes after vigil's exit"
# its command line is not vigil's: `pgrep -f PROGRAM` must not find it
[ "$(echo "$snap" | awk '{ $1 = ""; $2 = ""; print }' | sed 's/^ *//; s/ *$//')" = vigil-release ] ||
	fail "vigil-release's command line: $snap"
[ "$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status")" = 1 ] ||
	fail "vigil-release is not reparented to init"
ls -l "/proc/$pid/fd" | grep -q 'bpf-link\|bpf_link' || fail "vigil-release holds no BPF link"
# (its one pipe is vigil's word to let go)
ls -l "/proc/$pid/fd" | grep -qE '/dev/|socket:|/tmp/' &&
	fail "vigil-release holds descriptors other than BPF's and perf's: $(ls -l "/proc/$pid/fd")"
# ... and lets go of them by itself (a zombie has: init reaps it)
gone() { ! kill -0 "$pid" 2>/dev/null || [ "$(proc_state "$pid")" = Z ]; }
for _ in $(seq 100); do gone && break; sleep 0.1; done
gone || fail "vigil-release still there after 10 s"
[ "$(count "$TARGETS/queue")" -eq 0 ] || fail "uprobes left after vigil-release ended"

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
