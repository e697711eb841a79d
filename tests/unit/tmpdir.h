/* For unit tests that build fixtures in a temporary directory
 * (sym_fixture.h, test_libs_dlopen.c, test_agent_*.c, test_outfiles.c,
 * test_rundir_sweep.c): the directory, paths in it, files written there,
 * shell commands that say what failed, and a substring check. The
 * includer includes cmocka.h first and creates dir in its setup (with
 * tmpdir_make, or its own way). */
#ifndef VIGIL_TESTS_TMPDIR_H
#define VIGIL_TESTS_TMPDIR_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[PATH_MAX];	/* the temporary build directory */

/* path of a file in the temporary directory (32 rotating buffers: at
 * most 32 uses in one expression) */
static inline const char *P(const char *name)
{
	static char bufs[32][PATH_MAX];
	static int i;
	char *b = bufs[i++ % 32];

	if (snprintf(b, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		abort();
	return b;
}

/* dir made: $TMPDIR (else /tmp) /vigil-NAME-XXXXXX; 0, or -1 */
static inline int tmpdir_make(const char *name)
{
	snprintf(dir, sizeof(dir), "%s/vigil-%s-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	return mkdtemp(dir) ? 0 : -1;
}

static inline int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st != 0)
		fprintf(stderr, "command failed (%d): %s\n", st, cmd);
	return st;
}

static inline int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* dir and all in it removed (a test group's teardown) */
static inline int tmpdir_remove(void)
{
	return sh("rm -rf '%s'", dir);
}

/* file NAME of dir written with text; the test fails when it cannot be */
static inline void put(const char *name, const char *text)
{
	assert_int_equal(write_file(P(name), text), 0);
}

static inline void assert_contains(const char *s, const char *sub)
{
	if (!strstr(s, sub))
		fail_msg("'%s' does not contain '%s'", s, sub);
}

#endif
