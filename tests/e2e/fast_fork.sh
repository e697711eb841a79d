# The in-process tier (--fast) and forks. A forked child has the patched
# code, the agent and the region shared with vigil (MAP_SHARED: its
# records go to the same ring); its copy of the agent's thread-table page
# is wiped (MADV_WIPEONFORK), which tells the agent it is a child.
#  - --follow-fork: the child's calls are recorded in-process, as its own
#    (its pid in the records: its own monitor, its own slices), with no
#    uprobe on the patched function; its heap's slices are a copy of the
#    parent's (a double free of a parent's block found in the child);
#  - without it: the child runs unharmed, its calls not counted as the
#    parent's, also after vigil has ended (a child that outlives it);
#  - vigil attach --follow-fork to a forking loop, detached: the children
#    forked before and after run on unharmed (the agent records nothing
#    once vigil has gone).
. "$(dirname "$0")/lib.sh"
unset VIGIL_FAST

cat >"$TMP/work.vigil" <<'SPEC'
property calls "work is called"
int n = 0
state s accepting {
  before work(k) { n = n + 1; } -> s
}
SPEC

wait_file() {	# wait_file FILE: until it exists, 20 s
	for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}

# --- --follow-fork: the child's calls in-process, as the child's --------
FORKER_HOLD="$TMP/go" "$VIGIL" run --follow-fork --fast work "$TMP/work.vigil" \
	-- "$TARGETS/forker" /bin/true >"$TMP/out" 2>&1 &
vpid=$!
LEFT_PIDS+=("$vpid")
wait_file "$TMP/go.ready" || { cat "$TMP/out"; fail "the target never got to its hold"; }
# the child has made its calls, the parent waits: no uprobe on work
[ "$(uprobes_on "$TARGETS/forker")" -eq 0 ] || fail "a uprobe on the patched work()"
touch "$TMP/go"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out 'in-process tier: 1 function patched'
expect_out "forker: parent calls=10 child calls=5 child status=4"
child=$(sed -nE 's/^vigil: pid [0-9]+ forked pid ([0-9]+): followed$/\1/p' "$TMP/out")
[ -n "$child" ] || fail "no followed fork"
expect_out "before:work=15( |$)"
expect_out "^vigil: pid $child: calls: live slices by state: s=1"
expect_out "^vigil: calls: live slices by state: s=1"

# --- the heap: a child's double free of its parent's block --------------
export GLIBC_TUNABLES=glibc.malloc.tcache_count=0
run_vigil run --follow-fork --fast hot --on-violation=continue specs/lib/double_free.vigil -- "$TARGETS/forkfree"
expect_rc 1
expect_out 'in-process tier: [0-9]+ functions patched'
child=$(sed -nE 's/^vigil: pid [0-9]+ forked pid ([0-9]+): followed$/\1/p' "$TMP/out" | head -1)
[ -n "$child" ] || fail "no fork reported"
[ "$(grep -c 'VIOLATION' "$TMP/out")" -eq 1 ] || fail "not exactly one violation"
expect_out "event  before free\(0x[0-9a-f]+\) in tid $child$"
expect_out "tid $child  before free\(0x[0-9a-f]+\)  live -> freed$"
expect_out "^vigil: pid $child: double_free: live slices by state: init=0 live=0 freed=1 double_free=1$"
expect_out "^vigil: double_free: live slices by state: init=0 live=1 freed=1 double_free=0$"
unset GLIBC_TUNABLES

# --- without --follow-fork: the child unharmed, not counted ---------------
run_vigil run --fast work "$TMP/work.vigil" -- "$TARGETS/forker" /bin/true
expect_rc 0
expect_out 'in-process tier: 1 function patched'
expect_out "forker: parent calls=10 child calls=5 child status=4"
expect_out "before:work=10( |$)"
expect_out "forked pid [0-9]+: not followed"
# a child that outlives vigil's run: forkfree's child frees after its
# parent has exited and vigil has ended, through the patched free
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 run_vigil run --fast hot \
	specs/lib/double_free.vigil -- "$TARGETS/forkfree"
expect_out 'in-process tier: [0-9]+ functions patched'
expect_no_out 'VIOLATION'
for _ in $(seq 50); do grep -q 'forkfree: child done' "$TMP/out" && break; sleep 0.1; done
grep -q 'forkfree: child done' "$TMP/out" || fail "the child did not finish after the run"

# --- attach --follow-fork to a forking loop, detached mid-way ------------
"$TARGETS/forker" --loop 1500 >"$TMP/loop.out" &
lpid=$!
LEFT_PIDS+=("$lpid")
wait_exec "$lpid" "$(readlink -f "$TARGETS/forker")"
"$VIGIL" attach --follow-fork --fast work "$TMP/work.vigil" -p "$lpid" >"$TMP/out" 2>&1 &
vpid=$!
for _ in $(seq 200); do grep -qE 'forked pid [0-9]+: followed' "$TMP/out" && break; sleep 0.05; done
grep -q 'in-process tier: 1 function patched' "$TMP/out" || { cat "$TMP/out"; fail "attach: work not patched"; }
sleep 0.3
kill -INT "$vpid"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
wait "$lpid"
rc=$?
cat "$TMP/loop.out"
[ "$rc" -eq 0 ] || fail "the forking loop ended with $rc"
grep -q '^forker: children=1500$' "$TMP/loop.out" || fail "children harmed: $(cat "$TMP/loop.out")"
grep -qE 'before:work=[1-9]' "$TMP/out" || fail "no call counted in the children"
[ "$(uprobes_on "$TARGETS/forker")" -eq 0 ] || fail "a uprobe left on forker"
echo "fast_fork: ok"
