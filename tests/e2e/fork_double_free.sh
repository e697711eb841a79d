# --follow-fork and the heap: a forked child starts with a copy of its
# parent's slices (its heap is a copy of the parent's), so its double
# free of a block the parent allocated is found, and its first free of it
# is no bad free (bad_free's object map knows the parent's memory, not
# the child's: its frees are not checked there); the parent's own free of its copy does not touch the
# child's slices; vigil waits for the child, which outlives the parent.
# A child that execs drops the copied slices with its old memory.
. "$(dirname "$0")/lib.sh"

export GLIBC_TUNABLES=glibc.malloc.tcache_count=0
run_vigil run -q --follow-fork --on-violation=continue specs/lib/double_free.vigil specs/lib/bad_free.vigil -- "$TARGETS/forkfree"
expect_rc 1
expect_out "^forkfree: parent done"
expect_out "^forkfree: child done"
child=$(sed -nE 's/^vigil: pid [0-9]+ forked pid ([0-9]+): followed$/\1/p' "$TMP/out" | head -1)
[ -n "$child" ] || fail "no fork reported"
[ "$(grep -c 'VIOLATION' "$TMP/out")" -eq 1 ] || fail "not exactly one violation"
expect_out "VIOLATION of double_free"
expect_out "state  freed -> double_free \(violation\)"
expect_out "event  before free\(0x[0-9a-f]+\) in tid $child$"
# the slice came from the parent: live in the child from the start
expect_out "tid $child  before free\(0x[0-9a-f]+\)  live -> freed$"
expect_out "^vigil: pid $child: double_free: live slices by state: init=0 live=0 freed=1 double_free=1$"
# bad_free: the object map is the parent's, a followed child's memory
# unknown to it: freeable(p) unknown there, each free not checked (no
# violation, never a false one)
expect_out "^vigil: pid $child: bad_free: live slices by state: ok=0 bad_free=0 bad_realloc=0$"
expect_out "^vigil: pid $child: bad_free: 3 events not checked: a memory predicate was unknown"
# the parent's: its copy of p freed once, q live
expect_out "^vigil: double_free: live slices by state: init=0 live=1 freed=1 double_free=0$"
expect_out "^vigil: ERROR SUMMARY: 1 error: double_free.double_free=1; 3 slices inconclusive$"

# a child that execs leaves its copy of the parent's heap behind: no leak
# of its own (the parent frees its blocks)
run_vigil run -q --follow-fork specs/lib/leak.vigil -- "$TARGETS/forkfree" --exec
expect_rc 0
expect_out "^forkfree: exec done"
child=$(sed -nE 's/^vigil: pid [0-9]+ forked pid ([0-9]+): followed$/\1/p' "$TMP/out" | head -1)
[ -n "$child" ] || fail "no fork reported"
expect_out "^vigil: pid $child: leak: live slices by state: free=0 allocated=0$"
expect_no_out "nonaccepting"
expect_out "^vigil: ERROR SUMMARY: 0 errors$"
echo ok
