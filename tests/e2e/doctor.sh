# vigil doctor: one line per check, each run now. As root on a machine
# that runs the rest of this suite a basic run works (exit 0); the debug
# registers' line agrees with the suite's own oracle (not vigil), and is
# the check's answer, not the run directory's kept one; as a user
# without the capabilities it names them and exits 3, the BPF checks not
# run.
. "$(dirname "$0")/lib.sh"

run_vigil doctor
expect_rc 0
for l in privileges BTF "ring buffer" uprobes bpf_send_signal_thread \
	"BPF timers" "debug registers" CRIU gdb "kernel: uprobe_multi" \
	"kernel: rewind" "kernel: ktimer"; do
	expect_out "^$l: "
done
expect_out "^uprobes: works \(a BPF program on a uprobe of vigil's own function ran 3 times for its 3 calls\)$"
expect_out "^CRIU: works \(.*--allow-uprobes\)"
expect_out "^gdb: works \(GNU gdb .*, python 3"
expect_out "^vigil doctor: a basic run works here$"
if has_debug_regs && has_sound_debug_regs; then
	expect_out "^debug registers: fire \(checked: a watched variable's 16 writes counted 16\)$"
elif has_debug_regs; then
	expect_out "^debug registers: fire, and report an old hit again at a later debug exception \(checked: a single step after the writes to a watched variable counted a hit \(16 writes counted 16, and a single step after them 1 more\)\)"
else
	expect_out "^debug registers: do not fire \(checked: a write to a watched variable was not seen"
fi
# VIGIL_DEBUG_REGS=off tells runs to take them as silent; doctor checks
VIGIL_DEBUG_REGS=off "$VIGIL" doctor >"$TMP/off" 2>&1
grep '^debug registers: ' "$TMP/out" >"$TMP/a"
grep '^debug registers: ' "$TMP/off" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" || fail "doctor's answer changed with VIGIL_DEBUG_REGS=off: $(cat "$TMP/b")"

# without privileges: the capabilities named, exit 3
cp "$VIGIL" "$TMP/vigil"
chmod 755 "$TMP" "$TMP/vigil"
su nobody -s /bin/sh -c "$TMP/vigil doctor" >"$TMP/out" 2>&1
RC=$?
cat "$TMP/out"
expect_rc 3
expect_out "^privileges: does not work \(missing capabilities: CAP_BPF"
expect_out "^uprobes: not checked \(it needs the privileges above\)$"
expect_out "^vigil doctor: a basic run does NOT work here"
echo PASS
