# vigil graph --svg in a live session (issue 17 point 3: "the automaton as
# DOT/SVG"): at a violation, `vigil graph queue_bounds --svg FILE` in gdb
# writes an SVG (Graphviz) of the automaton with the live slice count per
# state and the state of the slice the stop was about filled blue, the
# slice named beside it (issue 32 point 5: outside the state, whose node
# keeps the size it has in the plain graph, `vigil graph SPEC --svg`);
# `vigil ctl PID graph --svg` prints the same from a shell.
# Before that, a monitor breakpoint set and deleted from a shell (`vigil
# ctl PID break`, `delete`) stops gdb once.
. "$(dirname "$0")/lib.sh"

start_live run --interactive specs/queue_bounds.vigil -- "$TARGETS/queue3"
live_gdb "-ex 'shell $VIGIL ctl $TARGET_PID break queue_bounds ready' -ex continue \
 -ex 'shell $VIGIL ctl $TARGET_PID delete 1' -ex continue -ex 'vigil graph queue_bounds --svg $TMP/g.svg' -ex 'vigil graph --svg' \
 -ex 'shell $VIGIL ctl $TARGET_PID graph --svg >$TMP/ctl.svg; echo CTL-RC=\$?' -ex 'vigil detach' -ex continue"
grep -q '^breakpoint 1: stop when a slice of queue_bounds enters ready' "$TMP/gdb" || fail "vigil ctl break"
[ "$(grep -c '^vigil: breakpoint 1: queue_bounds slice q=0x[0-9a-f]*: init -> ready' "$TMP/gdb")" = 1 ] ||
	fail "the monitor breakpoint set from a shell did not stop gdb once"
grep -q '^vigil: queue_bounds entered state overflow' "$TMP/gdb" || fail "no violation stop after the delete"
grep -q "^wrote $TMP/g.svg\$" "$TMP/gdb" || fail "vigil graph --svg did not say where it wrote"
grep -q 'usage: vigil graph \[PROPERTY\] --svg FILE' "$TMP/gdb" || fail "vigil graph --svg without a file is not refused"
grep -q '^CTL-RC=0$' "$TMP/gdb" || fail "vigil ctl graph --svg failed"
run_vigil graph specs/queue_bounds.vigil --svg -o "$TMP/plain.svg"
expect_rc 0
for f in "$TMP/g.svg" "$TMP/ctl.svg"; do
	head -c 400 "$f" | grep -q '<svg' || fail "$f is not SVG"
	python3 - "$f" "$TMP/plain.svg" <<'PY' || fail "$f: not the live graph at the violation"
import re, sys, xml.etree.ElementTree as ET
svg = ET.parse(sys.argv[1]).getroot()          # well-formed
nodes = {}
for g in svg.iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") != "node":
        continue
    texts = [t.text or "" for t in g.iter("{http://www.w3.org/2000/svg}text")]
    fills = [e.get("fill") for e in g.iter() if e.get("fill")]
    if texts:       # (the start arrow's node has none)
        nodes[texts[0]] = (texts, fills)
o_texts, o_fills = nodes["overflow"]
assert "1 slice" in o_texts, o_texts
assert any(re.match(r"last stop: q=0x[0-9a-f]+$", t) for t in o_texts), o_texts
assert "#cfe2ff" in o_fills, o_fills
r_texts, r_fills = nodes["ready"]
assert "#cfe2ff" not in r_fills and not any(t.startswith("last stop") for t in r_texts), nodes["ready"]

# the stop's state as wide as the others: no wider than underflow, whose
# name is longer (both have the count's line, which the plain graph has
# not: a little taller, so a little wider as a circle), and as the plain
# graph's but for that line; the note outside its circle
S = "{http://www.w3.org/2000/svg}"
def sizes(root):
    out = {}
    for g in root.iter(S + "g"):
        if g.get("class") != "node":
            continue
        texts = [t for t in g.iter(S + "text")]
        ells = [e for e in g.iter(S + "ellipse")]
        if texts and ells:
            out[texts[0].text] = (max(float(e.get("rx")) for e in ells), ells[0], texts)
    return out
live, plain = sizes(svg), sizes(ET.parse(sys.argv[2]).getroot())
assert live["overflow"][0] <= live["underflow"][0], (live["overflow"][0], live["underflow"][0])
for st in ("overflow", "underflow"):
    assert plain[st][0] <= live[st][0] < 1.15 * plain[st][0], (st, live[st][0], plain[st][0])
rx, ell, texts = live["overflow"]
note = [t for t in texts if (t.text or "").startswith("last stop")][0]
cx, cy = float(ell.get("cx")), float(ell.get("cy"))
x, y = float(note.get("x")), float(note.get("y"))
assert ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 > rx, ("the note is inside the state", x, y, cx, cy, rx)
PY
done
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not run to its end"
wait_vigil
echo PASS
