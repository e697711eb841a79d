# --dynamic (tests/targets/phases.c): a function's entry probe is attached
# only while a slice is in a state that can use its event. noise() is
# called 20000 times before any session and 20000 times after it: neither
# is probed. Inside the session its first call comes right after
# open_session returns, and it is seen (the property counts from 0). Then
# 20 more sessions with pauses between them: probes come and go, and no
# first call is missed. Without --dynamic every call is probed.
. "$(dirname "$0")/lib.sh"


run_vigil run --dynamic specs/in_session.vigil -- "$TARGETS/phases"
expect_rc 0
expect_out "phases: noise=41000 inside=1000"
expect_out "before:noise=1000 before:close_session=1"
expect_out "dynamic probes: 2 attached, 2 detached, 1 arming stops"
expect_no_out "VIOLATION|warning"

run_vigil run --dynamic specs/in_session.vigil -- "$TARGETS/phases" 20000 20
expect_rc 0
expect_out "phases: noise=41200 inside=1200"
expect_out "before:noise=1200 before:close_session=21"
expect_out "in_session: live slices by state: init=0 open=0 closed=21 bad=0"
n=$(sed -nE 's/.*dynamic probes: ([0-9]+) attached, ([0-9]+) detached.*/\2/p' "$TMP/out")
[ "${n:-0}" -ge 4 ] || fail "the probes were detached only ${n:-0} times"
expect_no_out "VIOLATION"

run_vigil run specs/in_session.vigil -- "$TARGETS/phases"
expect_rc 0
expect_out "before:noise=41000 "
expect_no_out "dynamic probes"

run_vigil run --dynamic --record "$TMP/r.rec" specs/in_session.vigil -- "$TARGETS/phases"
expect_rc 2
expect_out "--dynamic does not go with --record"
echo ok
