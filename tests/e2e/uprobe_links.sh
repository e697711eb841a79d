# The uprobes of one BPF program on one file go into one multi-uprobe link
# (Linux 6.6), and VIGIL_NO_UPROBE_MULTI=1 forces the fallback of one link
# per uprobe; both see every call, and leave nothing attached. The target
# is a copy of tests/targets/phases.c, so that no other run on the machine
# has uprobes on its file.
. "$(dirname "$0")/lib.sh"

cp "$TARGETS/phases" "$TMP/phases"
cat >"$TMP/three.vigil" <<'SPEC'
property calls "sessions are opened before noise and closed after"
int open = 0
state s accepting {
  before open_session(id) { open = open + 1; } -> s
  before noise(k) -> s
  before close_session(id) { open = open - 1; } -> s
}
SPEC

links_now() { python3 "$(dirname "$0")/uprobes_on.py" --links "$TMP/phases"; }

# run_and_count [ENV...]: vigil run on the copy (20 sessions with pauses,
# about 3 s); while it runs, sets LINKS and PROBES as seen on the file
run_and_count() {
	env "$@" "$VIGIL" run --tier=user "$TMP/three.vigil" -- "$TMP/phases" 20000 20 \
		>"$TMP/out" 2>&1 &
	local vpid=$!
	LEFT_PIDS+=("$vpid")
	PROBES=0
	for _ in $(seq 100); do
		PROBES=$(uprobes_on "$TMP/phases")
		[ "$PROBES" -ge 3 ] && break
		sleep 0.05
	done
	LINKS=$(links_now)
	wait "$vpid"
	RC=$?
	cat "$TMP/out"
}

for mode in multi single; do
	if [ $mode = multi ]; then run_and_count; else run_and_count VIGIL_NO_UPROBE_MULTI=1; fi
	expect_rc 0
	expect_out "phases: noise=41200 inside=1200"
	expect_out "before:open_session=21 before:noise=41200 before:close_session=21"
	[ "$PROBES" -eq 3 ] || fail "$mode: $PROBES uprobes on the target's file, not 3"
	if [ $mode = multi ]; then
		[ "$LINKS" -eq 1 ] || fail "multi: the 3 uprobes are in $LINKS multi-uprobe links, not 1"
	else
		[ "$LINKS" -eq 0 ] || fail "single: $LINKS multi-uprobe links with VIGIL_NO_UPROBE_MULTI=1"
	fi
	[ "$(uprobes_on "$TMP/phases")" -eq 0 ] || fail "$mode: uprobes left after vigil's exit"
done

# --dynamic through the fallback (tests/e2e/dynamic.sh's first case):
# noise()'s probe is attached for the session, detached after it
VIGIL_NO_UPROBE_MULTI=1 run_vigil run --dynamic specs/in_session.vigil -- "$TMP/phases"
expect_rc 0
expect_out "phases: noise=41000 inside=1000"
expect_out "before:noise=1000 before:close_session=1"
expect_out "dynamic probes: 2 attached, 2 detached, 1 arming stops"
expect_no_out "VIOLATION|warning"
[ "$(uprobes_on "$TMP/phases")" -eq 0 ] || fail "dynamic: uprobes left after vigil's exit"
