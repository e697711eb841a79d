# What `vigil lint --binary` prints as the plan is what `vigil run`
# installs: the same uprobes and uretprobes at the same offsets (read back
# from the kernel's multi-uprobe links, tests/e2e/uprobes_on.py), with
# an `after` event's entry half, placement, and a --dynamic probe that
# starts detached.
. "$(dirname "$0")/lib.sh"

cp "$TARGETS/phases" "$TMP/phases"
cat >"$TMP/s.vigil" <<'SPEC'
property in_session "noise inside a session"
slice on int s
state init accepting {
  after open_session(id) returns s -> open
}
state open accepting {
  before noise(k) -> open
  before close_session(id) when id == s -> init
}
SPEC

# planned: "uprobe 0xOFF" lines
planned() {
	"$VIGIL" lint --binary "$TMP/phases" "$TMP/s.vigil" |
		sed -nE "s#^  (uprobe|uretprobe) [a-z]+ [a-z_]+: $TMP/phases\+(0x[0-9a-f]+),.*#\1 \2#p" | sort
}
installed() { python3 "$(dirname "$0")/uprobes_on.py" --sites "$TMP/phases"; }

run_and_list() {	# vigil run ARGS on the copy; sets SEEN while it runs
	"$VIGIL" run "$@" "$TMP/s.vigil" -- "$TMP/phases" 20000 20 >"$TMP/out" 2>&1 &
	local vpid=$!
	LEFT_PIDS+=("$vpid")
	SEEN=
	for _ in $(seq 100); do
		SEEN=$(installed)
		[ -n "$SEEN" ] && break
		sleep 0.05
	done
	sleep 0.3	# all groups in
	SEEN=$(installed)
	wait "$vpid"
	RC=$?
	cat "$TMP/out"
}

plan=$(planned)
echo "planned:"; echo "$plan"
[ "$(wc -l <<<"$plan")" -eq 4 ] || fail "lint plans $(wc -l <<<"$plan") uprobes, not 4 (entry half and return of open_session, noise, close_session)"
run_and_list --tier=user
expect_rc 0
echo "installed:"; echo "$SEEN"
[ "$SEEN" = "$plan" ] || fail "vigil run installed something else than lint's plan"
