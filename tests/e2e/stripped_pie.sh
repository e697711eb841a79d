# A stripped PIE: no .symtab, no DWARF, functions found through .dynsym
# (built with -rdynamic), arguments as integer registers by position (the
# arg0 form), load base resolved at run time. Per-probe counts equal the
# calls the target says it made, the bug is found in both tiers, and a
# PIE stripped of every symbol gets an error naming the function, the
# binary and the spec line.
. "$(dirname "$0")/lib.sh"

cc -O1 -g -fPIE -pie -rdynamic -fno-omit-frame-pointer -fno-inline -pthread \
	-o "$TMP/queue-pie" tests/targets/queue.c || fail "cannot build the target"
strip --strip-all "$TMP/queue-pie"
file "$TMP/queue-pie" | grep -q "pie executable.*stripped" ||
	fail "not a stripped PIE: $(file "$TMP/queue-pie")"
readelf -S "$TMP/queue-pie" | grep -qE "\.symtab|\.debug_info" &&
	fail "the copy still has .symtab or DWARF"

cat >"$TMP/arg0.vigil" <<'SPEC'
property bounds "pushes never exceed the capacity"
slice on ptr arg0
int n = 0, max = 0
state init accepting {
  after queue_new(size) returns arg0 { max = size; } -> ready
}
state ready accepting {
  before queue_push(arg0) when n < max { n = n + 1; } -> ready
  before queue_push(arg0) -> overflow
  before queue_pop(arg0) when n > 0 { n = n - 1; } -> ready
  before queue_pop(arg0) -> underflow
}
state overflow violation
state underflow violation
SPEC

for tier in kernel user; do
	run_vigil run --tier=$tier "$TMP/arg0.vigil" -- "$TMP/queue-pie"
	expect_rc 0
	expect_out "bounds: $tier tier"
	expect_no_out "VIOLATION|warning"
	calls=$(sed -nE 's/^queue: calls (.*)/\1/p' "$TMP/out")
	[ -n "$calls" ] || fail "target did not print its counts"
	for kv in $calls; do
		expect_out "(before|after):${kv%=*}=${kv#*=}( |$)"
	done

	run_vigil run --tier=$tier --on-violation=continue "$TMP/arg0.vigil" -- "$TMP/queue-pie" --bug
	expect_rc 1
	expect_out "VIOLATION of bounds"
	expect_out "state  ready -> overflow"
done

# where the probes go: .dynsym, without DWARF types
run_vigil lint "$TMP/arg0.vigil" --binary "$TMP/queue-pie"
expect_rc 0
expect_out "probe before queue_push: .*queue-pie\+0x[0-9a-f]+"
expect_out "^    arg0: 8 bytes in %rdi \(no DWARF type\)$"

# every symbol stripped: the function, the binary and the spec line
cc -O1 -fPIE -pie -pthread -o "$TMP/queue-bare" tests/targets/queue.c || fail "cannot build"
strip --strip-all "$TMP/queue-bare"
run_vigil run "$TMP/arg0.vigil" -- "$TMP/queue-bare"
expect_rc 2
expect_out "arg0.vigil:5:[0-9]+: .*queue_new.*queue-bare"
echo ok
