# specs/lib/sqlite_stmt.vigil: quiet on correct programs (statement memory
# reused by every prepare, sqlite3_finalize(NULL)); a double finalize and a
# step after finalize found. User tier: the stop comes after the call, and
# these bugs crash SQLite at once, so the target may be gone by then.
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lib/sqlite_stmt.vigil -- "$TARGETS/stmts"
expect_rc 0
expect_no_out VIOLATION
expect_out "stmts: done sum=39800"
expect_out "before:sqlite3_prepare_v2=200 .*before:sqlite3_step=200"

check_bug() {	# $1: flag, $2: state
	run_vigil run specs/lib/sqlite_stmt.vigil -- "$TARGETS/stmts" "$1"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "VIOLATION of sqlite_stmt"
	expect_out "state  finalized -> $2"
}
check_bug --double-finalize double_finalize
check_bug --step-after-finalize step_after_finalize

# the Debian sqlite3 shell, statements prepared one after another
printf 'CREATE TABLE t(a);\nINSERT INTO t VALUES (1), (2);\nSELECT sum(a) FROM t;\n' >"$TMP/w.sql"
echo "+ vigil run specs/lib/sqlite_stmt.vigil -- sqlite3 :memory: < w.sql"
"$VIGIL" run specs/lib/sqlite_stmt.vigil -- sqlite3 :memory: <"$TMP/w.sql" >"$TMP/out" 2>&1
RC=$?
cat "$TMP/out"
expect_rc 0
expect_no_out VIOLATION
expect_out "^3$"
