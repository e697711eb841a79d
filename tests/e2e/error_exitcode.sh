# The exit status says what the ERROR SUMMARY says: every error it counts,
# a violation during the run or a verdict at the end (a lost block of
# --leak-check), makes it 1, so `vigil run ... && echo clean` in a script
# is never told "clean" about a run that found errors; --error-exitcode=N
# makes it N, as memcheck's does. In vigil run, vigil check and vigil
# watch's parser alike.
. "$(dirname "$0")/lib.sh"

# a clean program: 0, with --error-exitcode too
run_vigil run -q --leak-check specs/lib/leak.vigil -- "$TARGETS/leaky"
expect_rc 0
expect_out "ERROR SUMMARY: 0 errors$"
run_vigil run -q --error-exitcode=9 --leak-check specs/lib/leak.vigil -- "$TARGETS/leaky"
expect_rc 0

# lost blocks, said at the end only: 1, and N when asked
run_vigil run -q --leak-check specs/lib/leak.vigil -- "$TARGETS/leaky" --leak
expect_out "ERROR SUMMARY: [1-9][0-9]* errors?: leak.allocated=[0-9]+ \(at the end\)$"
expect_no_out "VIOLATION"
expect_rc 1
"$VIGIL" run -q --leak-check specs/lib/leak.vigil -- "$TARGETS/leaky" --leak \
	>/dev/null 2>&1 && fail "'vigil run ... && echo clean' says clean of a leak"
run_vigil run -q --error-exitcode=42 --leak-check specs/lib/leak.vigil -- "$TARGETS/leaky" --leak
expect_rc 42
# without --leak-check the leak property's verdicts are errors the same
run_vigil run -q specs/lib/leak.vigil -- "$TARGETS/leaky" --leak
expect_out "ends nonaccepting in state allocated"
expect_rc 1

# a violation during the run, under --on-violation=continue: N too
run_vigil run -q --on-violation=continue --error-exitcode=5 specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
expect_out "VIOLATION of"
expect_rc 5

# --error-exitcode=0: errors are reported, the status says nothing
run_vigil run -q --error-exitcode=0 --leak-check specs/lib/leak.vigil -- "$TARGETS/leaky" --leak
expect_out "ERROR SUMMARY: [1-9]"
expect_rc 0

# not a status: a usage error
run_vigil run -q --error-exitcode=256 specs/lib/leak.vigil -- "$TARGETS/leaky"
expect_rc 2
expect_out "--error-exitcode: '256' is not an exit status from 0 to 255"
run_vigil watch -q --error-exitcode=x specs/lib/leak.vigil --exe "$TARGETS/leaky"
expect_rc 2
expect_out "--error-exitcode: 'x' is not an exit status"

# vigil check: a slice ending non-accepting is an error as a violation is
cat >"$TMP/open.vigil" <<'V'
property closed "every opened file is closed"
slice on f
event open(f)
event close(f)
state shut accepting {
  open(f) -> opened
}
state opened nonaccepting {
  close(f) -> shut
}
V
printf 'open,1\nopen,2\nclose,1\n' >"$TMP/open.csv"
run_vigil check "$TMP/open.vigil" "$TMP/open.csv"
expect_out "slice f=2 ends nonaccepting in state opened"
expect_out "ERROR SUMMARY: 1 error: closed.opened=1 \(at the end\)$"
expect_rc 1
run_vigil check --error-exitcode=3 "$TMP/open.vigil" "$TMP/open.csv"
expect_rc 3
printf 'open,1\nclose,1\n' >"$TMP/shut.csv"
run_vigil check --error-exitcode=3 "$TMP/open.vigil" "$TMP/shut.csv"
expect_rc 0
echo PASS
