# vigil graph: DOT with every state and transition, SVG through Graphviz,
# states filled by kind (the live view's colours), ids on states and
# transitions (the live view animates them), and --trace marking reached
# states (a thick border) and slice counts.
. "$(dirname "$0")/lib.sh"

run_vigil graph specs/queue_bounds.vigil
expect_rc 0
expect_out '^digraph vigil'
for s in init ready overflow underflow; do expect_out "label=\"$s\""; done
[ "$(grep -c -- '->' "$TMP/out")" -eq 6 ] || fail "expected 5 transitions and the start arrow"
expect_out 'p0_s2 \[label="overflow", shape=circle, color=red, fontcolor=red, style=filled, fillcolor="#f2dede", id="p0_s2"\];'
expect_out 'p0_s1 \[label="ready", shape=doublecircle, style=filled, fillcolor="#dff0d8", id="p0_s1"\];'
expect_out 'p0_s1 -> p0_s2 \[label="before queue_push", id="p0_t2"\];'
expect_no_out 'penwidth'

run_vigil graph --svg -o "$TMP/q.svg" specs/queue_bounds.vigil
expect_rc 0
grep -q '<svg' "$TMP/q.svg" || fail "no SVG written"

run_vigil graph --trace tests/traces/unsafe_iter.csv specs/unsafe_iter.vigil
expect_rc 0
expect_out 'label="bad\\n3 slices", shape=circle, color=red, fontcolor=red, style=filled, fillcolor="#f2dede", penwidth=3'
expect_out 'label="live\\n0 slices", shape=doublecircle, style=filled, fillcolor="#dff0d8", penwidth=3'

# a state no slice reached has no thick border; a nonaccepting one is amber
cat >"$TMP/pending.vigil" <<'EOF'
property pending "a request is answered"
slice on r
event req(r)
event ans(r)
event never(r)
state init accepting { req(r) -> waiting }
state waiting nonaccepting { ans(r) -> init  never(r) -> lost }
state lost violation
EOF
printf 'req,1\nreq,2\nans,1\n' >"$TMP/t.csv"
run_vigil graph --trace "$TMP/t.csv" "$TMP/pending.vigil"
expect_rc 0
expect_out 'p0_s1 \[label="waiting\\n1 slice", shape=circle, style=filled, fillcolor="#fcf8e3", penwidth=3, id="p0_s1"\];'
expect_out 'p0_s2 \[label="lost\\n0 slices", shape=circle, color=red, fontcolor=red, style=filled, fillcolor="#f2dede", id="p0_s2"\];'
