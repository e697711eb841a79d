# The live view. SIGUSR1 makes a running vigil print every live slice with
# its state, parameters and variables (50 per state, then a count) and go
# on. On a terminal (script(1) gives one) the last line is a status
# redrawn in place, cleared before a report so that lines never mix, and
# a violation's header is red; --quiet turns the status off, NO_COLOR the
# colors. Off a terminal there is neither: no carriage return, no escape.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/sizes.vigil" <<'EOF'
property sizes "a block remembers its size"
slice on ptr p
int size = 0
state init accepting {
  after my_alloc(n) returns p when p != 0 { size = n; } -> live
}
state live accepting {
  before my_free(p) { size = 0; } -> init
}
EOF

# SIGUSR1, off a terminal, in both tiers: 60 blocks held, one more
# allocated and freed every 10 ms
for tier in kernel user; do
	echo "+ vigil run --tier=$tier sizes.vigil -- myalloc --hold 60 3 (SIGUSR1)"
	"$VIGIL" run --tier=$tier "$TMP/sizes.vigil" -- "$TARGETS/myalloc" --hold 60 3 >"$TMP/out" 2>&1 &
	vpid=$!
	wait_for "$TMP/out" "holds 60 blocks"
	sleep 0.3
	kill -USR1 "$vpid"
	wait "$vpid"
	RC=$?
	cat "$TMP/out"
	expect_rc 0
	expect_out "^vigil: the monitor of pid [0-9]+ after [0-9]+ records \(SIGUSR1; first 50 slices per state\):$"
	expect_out "^vigil: sizes: 6[01] live slices$"
	expect_out "^  live \(accepting\): 6[01]$"
	expect_out "^    p=0x[0-9a-f]+  size=([89]|[1-4][0-9])$"
	expect_out "^    \.\.\. 1[01] more$"
	[ "$(grep -cE '^    p=0x' "$TMP/out")" -eq 50 ] || fail "not 50 slices listed"
	# and monitoring went on to the end
	expect_out "^vigil: end of the monitor state; monitoring goes on$"
	expect_out "myalloc: done"
	expect_out "^vigil: target exited with status 0$"
	# off a terminal: no status line, no colors
	grep -q $'\r' "$TMP/out" && fail "a carriage return off a terminal"
	grep -q $'\x1b' "$TMP/out" && fail "an escape sequence off a terminal"
	expect_no_out "ev/s"
done

# A single-instance property: its one slice and its variable
cat >"$TMP/count.vigil" <<'EOF'
property count "count the allocations"
int n = 0
state s accepting { after my_alloc(x) { n++; } -> s }
EOF
"$VIGIL" run --tier=user "$TMP/count.vigil" -- "$TARGETS/myalloc" --hold 5 2 >"$TMP/out" 2>&1 &
vpid=$!
wait_for "$TMP/out" "holds 5 blocks"
kill -USR1 "$vpid"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "^    \(the one instance\)  n=[0-9]+$"

# a SIGUSR1 while the probes load (before the event loop) is not fatal:
# it waits, and the state is printed once the loop runs
"$VIGIL" run --tier=user "$TMP/count.vigil" -- "$TARGETS/myalloc" --hold 5 1 >"$TMP/out" 2>&1 &
vpid=$!
# once vigil has said its tier (its main runs: before, the signal would
# kill the shell's child, or an ASan build still initialising), and
# before its probes are loaded
wait_for "$TMP/out" "count: user tier"
kill -USR1 "$vpid"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "^vigil: the monitor of pid [0-9]+ after [0-9]+ records \(SIGUSR1"
expect_out "^vigil: target exited with status 0$"

# nor one while vigil ends (its probes torn down after the loop): a
# SIGUSR1 every 10 ms until vigil has exited
"$VIGIL" run --tier=user "$TMP/count.vigil" -- "$TARGETS/myalloc" --hold 5 1 >"$TMP/out" 2>&1 &
vpid=$!
wait_for "$TMP/out" "holds 5 blocks"
while kill -USR1 "$vpid" 2>/dev/null; do sleep 0.01; done
wait "$vpid"
RC=$?
tail -3 "$TMP/out"
expect_rc 0
expect_out "^vigil: target exited with status 0$"

# on a terminal: the status line, redrawn in place
tty_run() {
	echo "+ (tty) vigil $*"
	timeout 60 script -qec "$VIGIL $*" /dev/null </dev/null >"$TMP/raw" 2>&1
	RC=$?
	cat -v "$TMP/raw"
	echo "+ exit $RC"
}
tty_run run "$TMP/sizes.vigil" -- "$TARGETS/myalloc" --hold 20 2
expect_rc 0
grep -qE $'\r\x1b\\[Kvigil: [0-9.]+[kMG]? ev/s \\| sizes [0-9]+ \\| lost 0 \\| probes [0-9]+/[0-9]+' "$TMP/raw" ||
	fail "no status line on the terminal"
[ "$(grep -o 'ev/s' "$TMP/raw" | wc -l)" -ge 4 ] || fail "the status line was not redrawn"
[ "$(grep -o 'ev/s' "$TMP/raw" | wc -l)" -le 12 ] || fail "the status line was redrawn more than 4 times a second"

tty_run run --quiet "$TMP/sizes.vigil" -- "$TARGETS/myalloc" --hold 20 1
expect_rc 0
grep -q 'ev/s' "$TMP/raw" && fail "a status line with --quiet"
grep -q $'\x1b\\[K' "$TMP/raw" && fail "line clearing with --quiet"

# a violation on a terminal: its header red, at the start of its line
# (the status line was cleared first)
tty_run run -D alloc=my_alloc -D release=my_free specs/lib/double_free.vigil -- "$TARGETS/myalloc" --bug
sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r//g' "$TMP/raw" >"$TMP/out"
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
grep -q $'\x1b\\[1;31mVIOLATION\x1b\\[0m of double_free' "$TMP/raw" || fail "VIOLATION is not red"
python3 - "$TMP/raw" <<'EOF' || fail "a report line shares its line with the status"
import re, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n"):
    # what the terminal shows of it: the text after the last carriage
    # return (script ends lines with \r\n)
    shown = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", line.rstrip("\r").split("\r")[-1])
    if "VIOLATION" in line and not shown.startswith("vigil: VIOLATION"):
        sys.exit("shown as: %r" % shown)
EOF
[ -n "$pid" ] && kill -KILL "$pid"

NO_COLOR=1 tty_run run -D alloc=my_alloc -D release=my_free specs/lib/double_free.vigil -- "$TARGETS/myalloc" --bug
sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r//g' "$TMP/raw" >"$TMP/out"
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of double_free"
grep -q $'\x1b\\[1;31m' "$TMP/raw" && fail "colors with NO_COLOR"
[ -n "$pid" ] && kill -KILL "$pid"
echo ok
