# A monitored library the target loads with dlopen, unloads (dlclose) and
# loads again: with --lib its probes are attached before the library is
# mapped, fire once it is, and again after the reload; every call is
# counted, in both tiers, run and attach. Attached to a program that has
# the library mapped already, it is found without --lib. Without --lib
# (and not mapped) the function is not found, and the message says to use
# it. The host's bug after the
# reload is caught inside the plugin. No probe is left behind.
. "$(dirname "$0")/lib.sh"

LIB=$TARGETS/libplugin.so
REAL_LIB=$(readlink -f "$LIB")
# uprobes on the plugin, whoever owns them
probes() { uprobes_on "$REAL_LIB"; }
no_probes_left() {	# $1: what just ended
	[ "$(probes)" -eq 0 ] || fail "probes left on $LIB after $1: $(bpftool perf list)"
}
[ -f "$LIB" ] || fail "$LIB not built"
[ "$(probes)" -eq 0 ] || fail "probes on $LIB before the test"

cat >"$TMP/plugin.vigil" <<'SPEC'
property plugin_ctx "plugin_step gets a context plugin_init set up; its calls are counted"
slice on ptr ctx
int n = 0

state init accepting {
  before plugin_init(ctx) -> ready
  before plugin_step(ctx) -> bad
}
state ready accepting {
  before plugin_step(ctx) { n = n + 1; } -> ready
  before plugin_fini(ctx) -> done
}
state done accepting {
  before plugin_init(ctx) -> ready
  before plugin_step(ctx) -> bad
}
state bad violation

on enter bad: stop
SPEC

# the counts of a run that went to the end: the host's own, vigil's per
# probe (text and JSON) and the slice's n all agree, and dlclose really
# unmapped the library between the two loads
check_counts() {	# $1: what ran, $2: the JSON file
	expect_out "dlhost: unloaded, not mapped"
	calls=$(sed -nE 's/.*dlhost: calls=([0-9]+) \(([0-9]+) before the reload, ([0-9]+) after\).*/\1 \2 \3/p' "$TMP/out")
	set -- "$1" "$2" $calls
	[ $# -eq 5 ] || fail "$1: no count from the host"
	[ "$4" -gt 0 ] && [ "$5" -gt 0 ] || fail "$1: no call on one side of the reload ($4, $5)"
	expect_out "before:plugin_init=2 before:plugin_step=$3 before:plugin_fini=2( |$)"
	expect_out "target exited with status 0"
	python3 - "$2" "$3" <<'PY' || fail "$1: JSON counts differ from the host's"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
want = int(sys.argv[2])
hits = {p["name"]: p["hits"] for o in objs if o["type"] == "stats" for p in o["probes"]}
assert hits == {"plugin_init": 2, "plugin_step": want, "plugin_fini": 2}, hits
v = [o for o in objs if o["type"] == "verdict"]
assert len(v) == 1 and v[0]["state"] == "done" and v[0]["vars"] == {"n": want}, v
print("ok: plugin_step", want, "times")
PY
}

# --- (a) vigil run, both tiers --------------------------------------------
for tier in kernel user; do
	run_vigil run --tier=$tier --lib "$LIB" --json "$TMP/$tier.jsonl" "$TMP/plugin.vigil" -- "$TARGETS/dlhost" 1000 700
	expect_rc 0
	expect_out "plugin_ctx: $tier tier"
	expect_no_out VIOLATION
	check_counts "run --tier=$tier" "$TMP/$tier.jsonl"
	no_probes_left "run --tier=$tier"
done

# vigil attach (the arguments after $1 and $2) to the host $hpid, until
# at least $1 probes are on the library ($2: what, for the message)
start_attach() {
	local n=$1 what=$2
	shift 2
	"$VIGIL" attach "$@" -p "$hpid" >"$TMP/vigil.out" 2>&1 &
	vpid=$!
	for _ in $(seq 100); do [ "$(probes)" -ge "$n" ] && break; sleep 0.1; done
	[ "$(probes)" -ge "$n" ] || { cat "$TMP/vigil.out"; fail "$what: no probe on $LIB"; }
}
# let the paused host go; RC is vigil's status, $TMP/out both outputs
go_and_collect() {
	kill -USR1 "$hpid"
	wait "$vpid"
	RC=$?
	wait "$hpid"
	cat "$TMP/vigil.out" "$TMP/host.out" >"$TMP/out"
	cat "$TMP/out"
}

# --- (a) vigil attach, the library not yet mapped ---------------------------
"$TARGETS/dlhost" --pause 600 400 >"$TMP/host.out" 2>&1 &
hpid=$!
LEFT_PIDS+=("$hpid")
for _ in $(seq 50); do grep -q "dlhost: pid" "$TMP/host.out" && break; sleep 0.1; done
start_attach 3 attach --lib "$LIB" --json "$TMP/attach.jsonl" "$TMP/plugin.vigil"
! grep -q libplugin "/proc/$hpid/maps" || fail "attach: $LIB already mapped"
go_and_collect
expect_rc 0
check_counts attach "$TMP/attach.jsonl"
no_probes_left attach

# --- (c) vigil attach without --lib, the library mapped already -------------
# (the libraries a running program has mapped are searched too)
cat >"$TMP/steps.vigil" <<'SPEC'
property steps "plugin_step's calls are counted"
state s accepting {
  before plugin_step() -> s
}
SPEC
"$TARGETS/dlhost" --pause-loaded 600 400 >"$TMP/host.out" 2>&1 &
hpid=$!
LEFT_PIDS+=("$hpid")
for _ in $(seq 50); do grep -q "dlhost: waiting" "$TMP/host.out" && break; sleep 0.1; done
grep -q libplugin "/proc/$hpid/maps" || fail "attach (c): $LIB not mapped yet"
start_attach 1 "attach (c)" "$TMP/steps.vigil"
go_and_collect
expect_rc 0
expect_out "dlhost: calls=1000 \(600 before the reload, 400 after\)"
expect_out "^vigil: stats: .* before:plugin_step=1000( |$)"
no_probes_left "attach (c)"

# --- (b) without --lib: the function is not found, --lib is suggested -------
run_vigil run "$TMP/plugin.vigil" -- "$TARGETS/dlhost" 10 10
expect_rc 2
expect_out "$TMP/plugin.vigil:6:3: function 'plugin_init' not found in [^ ]*$TARGETS/dlhost or its [0-9]+ libraries; if the program loads it with dlopen, name the library with --lib PATH"
expect_no_out "dlhost: calls"
! pgrep -f "$TARGETS/dlhost 10 10" >/dev/null || fail "target left behind"
no_probes_left "a run that failed"

run_vigil run --lib "$TMP/plugin.vigil" "$TMP/plugin.vigil" -- "$TARGETS/dlhost" 10 10
expect_rc 2
expect_out "--lib $TMP/plugin.vigil: not an ELF file"
run_vigil run --lib "$TMP/nonexistent.so" "$TMP/plugin.vigil" -- "$TARGETS/dlhost" 10 10
expect_rc 2
expect_out "--lib $TMP/nonexistent.so: No such file or directory"

# lint resolves functions too; a bare name is looked for as dlopen would
run_vigil lint "$TMP/plugin.vigil" --binary "$TARGETS/dlhost"
expect_rc 2
expect_out "name the library with --lib PATH"
run_vigil lint "$TMP/plugin.vigil" --binary "$TARGETS/dlhost" --lib "$LIB"
expect_rc 0
expect_out "probe before plugin_step: $REAL_LIB\+0x[0-9a-f]+"
LD_LIBRARY_PATH=$TARGETS run_vigil lint "$TMP/plugin.vigil" --binary "$TARGETS/dlhost" --lib libplugin.so
expect_rc 0
expect_out "probe before plugin_step: [^ ]*/libplugin.so\+0x[0-9a-f]+"
LD_LIBRARY_PATH= run_vigil lint "$TMP/plugin.vigil" --binary "$TARGETS/dlhost" --lib libplugin.so
expect_rc 2
expect_out "--lib libplugin.so: not found where dlopen from"

# --- (c) the host's bug after the reload, caught inside the plugin ---------
run_vigil run --lib "$LIB" "$TMP/plugin.vigil" -- "$TARGETS/dlhost" --bug 1000 700
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
no_probes_left "a violation (vigil gone, the target left stopped)"
expect_rc 1
expect_out "plugin_ctx: kernel tier"
expect_out "VIOLATION of plugin_ctx"
expect_out "state  done -> bad"
expect_out "vars   n=1000"
expect_out "dlhost: unloaded, not mapped"
expect_no_out "plugin_step on a context not initialised|dlhost: calls"
[ -n "$pid" ] || fail "no stopped pid printed"
[ "$(proc_state "$pid")" = T ] || fail "target $pid is in state '$(proc_state "$pid")', not T"
gdb_handoff "-ex bt -ex 'print ctx->magic'"
cat "$TMP/gdb"
expect_frame 0 'plugin_step .*plugin\.c' "not stopped in plugin_step"
expect_frame 1 'session .*skip_init=skip_init@entry=1' "not stopped after the reload"
grep -qE '^\$1 = 0$' "$TMP/gdb" || fail "the context is not the torn-down one"
kill -KILL "$pid"
echo ok
