# vigil load / vigil unload inside a live gdb session. The session starts
# with a property that never stops the program; queue_bounds, loaded from
# gdb before the first queue exists, takes a monitor breakpoint (vigil
# break), catches the first overflow (vigil's
# message, bt at queue_push), and `vigil graph` marks the state of the
# slice that stop was about. Unloaded, its probes are gone and the two
# overflows left stop nothing: the program runs to its end. Refused, the
# session unchanged: a bad spec (file:line:col), a function the program
# lacks (the function and the binary), a property already there.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/pops.vigil" <<'V'
property pops "queues are popped"
slice on ptr q
state seen accepting { before queue_pop(q) -> seen }
V
cat >"$TMP/bad.vigil" <<'V'
property broken "x"
slice on ptr q
state a { before queue_pop(q) -> }
V
cat >"$TMP/nosym.vigil" <<'V'
property nosym "x"
slice on ptr q
state a accepting { before no_such_function(q) -> a }
V

start_live run --interactive "$TMP/pops.vigil" -- "$TARGETS/queue3"
live_gdb "-ex 'help vigil load' -ex 'help vigil unload' -ex 'complete vigil load specs/queue_bo' -ex 'vigil load $TMP/bad.vigil' -ex 'vigil load $TMP/nosym.vigil' \
 -ex 'vigil status' -ex 'break queue_push' -ex 'vigil load specs/queue_bounds.vigil' -ex 'vigil load specs/queue_bounds.vigil' \
 -ex 'complete vigil unload queue_b' -ex 'complete vigil slices queue_bounds ov' -ex 'vigil status' \
 -ex 'vigil break queue_bounds ready' -ex 'vigil breaks' -ex continue -ex 'vigil delete 1' -ex continue -ex 'delete 2' -ex continue -ex bt -ex 'vigil graph queue_bounds' -ex 'vigil slices queue_bounds overflow' \
 -ex 'vigil unload queue_bounds' -ex 'vigil status' -ex 'vigil slices queue_bounds' -ex 'vigil graph' -ex continue"

grep -q 'Add the properties of SPEC to the live session' "$TMP/gdb" || fail "help vigil load"
grep -q 'Remove a property from the live session' "$TMP/gdb" || fail "help vigil unload"
grep -qx 'vigil load specs/queue_bounds.vigil' "$TMP/gdb" || fail "no completion of the spec's file name"
grep -qE "^vigil: $TMP/bad.vigil:3:34: error: unexpected '}', expected a target state name" "$TMP/gdb" ||
	fail "a bad spec in vigil load does not say file:line:col and what was expected"
grep -qE "^vigil: $TMP/nosym.vigil:3:21: function 'no_such_function' not found in .*/queue3" "$TMP/gdb" ||
	fail "a missing function in vigil load does not name the function and the binary"
# refused: the status right after still has one property and 4 probes
grep -m1 '^pid [0-9]*: ' "$TMP/gdb" | grep -q 'probes 4/4 attached' ||
	fail "the refused loads changed the probes"
grep -qE '^loaded queue_bounds \(kernel tier\): its slices start in its initial state' "$TMP/gdb" || fail "vigil load"
grep -q 'property queue_bounds is already in this session' "$TMP/gdb" || fail "a second load of the same property is not refused"
grep -qx 'vigil unload queue_bounds' "$TMP/gdb" || fail "no completion of the loaded property's name"
grep -qx 'vigil slices queue_bounds overflow' "$TMP/gdb" || fail "no completion of the loaded property's states"
grep -qE '^loaded from .*/specs/queue_bounds.vigil: [0-9]+ events, 0 lost, probes 7/7 attached' "$TMP/gdb" ||
	fail "vigil status does not show the loaded property's probes"
grep -qE '^queue_bounds \(kernel tier\)' "$TMP/gdb" || fail "vigil status does not show the loaded property"
# a monitor breakpoint on the loaded property's state stops the program
grep -q '^breakpoint 1: stop when a slice of queue_bounds enters ready' "$TMP/gdb" || fail "vigil break on a loaded property"
grep -qE '^1 +queue_bounds ready$' "$TMP/gdb" || fail "vigil breaks does not list the loaded property's breakpoint"
grep -qE '^vigil: breakpoint 1: queue_bounds slice q=0x[0-9a-f]+: init -> ready at after queue_new\(2\) returned' "$TMP/gdb" ||
	fail "the monitor breakpoint on the loaded property did not stop the program"
[ "$(grep -c '^vigil: breakpoint 1:' "$TMP/gdb")" = 1 ] || fail "the deleted breakpoint stopped again"
# gdb's breakpoint on queue_push, set before the load made it a probed
# address, is moved off the probe (it stops, and the probe stays: the
# overflow below is caught)
grep -qE '^Breakpoint 2, 0x[0-9a-f]+ in queue_push \(' "$TMP/gdb" && grep -q '^(vigil: its address is probed; stopped on the next instruction)' "$TMP/gdb" ||
	fail "gdb's breakpoint on a function the load probed did not stop as a probed one"
# the loaded property stops the program at the first overflow
[ "$(grep -c '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb")" = 1 ] ||
	fail "the loaded property did not stop the program exactly once"
grep -qE '^#0 .* in queue_push \(q=q@entry=0x[0-9a-f]+, v=v@entry=2\)' "$TMP/gdb" || fail "bt at the loaded property's stop"
slice=$(sed -nE 's/^slice +(q=0x[0-9a-f]+)$/\1/p' "$TMP/gdb" | head -1)
[ -n "$slice" ] || fail "no slice in the stop message"
grep -q "^// the last stop was about queue_bounds slice $slice, in state overflow" "$TMP/gdb" ||
	fail "vigil graph does not say which slice the last stop was about"
# the note beside the state (its xlabel), not in its label
grep -qE "^ +p0_s2 \[label=\"overflow\\\\n1 slice\", xlabel=\"last stop: $slice\", .*fillcolor=\"#cfe2ff\", color=\"#0d47a1\", penwidth=4" "$TMP/gdb" ||
	fail "vigil graph does not mark the overflow state (the last stop's)"
grep -E '^ +p0_s[013] \[' "$TMP/gdb" | grep -q 'last stop' && fail "vigil graph marks another state too"
# drawn: the mark and the note are in the SVG too
sed -n '\|^// loaded from|,/^}/p' "$TMP/gdb" | sed '/^\/\//d' | dot -Tsvg >"$TMP/graph.svg" || fail "dot cannot draw vigil graph's DOT"
grep -q "last stop: $slice" "$TMP/graph.svg" && grep -q 'fill="#cfe2ff"' "$TMP/graph.svg" ||
	fail "the SVG lacks the last stop's mark"
# after the unload, vigil graph has the session's property only
sed -n '/^unloaded queue_bounds/,$p' "$TMP/gdb" | grep -q 'label="pops"' || fail "vigil graph after the unload"
sed -n '/^unloaded queue_bounds/,$p' "$TMP/gdb" | grep -qE '^// loaded from|label="queue_bounds"' && fail "vigil graph still draws the unloaded property"
grep -qE "^$slice +overflow" "$TMP/gdb" || fail "vigil slices of the loaded property"
grep -q '^unloaded queue_bounds, its probes detached and its slices freed' "$TMP/gdb" || fail "vigil unload"
[ "$(grep -c '^loaded from ' "$TMP/gdb")" = 1 ] || fail "vigil status still shows the unloaded property"
grep -q '^vigil: no property queue_bounds' "$TMP/gdb" || fail "the unloaded property is still known"
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not run to its end after the unload"
wait_vigil
expect_rc 1	# a violation was found (by the loaded property)
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program's counts"
[ "$(grep -c '^vigil: VIOLATION of queue_bounds' "$TMP/vigil.err")" = 1 ] || fail "a violation after the unload"
grep -q '^vigil: unloaded queue_bounds' "$TMP/vigil.err" || fail "vigil does not say the property is unloaded"
grep -q "^vigil: loaded from .*/specs/queue_bounds.vigil: ERROR SUMMARY: 1 error: queue_bounds.overflow=1" "$TMP/vigil.err" || fail "no summary of the unloaded property"
grep -q 'before:queue_pop=9$' "$TMP/vigil.err" || fail "the session's own probe counts"
echo PASS
