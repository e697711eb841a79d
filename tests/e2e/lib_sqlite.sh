# specs/lib/sqlite_stmt.vigil on tests/targets/stmts.c (linked with
# -lsqlite3) and on Debian's sqlite3 shell. Statements are bound at their
# prepare's return through the out-pointer (`*s`), by sqlite3_prepare_v2
# and sqlite3_prepare_v3 (one position later). Quiet on the clean run,
# where SQLite reuses each finalized statement's memory for the next, and
# sqlite3_exec's own statements (finalized by an internal function) are
# not followed (`outside sqlite3_exec`);
# sqlite_stmt stops the program at the bad call (kernel tier): a double
# finalize, a step and a reset after finalize; sqlite_close (user tier)
# finds a statement still open at sqlite3_close of its connection.
. "$(dirname "$0")/lib.sh"

statement() {	# the statement the target printed
	S=$(sed -nE 's/^stmts: statement at (0x[0-9a-f]+)$/\1/p' "$TMP/out")
	[ -n "$S" ] || fail "the target did not print its statement"
}

run_vigil run specs/lib/sqlite_stmt.vigil -- "$TARGETS/stmts"
expect_rc 0
expect_no_out "VIOLATION|nonaccepting|inconclusive"
expect_out "stmts: done sum=39800"
expect_out "sqlite_stmt: kernel tier"
# (probe hits: the target's sqlite3_exec, and two SQLite makes reading its
# schema, prepare 4 statements and finalize 3 with sqlite3_finalize)
for c in after:sqlite3_prepare_v2=105 after:sqlite3_prepare_v3=100 \
	 before:sqlite3_finalize=205 before:sqlite3_close=1 \
	 before:sqlite3_exec=3 after:sqlite3_exec=3; do
	expect_out "^vigil: stats: .* $c( |$)"
done
# every statement a prepare bound was finalized before the close
expect_out "sqlite_close: live slices by state: closed=[1-9][0-9]* open=0 "

# lint --binary says where the out-pointer's statement is read
echo "+ vigil lint --binary $TARGETS/stmts specs/lib/sqlite_stmt.vigil"
"$VIGIL" lint --binary "$TARGETS/stmts" specs/lib/sqlite_stmt.vigil >"$TMP/out" 2>&1
RC=$?
cat "$TMP/out"
expect_rc 0
expect_out "^    s: what position 4 points to, 8 bytes, read at the return$"
expect_out "^    s: what position 5 points to, 8 bytes, read at the return$"

check_stop() {	# $1 flag, $2 transition, $3 function
	run_vigil run specs/lib/sqlite_stmt.vigil -- "$TARGETS/stmts" "$1"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_no_out "stmts: done"
	statement
	expect_out "VIOLATION of sqlite_stmt"
	expect_out "^  slice  s=$S$"
	expect_out "^  state  $2 \(violation\)$"
	expect_out "^  event  before $3\($S\) in tid $pid$"
	[ "$(proc_state "$pid")" = T ] || fail "$1: target not stopped"
	gdb_handoff "-ex bt"
	expect_frame 0 "$3" "$1: not stopped in $3"
	expect_frame 1 main "$1: no main in the backtrace"
	kill -KILL "$pid" 2>/dev/null
}
check_stop --double-finalize "finalized -> double_finalize" sqlite3_finalize
check_stop --step-after-finalize "finalized -> step_after_finalize" sqlite3_step
check_stop --reset-after-finalize "finalized -> reset_after_finalize" sqlite3_reset

run_vigil run specs/lib/sqlite_stmt.vigil -- "$TARGETS/stmts" --close-unfinalized
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
statement
expect_out "VIOLATION of sqlite_close"
expect_out "^  slice  s=$S$"
expect_out "^  state  open -> open_at_close \(violation\)$"
expect_out "^  event  before sqlite3_close\(0x[0-9a-f]+\) in tid $pid$"
expect_no_out "VIOLATION of sqlite_stmt|stmts: done"
[ "$(proc_state "$pid")" = T ] || fail "--close-unfinalized: target not stopped"
kill -KILL "$pid" 2>/dev/null

# the Debian sqlite3 shell: a table, rows, a query, all statements closed
printf 'CREATE TABLE t(a);\nINSERT INTO t VALUES (1), (2);\nSELECT sum(a) FROM t;\n' >"$TMP/w.sql"
echo "+ vigil run specs/lib/sqlite_stmt.vigil -- sqlite3 :memory: < w.sql"
"$VIGIL" run specs/lib/sqlite_stmt.vigil -- sqlite3 :memory: <"$TMP/w.sql" >"$TMP/out" 2>&1
RC=$?
cat "$TMP/out"
expect_rc 0
expect_no_out "VIOLATION|nonaccepting|inconclusive"
expect_out "^3$"
expect_out "sqlite_close: live slices by state: closed=[1-9][0-9]* open=0 "
