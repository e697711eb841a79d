# SIGKILL of vigil while the program's threads keep stopping for it: a
# free that arms a watchpoint waits in the agent until vigil has armed it
# (inproc/ring.c, vg_hold_wait), and a hit may stop the thread for vigil.
# Killed at random points of a run under use_after_free (thousands of such
# waits, tests/targets/uafreuse.c), vigil leaves a program that finishes
# on its own, with its output and status: the waiting thread sees vigil's
# mutex orphaned and goes on; never left stopped (T), never killed.
. "$(dirname "$0")/lib.sh"

if ! has_debug_regs; then
	run_vigil run specs/lib/use_after_free.vigil -- "$TARGETS/uafreuse"
	expect_rc 0
	expect_blind
	skip debug_regs "$WHY"
fi

for delay in 0.4 0.7 1.0 1.3 1.6 1.9; do
	"$VIGIL" run specs/lib/use_after_free.vigil -- "$TARGETS/uafreuse" --rounds 20000 \
		>"$TMP/out" 2>"$TMP/err" &
	vpid=$!
	# the delay counts from the program's start (vigil's own start is
	# slower under a sanitizer)
	pid=
	for _ in $(seq 200); do
		pid=$(pgrep -P "$vpid" -x uafreuse | head -1)
		[ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || { cat "$TMP/err"; fail "no uafreuse under vigil after 20 s"; }
	LEFT_PIDS+=("$pid")
	sleep "$delay"
	kill -KILL "$vpid"
	wait "$vpid" 2>/dev/null
	for _ in $(seq 300); do
		st=$(proc_state "$pid")
		[ -z "$st" ] || [ "$st" = Z ] && break
		[ "$st" = T ] && { sleep 0.5; [ "$(proc_state "$pid")" = T ] &&
			fail "killed at $delay s: the program is left stopped"; }
		sleep 0.1
	done
	st=$(proc_state "$pid")
	[ -z "$st" ] || [ "$st" = Z ] ||
		fail "killed at $delay s: the program has not finished in 30 s (state $st)"
	grep -q "^uafreuse: 20000 of 20000 blocks came back" "$TMP/out" ||
		{ cat "$TMP/out" "$TMP/err"; fail "killed at $delay s: the program did not finish its work"; }
	echo "killed at $delay s: the program finished"
done
echo ok
