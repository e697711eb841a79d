# vigil attach -p PID on a running 16-thread process: every thread is
# monitored, those that existed before the attach and one created after it;
# the per-probe count equals the calls the target counted; vigil reports
# the new thread, detaches when the target exits and reports its status
# or the signal that killed it (which only a parent could wait for).
. "$(dirname "$0")/lib.sh"

cat >"$TMP/work.vigil" <<'SPEC'
property per_thread "each thread's calls come in order"
slice on int id
int next = 0
state s accepting {
  before work(id, k) when k == next { next = next + 1; } -> s
  before work(id, k) -> bad
}
state bad violation

property births "threads started after the attach"
int born = 0
state s accepting {
  thread_start { born = born + 1; } -> s
}
SPEC

links() { uprobes_on "$TARGETS/threads"; }
base=$(links)

# auto: per_thread runs in the kernel tier, births (a lifecycle event) in
# the user tier
for tier in auto user; do
	"$TARGETS/threads" 2000 >"$TMP/target.out" &
	tpid=$!
	LEFT_PIDS+=("$tpid")
	for _ in $(seq 100); do grep -q ready "$TMP/target.out" && break; sleep 0.05; done
	[ "$(ls /proc/$tpid/task | wc -l)" -eq 17 ] || fail "the target does not have 17 threads"

	"$VIGIL" attach --tier=$tier --json "$TMP/v.jsonl" "$TMP/work.vigil" -p "$tpid" >"$TMP/out" 2>&1 &
	vpid=$!
	for _ in $(seq 100); do [ "$(links)" -gt "$base" ] && break; sleep 0.1; done
	[ "$(links)" -gt "$base" ] || fail "vigil attached no probe"
	sleep 0.3
	kill -USR1 "$tpid"
	wait "$tpid"
	trc=$?
	wait "$vpid"
	RC=$?
	cat "$TMP/target.out" "$TMP/out"
	[ "$trc" -eq 3 ] || fail "target exited $trc"
	expect_rc 0
	grep -q "threads: calls work=34000 threads=17" "$TMP/target.out" || fail "target did not finish"
	expect_out "per_thread: ${tier/auto/kernel} tier"
	expect_out "before:work=34000( |$)"
	expect_out "thread_start=1( |$)"
	expect_out "per_thread: live slices by state: s=17 bad=0"
	expect_out "target exited with status 3"
	expect_no_out "VIOLATION|lost=[1-9]"
	sleep 0.3
	[ "$(links)" -eq "$base" ] || fail "probes left after the target exited"
done
# killed while attached: the signal, as the exit tracepoint saw it
"$TARGETS/threads" >"$TMP/target.out" &
tpid=$!
LEFT_PIDS+=("$tpid")
for _ in $(seq 100); do grep -q ready "$TMP/target.out" && break; sleep 0.05; done
"$VIGIL" attach --tier=user "$TMP/work.vigil" -p "$tpid" >"$TMP/out" 2>&1 &
vpid=$!
for _ in $(seq 100); do [ "$(links)" -gt "$base" ] && break; sleep 0.1; done
kill -SEGV "$tpid"
wait "$vpid"
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "target killed by signal 11"
echo ok
