# vigil graph: DOT with every state and transition, SVG through Graphviz,
# and --trace marking reached states and slice counts.
. "$(dirname "$0")/lib.sh"

run_vigil graph specs/queue_bounds.vigil
expect_rc 0
expect_out '^digraph vigil'
for s in init ready overflow underflow; do expect_out "label=\"$s\""; done
[ "$(grep -c -- '->' "$TMP/out")" -eq 6 ] || fail "expected 5 transitions and the start arrow"
expect_out 'p0_s2 \[label="overflow", shape=circle, color=red'

run_vigil graph --svg -o "$TMP/q.svg" specs/queue_bounds.vigil
expect_rc 0
grep -q '<svg' "$TMP/q.svg" || fail "no SVG written"

run_vigil graph --trace tests/traces/unsafe_iter.csv specs/unsafe_iter.vigil
expect_rc 0
expect_out 'label="bad\\n3 slices", shape=circle, color=red, fontcolor=red, style=filled'
expect_out 'label="live\\n0 slices", shape=doublecircle, style=filled'
