# A spec with a syntax error: exit 2, file:line:col, the line and a caret.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/bad.vigil" <<'SPEC'
property p
slice on q
state a {
  before f(q -> a
}
SPEC
run_vigil run "$TMP/bad.vigil" -- /bin/true
expect_rc 2
expect_out "bad.vigil:4:[0-9]+: error: "
expect_out "^ *\^"

# A function the binary does not have: named, with the binary and the line.
cat >"$TMP/nosym.vigil" <<'SPEC'
property p
state a {
  before no_such_function() -> a
}
SPEC
run_vigil run "$TMP/nosym.vigil" -- "$TARGETS/queue"
expect_rc 2
expect_out "nosym.vigil:3:[0-9]+: .*no_such_function.*queue"
