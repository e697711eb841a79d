/* SQLite statements through libsqlite3, for specs/lib/sqlite_stmt.vigil:
 * N statements prepared, stepped and finalized (each prepare may reuse the
 * last one's memory), then, with a flag, one bug:
 *   --double-finalize        a statement finalized twice
 *   --step-after-finalize    a finalized statement stepped
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
	sqlite3_stmt *st = NULL;
	long sum = 0;
	char msg[128];
	int n;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		die(db, "open");
	for (int i = 0; i < N; i++) {
		if (sqlite3_prepare_v2(db, "SELECT ?1 * 2", -1, &st, NULL) != SQLITE_OK)
			die(db, "prepare");
		sqlite3_bind_int(st, 1, i);
		if (sqlite3_step(st) != SQLITE_ROW)
			die(db, "step");
		sum += sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_finalize(NULL);		/* a no-op, allowed */
	if (!strcmp(bug, "--double-finalize"))
		sqlite3_finalize(st);
	else if (!strcmp(bug, "--step-after-finalize"))
		sqlite3_step(st);
	sqlite3_close(db);
	n = snprintf(msg, sizeof(msg), "stmts: done sum=%ld\n", sum);
	write(1, msg, n);
	return 0;
}
