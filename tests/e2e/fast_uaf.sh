# The in-process tier under a program that allocates in a tight loop
# (tests/targets/malloc_storm.c: a correct program that writes each block
# malloc hands it, often one just freed):
#  - a user-tier property on malloc and free: the program makes records
#    faster than vigil reads them; it waits for room (vigil says how many
#    times, and how long in all) and no record is lost;
#  - vigil stopped (SIGSTOP) in the middle: the program is not held up by
#    it (one wait, then records are dropped), ends on its own, and once
#    vigil goes on its verdicts say what was lost;
#  - use_after_free: malloc and free in-process, the process held while
#    vigil arms a freed block's watchpoint; the program's writes to a
#    block malloc handed out again come through the debug registers'
#    ring, and must not be taken for accesses after free (the agent's
#    ring is read up to each hit's time first: without that, this run
#    reported a use after free).
. "$(dirname "$0")/lib.sh"
unset VIGIL_FAST

cat >"$TMP/churn.vigil" <<'EOF'
property churn "every block malloc returns is freed once"
slice on ptr p
state init accepting {
  after malloc(size) returns p when p != 0 -> live
}
state live accepting {
  before free(p) -> init
}
EOF

# --- records faster than vigil reads them: waits, nothing lost ---------
"$VIGIL" run --tier=user "$TMP/churn.vigil" -- "$TARGETS/malloc_storm" 2000000 \
	>"$TMP/out" 2>&1
RC=$?
tail -5 "$TMP/out"
expect_rc 0
expect_out "^malloc_storm: done 2000000$"
expect_out "in-process tier: [0-9]+ functions? patched"
expect_out "stats: events=[0-9]+ records=[0-9]+ lost=0 "
expect_out "after:malloc=2000001 "
expect_out "in-process tier: the program waited [0-9]+ times? for room in the ring, [0-9]+\.[0-9]{3} s in all \("
expect_out "ERROR SUMMARY: 0 errors$"

# --- vigil stopped: the program runs on, the losses are said ------------
"$VIGIL" run --tier=user "$TMP/churn.vigil" -- "$TARGETS/malloc_storm" 20000000 \
	>"$TMP/out" 2>&1 &
vpid=$!
for _ in $(seq 100); do
	grep -q "functions\? patched" "$TMP/out" && break
	sleep 0.05
done
sleep 0.3
kill -STOP "$vpid"
done_alone=no
for _ in $(seq 300); do		# 30 s; the program alone takes ~5 s
	if grep -q "^malloc_storm: done" "$TMP/out"; then
		done_alone=yes
		break
	fi
	sleep 0.1
done
kill -CONT "$vpid"
wait "$vpid"
RC=$?
tail -5 "$TMP/out"
[ "$done_alone" = yes ] || fail "the program did not end while vigil was stopped"
expect_rc 0
expect_out "stats: events=[0-9]+ records=[0-9]+ lost=[1-9][0-9]* "
expect_out "ERROR SUMMARY: 0 errors; [0-9]+ slices? inconclusive"

# --- use_after_free: holds in-process, no false access after free -------
UAF=specs/lib/use_after_free.vigil
"$VIGIL" lint "$UAF" --binary "$TARGETS/malloc_storm" >"$TMP/lint" 2>&1
grep -q 'in-process before free: .*libc.so.6' "$TMP/lint" || fail "lint: free not in-process: $(cat "$TMP/lint")"
if ! has_debug_regs; then
	# nothing armed, and no thread held for it: the run goes at the
	# ring's pace, no record lost, no access after free made up
	"$VIGIL" run "$UAF" -- "$TARGETS/malloc_storm" 300000 >"$TMP/out" 2>&1
	RC=$?
	expect_rc 0
	expect_out "^malloc_storm: done 300000$"
	expect_out "in-process tier: [0-9]+ functions? patched"
	expect_out "stats: events=[0-9]+ records=[0-9]+ lost=0 "
	expect_blind
	expect_no_out "VIOLATION|^vigil: holds:"
	skip debug_regs "$WHY"
fi
if ! has_sound_debug_regs; then
	"$VIGIL" run --on-violation=continue "$UAF" -- "$TARGETS/malloc_storm" 1000 \
		>"$TMP/out" 2>&1
	RC=$?
	expect_out "^malloc_storm: done 1000$"
	expect_stale
	skip sound_debug_regs "$WHY"
fi
"$VIGIL" run "$UAF" -- "$TARGETS/malloc_storm" 300000 >"$TMP/out" 2>&1
RC=$?
grep -v "ends inconclusive\|^  \|needs . debug reg" "$TMP/out" | tail -8
expect_rc 0
expect_out "^malloc_storm: done 300000$"
expect_out "in-process tier: [0-9]+ functions? patched"
expect_out "stats: events=[0-9]+ records=[0-9]+ lost=0 "
expect_out "watchpoints: [1-9][0-9]* armed, 0 hits"
expect_out "ERROR SUMMARY: 0 errors; [0-9]+ slices? inconclusive"
expect_no_out "VIOLATION"
echo ok
