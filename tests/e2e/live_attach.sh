# vigil attach --interactive: a live gdb session on a running process; the
# next violation stops gdb with vigil's message, `vigil detach` ends
# monitoring and the program runs to its end under gdb.
. "$(dirname "$0")/lib.sh"

# the program holds after its first three queues until gdb, joined,
# removes $TMP/hold: an attach takes what it takes on a loaded machine
: >"$TMP/hold"
QUEUE3_HOLD="$TMP/hold" "$TARGETS/queue3" --loops 2 >"$TMP/prog.out" &
prog=$!
LEFT_PIDS+=("$prog")
wait_exec "$prog" "$TARGETS/queue3"
start_live attach --interactive specs/queue_bounds.vigil -p "$prog"
[ "$TARGET_PID" = "$prog" ] || fail "the join command is not for pid $prog"
live_gdb "-ex 'shell rm $TMP/hold' -ex continue -ex bt -ex 'vigil status' -ex 'vigil detach' -ex continue"
grep -q '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb" || fail "no violation stop in gdb"
grep -qE '^#0 .* in queue_push \(' "$TMP/gdb" || fail "bt does not start at queue_push"
grep -q 'monitoring ends' "$TMP/gdb" || fail "vigil detach"
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not run to its end"
wait_vigil
expect_rc 1
grep -q 'queue_new=6 queue_push=18 queue_pop=18' "$TMP/prog.out" || fail "the program's output"
echo PASS
