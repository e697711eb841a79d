# vigil run --interactive on a terminal, then `vigil detach` in the gdb
# vigil started (issue 32 point 4): monitoring ends, vigil's last report
# comes whole after the detach's own line and before gdb's next prompt,
# vigil says gdb stays attached and does not exit while gdb holds the
# terminal (the shell's prompt would share it with gdb's), not even after
# a Ctrl-C meant for gdb; the program,
# still gdb's, runs on under it to its end; vigil ends once gdb quits.
. "$(dirname "$0")/lib.sh"

clean() { sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r//g' "$1"; }
vigil_pid() { sed -nE 's/.*live session with the monitor of pid [0-9]+ \(vigil pid ([0-9]+)\).*/\1/p' "$TMP/raw" | head -1; }
(sleep 3; printf 'vigil detach\n'; sleep 3
 printf '\003'; sleep 1	# Ctrl-C at gdb's prompt: gdb's, not vigil's end
 v=$(vigil_pid)
 if [ -n "$v" ] && kill -0 "$v" 2>/dev/null; then echo alive >"$TMP/after_detach"; else echo "gone ($v)" >"$TMP/after_detach"; fi
 printf 'continue\n'; sleep 2; printf 'quit\n'; sleep 1; printf 'y\n'; sleep 3) |
	timeout 90 script -qfec "$VIGIL run --interactive specs/queue_bounds.vigil -- $TARGETS/queue3 --loops 2" /dev/null >"$TMP/raw" 2>&1
clean "$TMP/raw" >"$TMP/out"
cat "$TMP/out"
echo "+ vigil after the detach: $(cat "$TMP/after_detach" 2>/dev/null)"
expect_out "vigil: live session with the monitor of pid [0-9]+"
# the detach's line is a line of its own
expect_out "^vigil: monitoring ends; the program goes on$"
expect_no_out "goes onvigil"
expect_out "^vigil: monitoring ended; gdb stays attached"
# the last report before gdb's next prompt, none of it after "(gdb) "
expect_no_out "^\(gdb\) vigil: "
d=$(grep -n '^vigil: monitoring ends; the program goes on$' "$TMP/out" | head -1 | cut -d: -f1)
s=$(grep -n '^vigil: ERROR SUMMARY: 0 errors$' "$TMP/out" | head -1 | cut -d: -f1)
g=$(grep -n '^vigil: monitoring ended; gdb stays attached' "$TMP/out" | head -1 | cut -d: -f1)
c=$(grep -n '^(gdb) continue$' "$TMP/out" | head -1 | cut -d: -f1)
[ -n "$d" ] && [ -n "$s" ] && [ -n "$g" ] && [ -n "$c" ] || fail "a line is missing (detach $d, summary $s, stays $g, continue $c)"
[ "$d" -lt "$s" ] && [ "$s" -lt "$g" ] && [ "$g" -lt "$c" ] ||
	fail "not in order: the detach's line, the summary, 'gdb stays attached', gdb's next command"
[ "$(cat "$TMP/after_detach")" = alive ] ||
	fail "vigil exited while gdb still held the terminal: $(cat "$TMP/after_detach")"
# the program, gdb's still, ran to its end under it
expect_out "queue_new=6 queue_push=18 queue_pop=18"
expect_out "\[Inferior 1 \(process [0-9]+\) exited normally\]"
pid=$(sed -nE 's/.*live session with the monitor of pid ([0-9]+).*/\1/p' "$TMP/out" | head -1)
LEFT_PIDS+=("$pid")
v=$(vigil_pid)
kill -0 "$v" 2>/dev/null && fail "vigil did not end after gdb quit"
echo PASS
