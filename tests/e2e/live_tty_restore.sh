# A checkpoint and a restore from gdb when the program's input and output
# are the terminal (vigil run --interactive typed at a shell): CRIU refuses
# a pseudo-terminal whose master is outside the dump, so vigil dumps the
# terminal as external and hands the same one back at the restore
# (ckpt/outfiles.c). `vigil checkpoint` at the first violation, `continue`
# to the next one, `vigil restore 1`, `continue`: the same violation, of
# the same slice, again, and the program still writes to the terminal.
. "$(dirname "$0")/lib.sh"

clean() { sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r//g' "$1"; }
tty_type "$TMP/raw" continue 'vigil checkpoint' continue 'vigil restore 1' continue \
	'vigil detach' detach quit |
	timeout 90 script -qec "$VIGIL run --interactive specs/queue_bounds.vigil -- $TARGETS/queue3 --loops 2" /dev/null >"$TMP/raw" 2>&1
clean "$TMP/raw" >"$TMP/out"
cat "$TMP/out"
pid=$(sed -nE 's/.*live session with the monitor of pid ([0-9]+).*/\1/p' "$TMP/out" | head -1)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_no_out "checkpoint failed|restore failed|Found slave peer"
expect_out "^vigil: checkpoint .*/ck-0001 "
expect_out "vigil: restored pid $pid from checkpoint 1"
# the slices of the violations, in order: the first, the one after the
# checkpoint, and the one the restored program reaches again
slices=$(sed -nE 's/^  slice  (q=0x[0-9a-f]+)$/\1/p' "$TMP/out")
echo "violation slices: $slices"
[ "$(echo "$slices" | wc -l)" = 3 ] || fail "not three violation stops"
second=$(echo "$slices" | sed -n 2p)
third=$(echo "$slices" | sed -n 3p)
[ "$second" = "$third" ] ||
	fail "after the restore the program reached $third, not $second again"
[ "$(echo "$slices" | sed -n 1p)" != "$second" ] || fail "the first two stops were of one slice"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "the restored program did not run to its end"
# its last words reach the terminal
expect_out "queue_new=6 queue_push=18 queue_pop=18"
echo PASS
