# The in-process tier (--fast) and SIGKILL of vigil, many times, at random
# points and at each kind of point where vigil holds a thread in a state
# of its own making (VG_DBG_DIE_AT=N: vigil kills itself at its Nth such
# point, user/fast/inject.c's vg_inject_hazard):
#  - vigil run: during the start (the program held at its entry while the
#    tier goes in), mid-run, at a violation caught in-process (the stub
#    stops its thread, vigil puts it back on the call: fast_rewind.c), and
#    at the end's unpatch;
#  - vigil run --follow-fork of a forking loop, killed at random;
#  - vigil attach to a running multi-threaded target whose threads block
#    in nanosleep (a system call to restart): during the injection (every
#    thread seized, system calls run in one of them), the patching, and
#    the detach's unpatch.
# After each: the target finishes with the right output and status, or,
# for vigil run before the program started, the guard killed it (the
# promise: never run it unmonitored); never left stopped (T) unless vigil
# said so, never killed by a signal of its own (SIGSEGV, SIGILL, SIGTRAP:
# a thread let go with vigil's registers, or in a step's trap); no uprobe
# left.
. "$(dirname "$0")/lib.sh"
unset VIGIL_FAST

RUNNER="$(dirname "$0")/fast_kill_run.py"
cat >"$TMP/stop.vigil" <<'EOF'
property tick_at "tick(30000) is never called"
state ok accepting {
  before tick(i) when i == 30000 -> bad
  before tick(i) -> ok
}
state bad violation
EOF
cat >"$TMP/work.vigil" <<'EOF'
property works "work() is called"
state counting accepting {
  before work(id, k) -> counting
}
EOF
cat >"$TMP/calls.vigil" <<'EOF'
property calls "work is called"
state s accepting {
  before work(k) -> s
}
EOF
N=300000

# one vigil run of ticker N, killed at $1 (a delay, or @POINT) with spec $2
run_once() {
	local what=$1 spec=$2 tpid
	python3 "$RUNNER" "$TMP/k.out" "$what" "$VIGIL" run --fast tick "$spec" \
		-- "$TARGETS/ticker" $N >"$TMP/k.ends" 2>&1
	tpid=$(sed -nE 's/^ticker: pid ([0-9]+)$/\1/p' "$TMP/k.out")
	if grep -qE '^end .* signal (4|5|7|11)$|^timeout' "$TMP/k.ends"; then
		cat "$TMP/k.out" "$TMP/k.ends"
		fail "run $what: the target crashed"
	fi
	if grep -q '^stopped' "$TMP/k.ends" &&
		! grep -q 'is left stopped' "$TMP/k.out"; then
		cat "$TMP/k.out" "$TMP/k.ends"
		fail "run $what: the target was left stopped"
	fi
	if [ -z "$tpid" ]; then	# never started: the guard killed it
		# (no end at all: vigil died before it forked anything; "end
		# vigil N exit 127": vigil's child, not yet the program (its
		# name), found vigil gone before it could be told to die with
		# it, user/proc/proc.c)
		grep -qE '^end (ticker|vigil) [0-9]+ signal 9$|^end vigil [0-9]+ exit 127$' "$TMP/k.ends" ||
			! grep -q '^end ' "$TMP/k.ends" ||
			{ cat "$TMP/k.out" "$TMP/k.ends"; fail "run $what: the program neither ran nor was killed"; }
		return
	fi
	grep -q 'is left stopped' "$TMP/k.out" && return	# vigil said so
	# (its status is ours when vigil died first, else vigil's, which
	# reaped it)
	if ! grep -q "^ticker: calls tick=$N\$" "$TMP/k.out" ||
		grep -qE "^end ticker $tpid (signal|exit [1-9])" "$TMP/k.ends"; then
		cat "$TMP/k.out" "$TMP/k.ends"
		fail "run $what: the target did not finish right"
	fi
}

# the hazard points of a run and of an attach, as vigil names them
python3 "$RUNNER" "$TMP/h.out" @-1 "$VIGIL" run --fast tick "$TMP/stop.vigil" \
	-- "$TARGETS/ticker" $N >/dev/null 2>&1
nrun=$(grep -c 'hazard [0-9]*:' "$TMP/h.out")
grep -q 'hazard [0-9]*: rewind' "$TMP/h.out" || fail "no rewind point: $(cat "$TMP/h.out")"
echo "run: $nrun hazard points"
[ "$nrun" -gt 20 ] || fail "too few hazard points in a run: $(cat "$TMP/h.out")"

# --- vigil run, SIGKILLed at its own points: the first, the last, the
# rewind, the unpatch, and a random sample
pts="1 $nrun"
pts="$pts $(sed -nE 's/.*hazard ([0-9]+): rewind.*/\1/p' "$TMP/h.out" | head -1)"
for _ in 1 2 3 4 5; do pts="$pts $((RANDOM % nrun + 1))"; done
for p in $(sed -nE 's/.*hazard ([0-9]+): (rewind|patch).*/\1/p' "$TMP/h.out") $pts; do
	run_once "@$p" "$TMP/stop.vigil"
done
# --- and at random delays: during the start, mid-run, at the violation
for i in $(seq 10); do
	run_once "0.$((RANDOM % 10))$((RANDOM % 10))" "$TMP/stop.vigil"
done
for i in $(seq 6); do
	run_once "0.$((RANDOM % 10))$((RANDOM % 10))" specs/ticks.vigil
done

# --- vigil run --follow-fork of a forking loop: the children record
# in-process too; killed at random: the loop and its children unharmed
for i in $(seq 3); do
	what="0.$((RANDOM % 10))$((RANDOM % 10))"
	python3 "$RUNNER" "$TMP/k.out" "$what" "$VIGIL" run --follow-fork \
		--fast work "$TMP/calls.vigil" -- "$TARGETS/forker" --loop 300 \
		>"$TMP/k.ends" 2>&1
	if grep -qE '^end .* signal ([0-8]|1[0-9])$|^timeout|^stopped' "$TMP/k.ends"; then
		cat "$TMP/k.out" "$TMP/k.ends"
		fail "follow $what: a process crashed or was left stopped"
	fi
	if ! grep -q '^forker: children=' "$TMP/k.out"; then	# unstarted
		grep -qE '^end (forker|vigil) [0-9]+ signal 9$|^end vigil [0-9]+ exit 127$' "$TMP/k.ends" ||
			! grep -q '^end ' "$TMP/k.ends" ||
			{ cat "$TMP/k.out" "$TMP/k.ends"; fail "follow $what: the loop neither ran nor was killed"; }
		continue
	fi
	grep -q '^forker: children=300$' "$TMP/k.out" ||
		{ cat "$TMP/k.out" "$TMP/k.ends"; fail "follow $what: children harmed"; }
done

# --- vigil attach to threads: 16 threads asleep in nanosleep, seized ---
start_threads() {	# sets tpid
	"$TARGETS/threads" 20000 >"$TMP/t.out" 2>&1 &
	tpid=$!
	for _ in $(seq 100); do grep -q 'threads: ready' "$TMP/t.out" && return; sleep 0.05; done
	fail "threads not ready"
}

# attach, killed at $1 (@POINT: vigil's own; else a delay), detaching
# with SIGINT once attached when it lives on
attach_once() {
	local what=$1 vpid st
	start_threads
	if [ "${what#@}" != "$what" ]; then
		VG_DBG_DIE_AT=${what#@} "$VIGIL" attach --fast work "$TMP/work.vigil" \
			-p "$tpid" >"$TMP/a.out" 2>&1 &
	else
		"$VIGIL" attach --fast work "$TMP/work.vigil" -p "$tpid" >"$TMP/a.out" 2>&1 &
	fi
	vpid=$!
	if [ "${what#@}" = "$what" ]; then
		sleep "$what"
		kill -KILL "$vpid" 2>/dev/null
	else
		for _ in $(seq 100); do
			grep -q 'in-process tier:' "$TMP/a.out" && break
			kill -0 "$vpid" 2>/dev/null || break
			sleep 0.05
		done
		kill -INT "$vpid" 2>/dev/null
	fi
	wait "$vpid" 2>/dev/null
	# the threads are let go, and must run their calls through whatever
	# vigil left: patches or not
	for _ in $(seq 40); do
		st=$(proc_state "$tpid")
		[ "$st" = T ] || [ "$st" = t ] || break
		sleep 0.05
	done
	[ "$st" = T ] || [ "$st" = t ] && { cat "$TMP/a.out"; kill -KILL "$tpid"; fail "attach $what: the target was left stopped ($st)"; }
	kill -USR1 "$tpid" 2>/dev/null
	wait "$tpid"
	st=$?
	if [ "$st" -ne 3 ] || ! grep -q 'threads: calls work=340000 threads=17' "$TMP/t.out"; then
		cat "$TMP/a.out" "$TMP/t.out"
		fail "attach $what: the target ended with status $st (a signal: $((st - 128)))"
	fi
}

attach_once @-1
nat=$(grep -c 'hazard [0-9]*:' "$TMP/a.out")
echo "attach: $nat hazard points"
grep -q 'hazard [0-9]*: syscall: done' "$TMP/a.out" || fail "no injected system call in an attach: $(cat "$TMP/a.out")"
grep -q 'in-process tier: 1 function patched' "$TMP/a.out" || fail "attach: work not patched"
# each kind of point once (its first), the last (the detach's unpatch),
# and a random sample
pts="$nat"
for kind in 'syscall: the thread runs' 'syscall: at a syscall stop' 'syscall: done' 'patch:'; do
	pts="$pts $(grep "hazard [0-9]*: $kind" "$TMP/a.out" | sed -nE 's/.*hazard ([0-9]+):.*/\1/p' | head -1)"
	pts="$pts $(grep "hazard [0-9]*: $kind" "$TMP/a.out" | sed -nE 's/.*hazard ([0-9]+):.*/\1/p' | shuf -n1)"
done
for _ in 1 2 3 4; do pts="$pts $((RANDOM % nat + 1))"; done
for p in $pts; do
	attach_once "@$p"
done
for i in $(seq 5); do
	attach_once "0.$((RANDOM % 10))$((RANDOM % 10))"
done

[ "$(uprobes_on "$TARGETS/ticker")" -eq 0 ] || fail "a uprobe left on ticker"
[ "$(uprobes_on "$TARGETS/threads")" -eq 0 ] || fail "a uprobe left on threads"
echo "fast_kill: ok"
