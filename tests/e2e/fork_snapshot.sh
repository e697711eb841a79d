# Fork snapshots (--snapshot=fork), gdb's `checkpoint` done by vigil: the
# single-threaded allocs target is snapshot while it frees correctly; on the
# double free, vigil kills it and hands over the last good snapshot, stopped.
# gdb continues that copy and it runs into the same double free (glibc
# aborts). A multi-threaded target gets an error that points to CRIU, and
# monitoring goes on.
. "$(dirname "$0")/lib.sh"

sed -e 's/^on enter double_free: stop$/on enter freed: checkpoint\non enter double_free: restore, stop/' \
	specs/lib/double_free.vigil >"$TMP/df.vigil"
grep -q 'restore, stop' "$TMP/df.vigil" || fail "could not derive the spec"

run_vigil run --snapshot=fork --checkpoint-gap 0 --checkpoints 4 "$TMP/df.vigil" -- "$TARGETS/allocs" --double-free
pid=$(sed -nE 's/.*target pid ([0-9]+) is restored from the fork snapshot pid ([0-9]+) and.*/\1/p' "$TMP/out")
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of double_free"
expect_out "fork snapshot pid [0-9]+ \(double_free entered freed, after [0-9]+ events\)"
[ -n "$pid" ] || fail "no restored snapshot printed"
sleep 0.2
[ "$(proc_state "$pid")" = T ] || fail "snapshot $pid is in state '$(proc_state "$pid")', not T"
# the ring: vigil killed every other snapshot on its way out
n=$(ps -eo args= | grep -c "^$TARGETS/allocs --double-free")
[ "$n" = 1 ] || fail "$n copies of the target left, expected the restored one: $(ps -eo pid=,stat=,args= | grep allocs)"

cmd=$(grep -A1 'Debug it with' "$TMP/out" | tail -1 | sed 's/^ *//')
echo "+ $cmd"
timeout 60 bash -c "$cmd -batch -ex continue -ex bt" >"$TMP/gdb" 2>&1
cat "$TMP/gdb"
grep -q 'SIGABRT' "$TMP/gdb" || fail "the snapshot did not run into the double free again"
grep -qE '#[0-9]+ .* release ' "$TMP/gdb" || fail "release() not on the stack at the abort"

# threads: fork copies one thread only
sed -e 's/^on enter overflow: stop$/on enter ready: checkpoint\non enter overflow: stop/' \
	specs/queue_bounds.vigil >"$TMP/q.vigil"
run_vigil run --snapshot=fork --checkpoint-gap 20 "$TMP/q.vigil" -- "$TARGETS/queue" --bug
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "fork snapshot: pid [0-9]+ has [0-9]+ threads; .*use CRIU checkpoints \(--snapshot=criu\); monitoring continues"
expect_out "VIOLATION of queue_bounds"
