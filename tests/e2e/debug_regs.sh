# Debug registers that never fire: some hypervisors accept a hardware
# breakpoint and never raise it (a PVM guest's kernel does). vigil then
# refuses a spec that watches a global, exit 3, naming the event and why,
# instead of running it to a verdict of "no errors"; a spec that watches
# a slice's memory runs, says so once, still sees the calls that touch
# the memory, and ends each slice that needed a watchpoint inconclusive.
# Where they fire, both run as ever. gdb's own hardware watchpoint on the
# same global says which of the two this machine is.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/w.vigil" <<'SPEC'
property counts "counter goes 1, 2, 3..."
int next = 1
state s accepting {
  write counter when value == next { next = next + 1; } -> s
  write counter -> bad
}
state bad violation
SPEC

gdb_out=$(timeout 60 gdb -q -batch -ex 'break main' -ex run -ex 'watch counter' \
	-ex continue -ex kill "$TARGETS/watched" 10 1 2>&1)
grep -q '^Hardware watchpoint 2: counter' <<<"$gdb_out" ||
	fail "gdb set no hardware watchpoint: $gdb_out"
out=$("$VIGIL" run "$TMP/w.vigil" -- "$TARGETS/watched" 10 1 2>&1)
rc=$?
echo "$out"
if grep -q '^Old value = ' <<<"$gdb_out"; then
	echo "gdb's hardware watchpoint fired: this machine's debug registers work"
	[ "$rc" -eq 0 ] || fail "exit $rc, expected 0"
	grep -q 'write:counter=10\b' <<<"$out" || fail "not the 10 writes of counter"
	grep -q 'debug registers do not fire' <<<"$out" && fail "said the registers do not fire"
else
	echo "gdb's hardware watchpoint did not fire: this machine's debug registers do not work"
	[ "$rc" -eq 3 ] || fail "exit $rc, expected 3 (missing kernel feature)"
	grep -q "w.vigil:4:3: 'write counter' needs hardware watchpoints, and this machine's debug registers do not fire" <<<"$out" ||
		fail "no error naming the event and the reason"
	grep -q '^watched: ' <<<"$out" && fail "the program ran"
fi

# a slice's memory: use_after_free over blocks read by memcpy, write(2)
# and strlen after their free (tests/e2e/uaf_calls.sh)
out=$("$VIGIL" run --on-violation=continue specs/lib/use_after_free.vigil -- \
	"$TARGETS/uafcalls" 2>&1)
rc=$?
echo "$out" | grep -E '^vigil: (watchpoints|ERROR SUMMARY)'
[ "$rc" -eq 1 ] || fail "use_after_free through calls: exit $rc, expected 1"
n=$(grep -c 'state  freed -> use_after_free (violation)' <<<"$out")
[ "$n" -eq 3 ] || fail "$n accesses after free through calls, not 3"
if grep -q '^Old value = ' <<<"$gdb_out"; then
	grep -q 'debug registers do not fire' <<<"$out" && fail "said the registers do not fire"
else
	grep -q "^vigil: watchpoints: this machine's debug registers do not fire: .*Direct reads and writes of a slice's memory go unseen" <<<"$out" ||
		fail "no word that direct accesses go unseen"
	grep -qE '^vigil: ERROR SUMMARY: 3 errors: use_after_free.use_after_free=3; [0-9]+ slices? inconclusive' <<<"$out" ||
		fail "the slices that needed a watchpoint are not inconclusive"
fi
echo PASS
