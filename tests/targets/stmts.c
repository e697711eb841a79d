/* SQLite statements through libsqlite3, for specs/lib/sqlite_stmt.vigil:
 * N statements prepared (by sqlite3_prepare_v2 and, every other one,
 * sqlite3_prepare_v3, whose out-pointer comes one position later), stepped
 * and finalized (each prepare may reuse the last one's memory), one kept
 * open across the loop and finalized before the close; then, with a flag,
 * one bug:
 *   --double-finalize        a statement finalized twice
 *   --step-after-finalize    a finalized statement stepped
 *   --reset-after-finalize   a finalized statement reset
 *   --close-unfinalized      sqlite3_close with the kept statement open
 *                            (SQLite refuses, SQLITE_BUSY; the program
 *                            waits for the stop, then finalizes it and
 *                            closes)
 * Before that, sqlite3_exec runs two statements it prepares and finalizes
 * itself.
 * (SQLite's own misuse check may catch these too, or crash: vigil must stop
 * the process at the call first.) Built with -lsqlite3 (Makefile). */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 200

static void die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "stmts: %s: %s\n", what, sqlite3_errmsg(db));
	_exit(2);
}

int main(int argc, char **argv)
{
	const char *bug = argc > 1 ? argv[1] : "";
	sqlite3 *db;
	sqlite3_stmt *st = NULL, *kept;
	long sum = 0;
	char msg[128];
	int n;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		die(db, "open");
	if (sqlite3_prepare_v2(db, "SELECT 1", -1, &kept, NULL) != SQLITE_OK)
		die(db, "prepare");
	for (int i = 0; i < N; i++) {
		int rc = i % 2 ? sqlite3_prepare_v3(db, "SELECT ?1 * 2", -1, 0,
						    &st, NULL)
			       : sqlite3_prepare_v2(db, "SELECT ?1 * 2", -1, &st,
						    NULL);

		if (rc != SQLITE_OK)
			die(db, "prepare");
		sqlite3_bind_int(st, 1, i);
		if (sqlite3_step(st) != SQLITE_ROW)
			die(db, "step");
		sum += sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_finalize(NULL);		/* a no-op, allowed */
	/* sqlite3_exec prepares and finalizes statements of its own, the
	 * latter with an internal function */
	if (sqlite3_exec(db, "CREATE TABLE t(a); INSERT INTO t VALUES (1);",
			 NULL, NULL, NULL) != SQLITE_OK)
		die(db, "exec");
	/* which statement the bug is about, for the test to check the slice */
	if (!strcmp(bug, "--close-unfinalized"))
		dprintf(1, "stmts: statement at %p\n", (void *)kept);
	else if (bug[0])
		dprintf(1, "stmts: statement at %p\n", (void *)st);
	if (!strcmp(bug, "--double-finalize"))
		sqlite3_finalize(st);
	else if (!strcmp(bug, "--step-after-finalize"))
		sqlite3_step(st);
	else if (!strcmp(bug, "--reset-after-finalize"))
		sqlite3_reset(st);
	else if (!strcmp(bug, "--close-unfinalized")) {
		if (sqlite3_close(db) != SQLITE_BUSY)
			die(db, "close with a statement open");
		usleep(300000);	/* a user-tier stop comes after the call */
	}
	sqlite3_finalize(kept);
	if (sqlite3_close(db) != SQLITE_OK)
		die(db, "close");
	n = snprintf(msg, sizeof(msg), "stmts: done sum=%ld\n", sum);
	write(1, msg, n);
	return 0;
}
