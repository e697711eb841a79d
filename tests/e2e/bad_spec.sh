# Bad input: a spec with a syntax error (exit 2, file:line:col, the line
# and a caret), a function the binary lacks, and a missing capability (exit 3).
. "$(dirname "$0")/lib.sh"

cat >"$TMP/bad.vigil" <<'SPEC'
property p
slice on q
state a {
  before f(q -> a
}
SPEC
run_vigil run "$TMP/bad.vigil" -- /bin/true
expect_rc 2
expect_out "bad.vigil:4:[0-9]+: error: "
expect_out "^ *\^"

# A function the binary does not have: named, with the binary and the line.
cat >"$TMP/nosym.vigil" <<'SPEC'
property p
state a {
  before no_such_function() -> a
}
SPEC
run_vigil run "$TMP/nosym.vigil" -- "$TARGETS/queue"
expect_rc 2
expect_out "nosym.vigil:3:[0-9]+: .*no_such_function.*queue"

# Without CAP_BPF (root, with it dropped from the bounding set): exit 3,
# naming that capability and no other, before the program is started.
RC=0
setpriv --bounding-set=-bpf --inh-caps=-bpf "$VIGIL" run specs/ticks.vigil -- "$TARGETS/ticker" >"$TMP/out" 2>&1 || RC=$?
cat "$TMP/out"
expect_rc 3
expect_out "missing capabilities: CAP_BPF \(load BPF programs\); run vigil as root or grant them"
expect_out "kernel.perf_event_paranoid is -?[0-9]+"
expect_no_out "CAP_PERFMON|ticker: pid"

# Inside another pid namespace the probes' pids (the host's) would never
# match the target's: exit 3 saying so and what to do, not a silent run
# with no events.
RC=0
unshare --pid --fork "$VIGIL" run specs/ticks.vigil -- "$TARGETS/ticker" >"$TMP/out" 2>&1 || RC=$?
cat "$TMP/out"
expect_rc 3
expect_out "vigil runs in a pid namespace other than the host's .*--pid=host"
expect_no_out "ticker: pid"
