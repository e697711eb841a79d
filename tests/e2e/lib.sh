# Helpers for end-to-end tests: each test is a bash script that runs
# build/vigil on a real target and fails (non-zero exit, with a message)
# when an expectation does not hold.
set -u
BUILD=${BUILD:-build}
VIGIL=$BUILD/vigil
TARGETS=$BUILD/targets
TMP=$(mktemp -d /tmp/vigil-e2e.XXXXXX)
LEFT_PIDS=()
LEFT_FILES=()	# made outside $TMP (checkpoint images in /dev/shm): removed

cleanup() {
	for p in "${LEFT_PIDS[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	for f in "${LEFT_FILES[@]}"; do
		rm -rf "$f"
		rmdir "$(dirname "$f")" 2>/dev/null	# the per-pid directory, if empty
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Machine features a test may need, each decided by an oracle that is not
# vigil. A test that needs one asks first; where the machine lacks it, the
# test checks what vigil promises on such a machine (its message, the
# inconclusive verdicts, the exit status, nothing armed), then skips.
#
# has_debug_regs: 0 when a write breakpoint fires here
# (tests/targets/debug_regs_oracle); else 1, WHY saying what was seen
has_debug_regs() {
	WHY=$("$TARGETS/debug_regs_oracle" 2>&1) && return 0
	WHY="this machine's debug registers do not fire (debug_regs_oracle: $WHY)"
	return 1
}

# has_sound_debug_regs: 0 when the debug registers report each hit once
# (tests/targets/debug_regs_oracle stale); else 1, WHY saying what was
# seen: QEMU's software emulation reports an old hit again at the next
# debug exception, a watch event that did not happen
has_sound_debug_regs() {
	WHY=$("$TARGETS/debug_regs_oracle" stale 2>&1) || return 0
	WHY="this machine's debug registers report old hits again (debug_regs_oracle: $WHY)"
	return 1
}

# vector_entry PROG FUNC: 0 when the function PROG's call of FUNC binds
# to starts with a VEX or EVEX (AVX, AVX-512) instruction, as glibc's
# memset does on an AVX-512 machine (an IFUNC's choice: run under the
# caller's GLIBC_TUNABLES); WHY says which function and its first
# instruction. The oracle is gdb: PROG's GOT entry, bound at start
# (LD_BIND_NOW), and the byte there.
vector_entry() {
	local out
	out=$(timeout 60 gdb -nx -batch -ex 'set environment LD_BIND_NOW=1' \
		-ex 'break main' -ex run \
		-ex "x/i *(void **)&'$2@got.plt'" \
		-ex "x/1bx *(void **)&'$2@got.plt'" --args "$1" 2>&1 | tail -2)
	WHY=$(echo "$out" | head -1 | sed -E 's/^ *(=> )?//')
	echo "$out" | tail -1 | grep -qE ':\s+0x[0-9a-f]{2}$' ||
		{ echo "$out"; fail "vector_entry: gdb did not read $2's GOT entry in $1"; }
	echo "$out" | tail -1 | grep -qE ':\s+0x(c4|c5|62)$'
}

# expect_stale: $TMP/out is a run on such a machine: vigil said so first
# (each slice a hit moves then ends inconclusive, or its violation says it
# may not be real)
expect_stale() {
	expect_out "^vigil: this machine's debug registers report an earlier hit again at a later debug exception \(checked: .*\): a watch event may be one that did not happen"
}

# skip FEATURE REASON: exit 77 (automake's code for a skipped test) with
# the reason on the last line; tests/run.sh counts it as skipped only when
# its own oracle for FEATURE says the machine lacks it
skip() {
	echo "SKIP: $1: $2"
	exit 77
}

# expect_blind: $TMP/out is a run where the debug registers do not fire:
# vigil said so first, naming what cannot be seen, armed nothing, and the
# ERROR SUMMARY says why slices are inconclusive
expect_blind() {
	expect_out "^vigil: this machine's debug registers do not fire \(checked: a write to a watched variable was not seen\): these events cannot be seen: "
	expect_out "^vigil: watchpoints: 0 armed: this machine's debug registers do not fire"
	expect_no_out "watchpoints: [1-9][0-9]* armed|debug register.* for .*(evict|refuse)"
	expect_out "ERROR SUMMARY: .*[0-9]+ slices? inconclusive \(this machine's debug registers do not fire\)"
}

# uprobes_on FILE: how many uprobes are attached to FILE, whoever owns
# them, in multi-uprobe links or single ones (tests/e2e/uprobes_on.py)
# releasing: a vigil-release process has not yet exited (a vigil whose
# targets had all exited left the kernel's release of its probes to it,
# user/probe/late_release.h; once a zombie, it has released them)
releasing() {
	ps -C vigil-release -o stat= | grep -qv '^Z'
}

uprobes_on() {
	# counted once those are released, 10 s at most
	for _ in $(seq 100); do
		releasing || break
		sleep 0.1
	done
	python3 "$(dirname "${BASH_SOURCE[0]}")/uprobes_on.py" "$1"
}

# run_vigil ARGS...: runs vigil, output in $TMP/out, status in $RC
run_vigil() {
	echo "+ vigil $*"
	"$VIGIL" "$@" >"$TMP/out" 2>&1
	RC=$?
	cat "$TMP/out"
	echo "+ exit $RC"
}

expect_rc() {
	[ "$RC" -eq "$1" ] || fail "expected exit status $1, got $RC"
}

expect_out() {
	grep -qE -- "$1" "$TMP/out" || fail "output lacks /$1/"
}

expect_no_out() {
	! grep -qE -- "$1" "$TMP/out" || fail "output has /$1/"
}

# process state letter from /proc (R, S, T, Z...), empty when gone
proc_state() {
	awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$1/stat" 2>/dev/null
}

# the pid vigil printed as stopped
stopped_pid() {
	sed -nE 's/.*target pid ([0-9]+) is left stopped.*/\1/p' "$TMP/out" | head -1
}

# until background process $1 (a shell's child) has exec'd program $2:
# attaching to it before would attach to the shell
wait_exec() {
	local exe
	exe=$(readlink -f "$2")
	for _ in $(seq 250); do
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$exe" ] && return 0
		sleep 0.02
	done
	fail "pid $1 did not exec $2"
}

# until process $1 (a vigil) holds a BPF link: its probes are attached;
# 20 s at most, then the caller's own check says what is missing
wait_links() {
	for _ in $(seq 200); do
		grep -q "^link_id:" /proc/"$1"/fdinfo/* 2>/dev/null && return 0
		sleep 0.1
	done
}

# wait_for FILE REGEX [SECONDS]: until FILE has a line matching, at most
# SECONDS (20); the test fails otherwise
wait_for() {
	for _ in $(seq $((${3:-20} * 10))); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$1"
	fail "no /$2/ in $1 after ${3:-20} s"
}

# tty_type RAW LINE...: a user at the terminal of a session whose output
# script(1) writes to RAW. Each LINE is typed once gdb asks for it: a
# command when gdb has printed one more "(gdb) " prompt than the commands
# typed so far, "y" or "n" when gdb asks "(y or n)". Typing on a clock
# instead raced slow commands (a checkpoint under a sanitizer): a line
# typed while the program runs is the program's input, not gdb's. Waits
# at most 60 s a line; then types it anyway, and the test's expectations
# say what went wrong. Its output is what script reads.
tty_type() {
	local raw=$1 line want prompts=0 queries=0 got
	shift
	for line in "$@"; do
		if [ "$line" = y ] || [ "$line" = n ]; then
			queries=$((queries + 1))
			want=$queries
		else
			prompts=$((prompts + 1))
			want=$prompts
		fi
		for _ in $(seq 600); do
			if [ "$line" = y ] || [ "$line" = n ]; then
				got=$(grep -o '(y or n)' "$raw" 2>/dev/null | wc -l)
			else
				got=$(grep -o '(gdb) ' "$raw" 2>/dev/null | wc -l)
			fi
			[ "$got" -ge "$want" ] && break
			sleep 0.1
		done
		sleep 0.2	# gdb's readline is reading once its prompt is out
		printf '%s\n' "$line"
	done
	sleep 3
}

# gdb_handoff "-ex CMD ...": runs the gdb command vigil printed under
# "Debug it with" (on the target it left stopped), batch, with these
# commands; gdb's output in $TMP/gdb
gdb_handoff() {
	local cmd
	cmd=$(grep -A1 'Debug it with' "$TMP/out" | tail -1)
	eval "timeout 60 $cmd -batch $1" >"$TMP/gdb" 2>&1
}

# expect_frame N ERE WHAT: frame #N of the backtrace in $TMP/gdb matches
expect_frame() {
	grep -qE "^#$1 .*$2" "$TMP/gdb" || { cat "$TMP/gdb"; fail "$3"; }
}

# start_live ARGS...: `vigil ARGS` (run/attach --interactive) in the
# background, off a terminal; waits for the command that joins its live
# gdb session. Sets VIGIL_PID, TARGET_PID, JOIN (the gdb command); vigil's
# stderr goes to $TMP/vigil.err, its stdout (the target's) to $TMP/vigil.out
start_live() {
	: >"$TMP/vigil.err"
	"$VIGIL" "$@" >"$TMP/vigil.out" 2>"$TMP/vigil.err" </dev/null &
	VIGIL_PID=$!
	for _ in $(seq 300); do
		grep -q 'join it with' "$TMP/vigil.err" && break
		kill -0 "$VIGIL_PID" 2>/dev/null || break
		sleep 0.05
	done
	JOIN=$(sed -n 's/^  \(gdb -q -p .*\)/\1/p' "$TMP/vigil.err" | head -1)
	[ -n "$JOIN" ] || { cat "$TMP/vigil.err"; fail "vigil printed no command to join its live session"; }
	TARGET_PID=$(echo "$JOIN" | sed -E 's/gdb -q -p ([0-9]+) .*/\1/')
	LEFT_PIDS+=("$TARGET_PID")
}

# live_gdb "-ex CMD ...": joins the live session in batch mode; gdb's
# output in $TMP/gdb
live_gdb() {
	eval "timeout 90 $JOIN -batch $1" >"$TMP/gdb" 2>&1
	echo "+ gdb: $?"
	cat "$TMP/gdb"
}

# wait_vigil: vigil's exit status in $RC (at most 60 s)
wait_vigil() {
	for _ in $(seq 600); do
		kill -0 "$VIGIL_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$VIGIL_PID" 2>/dev/null && { kill "$VIGIL_PID"; fail "vigil did not end"; }
	wait "$VIGIL_PID" 2>/dev/null
	RC=$?
	cat "$TMP/vigil.err"
}

# kernel_has FUNC: the running kernel has FUNC (a kfunc vigil uses where
# there is one: user/probe/features.c), by its symbol
kernel_has() {
	grep -q " $1\$" /proc/kallsyms
}

# the kernel tier's timer, and holding a process at its exec or fork
# (bpf_send_signal_task, Linux 6.13; bpf_task_from_pid, 6.2); a test
# that needs it skips as `skip kernel_stops_others REASON` (tests/run.sh
# asks /proc/kallsyms the same)
kernel_stops_others() {
	kernel_has bpf_send_signal_task && kernel_has bpf_task_from_pid
}

