# What `vigil lint --binary` prints as the plan is what `vigil run`
# installs: the same uprobes and uretprobes at the same offsets (read back
# from the kernel's multi-uprobe links, tests/e2e/uprobes_on.py), with
# an `after` event's entry half and placement; each with its event (the
# link's cookies) and the program lint names; and the same event table
# (the ev_conf map the attached programs read: flags, where each argument
# is and its C type, return values, --dynamic's arming sets, the
# records' slots), for phases (user tier, --dynamic) and for typed
# (kernel tier; ints, shorts, chars, bools in registers and on the
# stack).
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
plan=$(planned)
echo "planned:"; echo "$plan"
[ "$(wc -l <<<"$plan")" -eq 4 ] || fail "lint plans $(wc -l <<<"$plan") uprobes, not 4 (entry half and return of open_session, noise, close_session)"

# The sites with their events and programs, and the event table: lint's
# lines in the form uprobes_on.py reads back from the kernel
planned_full() {	# lint output on stdin: "uprobe 0xOFF event N PROG"
	awk -v f="$1" '
	/^  event [0-9]+ / { n = $2; k = $3 " " $4; sub(/:$/, "", k); ev[k] = n }
	/^  (uprobe|uretprobe) / {
		k = $2 " " $3; sub(/:$/, "", k)
		split($4, a, "+"); off = a[2]; sub(/,$/, "", off)
		prog = $5; sub(/,$/, "", prog)
		if (a[1] == f) print $1, off, "event", ev[k], prog
	}' | sort
}
planned_table() {	# "table N: ..." per event
	awk '/^  event [0-9]+ / { n = $2 }
	     /^    table: / { sub(/^    table: /, ""); print "table " n ": " $0 }'
}
# BIN NEVENTS SPEC ARGS...: lint --binary BIN ARGS SPEC's sites and event
# table equal those vigil run ARGS SPEC -- BIN RUNARGS installs (RUNARGS
# in $RUNARGS)
compare() {
	local bin=$1 n=$2 spec=$3 seen_sites= seen_table=
	shift 3
	"$VIGIL" lint --binary "$bin" "$@" "$spec" >"$TMP/lint" || fail "lint $* failed"
	local plan_sites plan_table
	plan_sites=$(planned_full "$bin" <"$TMP/lint")
	plan_table=$(planned_table <"$TMP/lint")
	[ -n "$plan_sites" ] && [ "$(wc -l <<<"$plan_table")" -eq "$n" ] ||
		fail "lint $* printed no sites or not $n table lines"
	"$VIGIL" run "$@" "$spec" -- "$bin" $RUNARGS >"$TMP/out" 2>&1 &
	local vpid=$!
	LEFT_PIDS+=("$vpid")
	for _ in $(seq 100); do
		[ -n "$(python3 "$(dirname "$0")/uprobes_on.py" --sites "$bin")" ] && break
		sleep 0.05
	done
	sleep 0.3	# all groups in
	seen_sites=$(python3 "$(dirname "$0")/uprobes_on.py" --sites-full "$bin")
	seen_table=$(python3 "$(dirname "$0")/uprobes_on.py" --table "$n" "$bin")
	wait "$vpid"
	RC=$?
	cat "$TMP/out"
	expect_rc 0
	echo "planned ($*):"; echo "$plan_sites"; echo "$plan_table"
	echo "installed:"; echo "$seen_sites"; echo "$seen_table"
	[ -n "${TABLE_ONLY:-}" ] || [ "$seen_sites" = "$plan_sites" ] ||
		fail "vigil run $* attached other sites, events or programs than lint's plan"
	[ "$seen_table" = "$plan_table" ] ||
		fail "vigil run $* installed another event table than lint's plan"
}

# the user tier; then --dynamic, whose noise and close_session probes are
# dormant until a session opens (so the links' sites vary while it runs:
# the table alone is compared), open_session's return arming both
RUNARGS="2000 12" compare "$TMP/phases" 3 "$TMP/s.vigil" --tier=user
RUNARGS="2000 12" TABLE_ONLY=1 compare "$TMP/phases" 3 "$TMP/s.vigil" --tier=user --dynamic
grep -q "table 0: .*arms=0x6" <(planned_table <"$TMP/lint") ||
	fail "lint --dynamic plans no arming set for open_session"

# the kernel tier, on arguments DWARF places: an int, an unsigned short,
# a signed char and a bool in registers, an int and a long on the stack,
# a short return value
cp "$TARGETS/typed" "$TMP/typed"
cat >"$TMP/typed.vigil" <<'SPEC'
property typed "C values"
state s accepting {
  before narrow(a, b, c, d) when a + b + c + d == 7 -> s
  before many(x1, x2, x3, x4, x5, x6, x7, x8) when x7 + x8 == 3 -> s
  after neg(i) returns r when r == 9 -> s
}
SPEC
RUNARGS=100000 compare "$TMP/typed" 3 "$TMP/typed.vigil"
grep -q "arg6=stack8/sext4" <<<"$(planned_table <"$TMP/lint")" ||
	fail "many's seventh argument is not planned as an int on the stack"
