# specs/lib/bad_free.vigil and the blocks allocated before the program's
# entry (tests/targets/early_free.c: its library's constructor mallocs a
# block, the program frees it). By default the allocator is patched by
# the in-process tier, which comes in at the entry: the block was never
# filed, and the heap the program has there is marked unseen, so its free
# is not checked (inconclusive), never a false bad free; the same when the
# property is in the user tier but the allocator in-process
# (--follow-fork). With --no-fast the uprobes see the constructor's
# malloc: the good free is quiet, the interior one stopped, its block
# named. And vigil attach, whose map has not seen the blocks from before
# it: neither the free of such a block nor that of a local array is
# checked (freeable(p) unknown), never a false bad free.
. "$(dirname "$0")/lib.sh"

for OPTS in "" --follow-fork; do
	run_vigil run $OPTS specs/lib/bad_free.vigil -- "$TARGETS/early_free"
	expect_rc 0
	expect_out "early_free: done"
	expect_no_out "VIOLATION"
	expect_out "bad_free: 1 event not checked: a memory predicate was unknown"
	expect_out "ERROR SUMMARY: 0 errors; 1 slice inconclusive"
done

run_vigil run --no-fast specs/lib/bad_free.vigil -- "$TARGETS/early_free"
expect_rc 0
expect_out "early_free: done"
expect_no_out "VIOLATION|inconclusive|not checked"

run_vigil run --no-fast specs/lib/bad_free.vigil -- "$TARGETS/early_free" --interior
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of bad_free"
expect_out "state  ok -> bad_free \(violation\)"
expect_out "slice  p=0x[0-9a-f]+ \(block of 100 bytes from malloc, \+8\)"
expect_no_out "early_free: done"
[ "$(proc_state "$pid")" = T ] || fail "--interior: target not stopped"
kill -KILL "$pid"

"$TARGETS/early_free" --wait "$TMP/go" >"$TMP/target.out" 2>&1 &
tpid=$!
LEFT_PIDS+=("$tpid")
for _ in $(seq 100); do grep -q ready "$TMP/target.out" && break; sleep 0.05; done
"$VIGIL" attach specs/lib/bad_free.vigil -p "$tpid" >"$TMP/out" 2>&1 &
vpid=$!
for _ in $(seq 300); do
	grep -q "in-process tier: [0-9]* functions patched" "$TMP/out" && break
	sleep 0.05
done
touch "$TMP/go"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "bad_free: kernel tier \(in-process"
expect_out "in-process tier: [0-9]+ functions patched"
expect_no_out "VIOLATION"
expect_out "bad_free: 2 events not checked: a memory predicate was unknown"
expect_out "target killed by signal 6"
echo ok
