#!/bin/bash
# bench/returns_bench.sh [ROUNDS] - what the real callers under `after`
# probes cost a live gdb session (scripts/gdb/vigil_returns.py): the time
# of a `continue` from a breakpoint in work() (tests/targets/tailcalls.c)
# to the next, 150 times per session, with `after work` (its return slot
# swapped at every stop, and the extra silent SIGSTOP stop as gdb resumes
# it) against `before caller` (nothing pending, nothing swapped),
# sessions interleaved. Run it under flock /tmp/vigil-timing.lock.
# Prints each session's median and 90th percentile.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
. tests/e2e/lib.sh
ROUNDS=${1:-3}
cat >"$TMP/after.vigil" <<'SPEC'
property works "work returns"
state a accepting {
  after work(n) -> a
}
SPEC
cat >"$TMP/before.vigil" <<'SPEC'
property callers "caller calls"
state a accepting {
  before caller(n) -> a
}
SPEC
cat >"$TMP/time.py" <<'PY'
import gdb, statistics, time
gdb.execute("break tailcalls.c:26")     # work's `return s;`
gdb.execute("continue", to_string=True)
ts = []
for _ in range(150):
    a = time.perf_counter()
    gdb.execute("continue", to_string=True)
    ts.append(time.perf_counter() - a)
ts.sort()
print("continue: median %.3f ms, p90 %.3f ms, n=%d" % (
    statistics.median(ts) * 1e3, ts[int(len(ts) * .9)] * 1e3, len(ts)))
gdb.execute("delete 2")
PY
for r in $(seq "$ROUNDS"); do
	for kind in after before; do
		start_live run --interactive "$TMP/$kind.vigil" -- "$TARGETS/tailcalls" 200 >/dev/null
		printf '%-7s ' "$kind"
		live_gdb "-ex 'source $TMP/time.py' -ex continue" | grep '^continue:'
		wait_vigil >/dev/null
		grep -qE 'after:work=200|before:caller=200' "$TMP/vigil.err" || fail "$kind: a probe hit was lost"
	done
done
