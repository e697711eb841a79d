# vigil lint: tiers with the reason, warnings, and --binary placement.
. "$(dirname "$0")/lib.sh"

run_vigil lint specs/lib/mutex.vigil
expect_rc 0
expect_out "^mutex_discipline: kernel tier$"
expect_out "^mutex_held_at_exit: user tier: not kernel because event thread_exit is not a function call"

run_vigil lint specs/lib/double_free.vigil --binary "$TARGETS/allocs"
expect_rc 0
expect_out "probe before free: .*libc.so.6\+0x[0-9a-f]+, entry probe moved .* fast \(emulated\)"
expect_out "probe after malloc: .*libc.so.6"
# libc's own parameter names (free's 'mem', where the spec says 'p') are
# not the user's to act on: listed only with --all-warnings (this needs
# libc's DWARF, which scripts/setup.sh installs: libc6-dbg)
expect_no_out "warning: free: the spec calls parameter 1"
expect_out "^1 property, 0 warnings$"
run_vigil lint --all-warnings specs/lib/double_free.vigil --binary "$TARGETS/allocs"
expect_rc 0
expect_out "double_free.vigil:[0-9]+:[0-9]+: warning: free: the spec calls parameter 1 'p'; .*libc.so.6 calls it 'mem'"

# a state nothing enters, and a transition that can never fire
cat >"$TMP/w.vigil" <<'SPEC'
property w
state a {
  before f() -> a
  before f() -> b
}
state b
state c
SPEC
run_vigil lint "$TMP/w.vigil"
expect_rc 0
expect_out "w.vigil:4:[0-9]+: warning: .*never fire"
expect_out "w.vigil:7:[0-9]+: warning: .*c"

# a function in neither the binary nor its libraries: named, with both
printf 'property p\nstate a {\n  before no_such_fn() -> a\n}\n' >"$TMP/n.vigil"
run_vigil lint "$TMP/n.vigil" --binary "$TARGETS/allocs"
expect_rc 2
expect_out "n.vigil:3:3: function 'no_such_fn' not found in .*allocs"
