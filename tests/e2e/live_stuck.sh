# Timeouts (issue 17 point 5): a stuck vigil never freezes gdb, and gdb's
# giving up on an answer does not end the session. vigil is SIGSTOPped
# while gdb holds the program at a violation:
#  - `vigil status` in gdb gives up after 5 s with a message;
#  - Ctrl-C (SIGINT to gdb) ends the wait of `vigil load` (120 s) at once;
#  - `vigil ctl --timeout MS PID status` from a shell exits with the reason;
# then vigil goes on (SIGCONT): the session is still live (the extension
# kept its connection: vigil takes its end as gdb quitting), the answers
# owed are skipped, `vigil status` answers, the late load took effect,
# the next two violations stop gdb with vigil's message, and vigil's
# probe counts equal the program's own.
. "$(dirname "$0")/lib.sh"

start_live run --interactive specs/queue_bounds.vigil -- "$TARGETS/queue3"
live_gdb "-ex continue -ex 'shell kill -STOP $VIGIL_PID' \
 -ex 'shell date +T0=%s' -ex 'vigil status' -ex 'shell date +T1=%s' \
 -ex 'shell (sleep 1; kill -INT \$PPID) &' -ex 'vigil load $PWD/specs/lib/leak.vigil' -ex 'shell date +T2=%s' \
 -ex 'shell $VIGIL ctl --timeout 500 $TARGET_PID status; echo CTL-RC=\$?' \
 -ex 'shell kill -CONT $VIGIL_PID' -ex 'vigil status' -ex continue -ex continue -ex continue"
t() { sed -n "s/^$1=//p" "$TMP/gdb"; }
[ -n "$(t T0)" ] && [ -n "$(t T2)" ] || fail "gdb did not go through its commands"
grep -q '^vigil: no answer from the monitor within 5 s .*the session goes on' "$TMP/gdb" ||
	fail "vigil status did not give up on a stopped vigil with a message"
[ $(($(t T1) - $(t T0))) -le 30 ] || fail "vigil status waited $(($(t T1) - $(t T0))) s for a stopped vigil"
# the load waits up to 120 s for an answer; Ctrl-C ended it after ~1 s
grep -q "^vigil: interrupted; the monitor may still do 'load'" "$TMP/gdb" || fail "Ctrl-C did not interrupt vigil load's wait"
[ $(($(t T2) - $(t T1))) -le 60 ] || fail "Ctrl-C did not end vigil load's wait ($(($(t T2) - $(t T1))) s)"
grep -q 'vigil did not answer within 500 ms' "$TMP/gdb" || fail "vigil ctl --timeout did not give up with the reason"
grep -qE '^CTL-RC=[1-9]' "$TMP/gdb" || fail "vigil ctl exited 0 without an answer"
# vigil back: the same session
grep -q 'gdb went away' "$TMP/vigil.err" && fail "gdb's timeout ended the monitoring"
grep -qE '^pid [0-9]+: [0-9]+ events, 0 lost' "$TMP/gdb" || fail "vigil status did not answer once vigil went on"
grep -qE '^leak \(kernel tier\)' "$TMP/gdb" || fail "the load Ctrl-C stopped gdb waiting for was not carried out"
[ "$(grep -c '^vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb")" = 3 ] ||
	fail "the violations after vigil went on did not stop gdb with vigil's message"
grep -q 'received signal SIGSTOP' "$TMP/gdb" && fail "a bare SIGSTOP reached the user"
grep -q 'exited normally' "$TMP/gdb" || fail "the program did not run to its end under gdb"
wait_vigil
expect_rc 1
grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "the program's counts"
grep -q 'after:queue_new=3 before:queue_push=9 before:queue_pop=9' "$TMP/vigil.err" || fail "vigil's probe counts differ from the program's"
echo PASS
