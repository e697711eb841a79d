/* The run directory's sweep (user/util/rundir.c): the files of a pid that
 * is gone go, unless a live vigil still serves that pid (its session-PID
 * file names it), as during a restore inside a session, when the target's
 * pid is free until CRIU brings it back: a vigil started then (any `vigil
 * ctl`) removed the session's control socket. One test: the sweep runs
 * once per process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>
#include <unistd.h>

#include "util/rundir.h"
#include "tmpdir.h"

/* a pid that was ours and is gone (reaped) */
static pid_t dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static const char *f(const char *fmt, pid_t pid)
{
	static char bufs[8][PATH_MAX + 96];
	static int i;
	char name[64], *b = bufs[i++ % 8];

	snprintf(name, sizeof(name), fmt, (int)pid);
	snprintf(b, PATH_MAX + 96, "%s/vigil-%u/%s", dir, (unsigned)getuid(), name);
	return b;
}

static void test_sweep_keeps_served_pids(void **state)
{
	pid_t restoring = dead_pid(), killed = dead_pid(), orphan = dead_pid();
	pid_t alive = getpid();
	char me[32], run[PATH_MAX];
	struct vg_err e = { 0 };

	snprintf(me, sizeof(me), "%d\n", (int)getpid());
	assert_int_equal(sh("mkdir -m 0700 '%s/vigil-%u'", dir, (unsigned)getuid()), 0);
	/* a session restoring its target: the pid is free, the vigil lives */
	assert_int_equal(write_file(f("session-%d", restoring), me), 0);
	assert_int_equal(write_file(f("ctl-%d.sock", restoring), ""), 0);
	assert_int_equal(write_file(f("gdb-live-%d.gdb", restoring), ""), 0);
	/* a vigil that was killed with its target gone: all of it stale */
	snprintf(run, sizeof(run), "%d\n", (int)killed);
	assert_int_equal(write_file(f("session-%d", killed), run), 0);
	assert_int_equal(write_file(f("ctl-%d.sock", killed), ""), 0);
	/* no session file at all */
	assert_int_equal(write_file(f("gdb-%d.gdb", orphan), ""), 0);
	assert_int_equal(write_file(f("violation-%d.json", orphan), ""), 0);
	/* a live target's file */
	assert_int_equal(write_file(f("gdb-%d.gdb", alive), ""), 0);

	setenv("TMPDIR", dir, 1);
	assert_int_equal(vg_rundir(run, sizeof(run), &e), 0);

	assert_int_equal(access(f("session-%d", restoring), F_OK), 0);
	assert_int_equal(access(f("ctl-%d.sock", restoring), F_OK), 0);
	assert_int_equal(access(f("gdb-live-%d.gdb", restoring), F_OK), 0);
	assert_int_not_equal(access(f("session-%d", killed), F_OK), 0);
	assert_int_not_equal(access(f("ctl-%d.sock", killed), F_OK), 0);
	assert_int_not_equal(access(f("gdb-%d.gdb", orphan), F_OK), 0);
	assert_int_not_equal(access(f("violation-%d.json", orphan), F_OK), 0);
	assert_int_equal(access(f("gdb-%d.gdb", alive), F_OK), 0);
}

static int setup(void **state)
{
	return tmpdir_make("sweep");
}

static int teardown(void **state)
{
	return tmpdir_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_keeps_served_pids),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
