# What a property loaded into a running session knows of objects made
# before the load (docs/reference/live-gdb.md): nothing. double_free, loaded with -D on
# the program's own allocator after block A was allocated and before
# block B was, reports B freed twice and not A: A's address has no slice.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_load_helpers.bash"

cat >"$TMP/frees.vigil" <<'V'
property frees "the session's own property: counts frees"
slice on ptr p
state s accepting { before my_free(p) -> s }
V
"$VIGIL" run --on-violation=continue "$TMP/frees.vigil" -- "$TARGETS/late_free" "$TMP/go" \
	>"$TMP/vigil.out" 2>"$TMP/vigil.err" </dev/null &
VIGIL_PID=$!
wait_ctl late_free
"$VIGIL" ctl "$pid" load specs/lib/double_free.vigil -D alloc=my_alloc -D release=my_free >"$TMP/load" ||
	{ cat "$TMP/load" "$TMP/vigil.err"; fail "vigil ctl load"; }
grep -q '^loaded double_free ' "$TMP/load" || fail "load: $(cat "$TMP/load")"
touch "$TMP/go"
wait "$VIGIL_PID"
RC=$?
cat "$TMP/vigil.err" "$TMP/vigil.out"
expect_rc 1
a=$(sed -nE 's/^a=(0x[0-9a-f]+) b=.*/\1/p' "$TMP/vigil.out")
b=$(sed -nE 's/^a=.* b=(0x[0-9a-f]+)$/\1/p' "$TMP/vigil.out")
[ -n "$a" ] && [ -n "$b" ] || fail "the program did not run to its end"
[ "$(grep -c '^vigil: VIOLATION of double_free' "$TMP/vigil.err")" = 1 ] || fail "not exactly one double free reported"
grep -A1 '^vigil: VIOLATION of double_free' "$TMP/vigil.err" | grep -q "slice  p=$b\$" ||
	fail "the double free reported is not block B's (allocated after the load)"
grep -q "p=$a" "$TMP/vigil.err" && fail "block A, allocated before the load, has a slice"
grep -q "^vigil: loaded from .*/specs/lib/double_free.vigil: ERROR SUMMARY: 1 error: double_free.double_free=1" "$TMP/vigil.err" ||
	fail "the loaded property's summary"
grep -q 'before:my_free=4$' "$TMP/vigil.err" || fail "the session's own probe counts"
echo PASS
