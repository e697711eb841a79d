# Reactions of a kernel-tier property (log, exec, checkpoint) run in user
# space from the kernel tier's steps. When CRIU fails, vigil says so and monitoring goes on: the violation is
# still found and the target still stopped at it, and the log has a
# checkpoint_failed event. The exec action runs its
# command with the violation in the environment.
. "$(dirname "$0")/lib.sh"

sed -e 's/^on enter overflow: stop$/on enter ready: checkpoint\non enter overflow: log "overflow of {q} at n={n}", exec "echo \\"$VIGIL_PROPERTY|$VIGIL_STATE|$VIGIL_SLICE|$VIGIL_PID|$VIGIL_JSON\\" >'"${TMP//\//\\/}"'\/exec.out", stop/' \
	specs/queue_bounds.vigil >"$TMP/spec.vigil"
cat "$TMP/spec.vigil" | grep '^on'
grep -q 'exec "echo' "$TMP/spec.vigil" || fail "could not derive the spec"

export VIGIL_CRIU=/bin/false
run_vigil run --journal="$TMP/log.jsonl" --checkpoint-dir "$TMP/ck" "$TMP/spec.vigil" -- "$TARGETS/queue" --bug
unset VIGIL_CRIU
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "checkpoint failed: criu dump exited 1: .*; monitoring continues"
expect_out "VIOLATION of queue_bounds"
# the reactions run from the kernel tier's steps, as from the user tier's
expect_out "queue_bounds: kernel tier"
expect_out "queue_bounds: overflow of 0x[0-9a-f]+ at n=8"
expect_out "checkpoints: taken=0 skipped=[0-9]+ \(--checkpoint-gap\) failed=[1-9]"
[ "$(proc_state "$pid")" = T ] || fail "target not stopped at the violation"
# the operator's log says so too
grep -q '"VIGIL_EVENT":"checkpoint_failed"' "$TMP/log.jsonl" ||
	fail "no checkpoint_failed in the journal's JSON: $(cat "$TMP/log.jsonl")"
ls "$TMP"/ck/failed-dump-*.log >/dev/null || fail "the failed dump's log is not kept"
[ -z "$(ls -d "$TMP"/ck/ck-* 2>/dev/null)" ] || fail "a failed dump left an image directory"

for _ in $(seq 50); do [ -s "$TMP/exec.out" ] && break; sleep 0.1; done
cat "$TMP/exec.out"
grep -qE "^queue_bounds\|overflow\|q=0x[0-9a-f]+\|$pid\|\{\"type\":\"exec\",\"property\":\"queue_bounds\",\"state\":\"overflow\",\"slice\":\{\"q\":\"0x[0-9a-f]+\"\},\"pid\":$pid," "$TMP/exec.out" ||
	fail "exec did not get the violation in its environment"
