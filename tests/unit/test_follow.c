/* Unit tests of the processes a run follows (user/follow/follow.h) and of
 * which processes vigil watch watches (user/watchmatch/watchmatch.h):
 * neither needs a session, a probe or root. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "follow/follow.h"
#include "util/err.h"
#include "watchmatch/watchmatch.h"

/* add, find, walk, remove: a removal moves the last into the removed
 * one's place (the order the verdicts at the end come in), and a
 * record's address holds while others come and go */
static void test_follow_set(void **state)
{
	struct vg_follow *f = vg_follow_new();
	struct vg_kid *a, *b, *c;

	assert_non_null(f);
	assert_int_equal(vg_follow_count(f), 0);
	assert_null(vg_follow_find(f, 10));
	a = vg_follow_add(f, 10, NULL, NULL);
	b = vg_follow_add(f, 20, NULL, NULL);
	assert_non_null(a);
	assert_non_null(b);
	for (int pid = 100; pid < 140; pid++)	/* past the first growth */
		assert_non_null(vg_follow_add(f, pid, NULL, NULL));
	c = vg_follow_add(f, 30, NULL, NULL);
	assert_ptr_equal(vg_follow_find(f, 10), a);
	assert_ptr_equal(vg_follow_find(f, 20), b);
	assert_int_equal(a->ns_pid, 10);	/* until where it lives is read */
	assert_null(a->cgroup);
	assert_int_equal(vg_follow_count(f), 43);
	a->cgroup = strdup("/x");		/* freed with it */
	vg_follow_remove(f, a);
	assert_null(vg_follow_find(f, 10));
	assert_ptr_equal(vg_follow_at(f, 0), c);
	assert_ptr_equal(vg_follow_at(f, 1), b);
	assert_null(vg_follow_at(f, 42));
	assert_int_equal(vg_follow_count(f), 42);
	vg_follow_free(f);
}

static void count_one(void *ctx, struct vg_kid *k)
{
	(*(int *)ctx) += k->pid;
}

/* gone: marked at its exit record, or found so in /proc */
static void test_follow_gone(void **state)
{
	struct vg_follow *f = vg_follow_new();
	pid_t dead = fork();
	int sum = 0;

	if (!dead)
		_exit(0);
	waitpid(dead, NULL, 0);
	vg_follow_add(f, getpid(), NULL, NULL);
	vg_follow_add(f, 7, NULL, NULL);
	vg_follow_foreach(f, count_one, &sum);
	assert_int_equal(sum, getpid() + 7);
	assert_int_equal(vg_follow_live(f), 2);
	vg_follow_mark_gone(f, 7);
	assert_int_equal(vg_follow_live(f), 1);
	assert_true(vg_follow_running(f));	/* this process */
	vg_follow_mark_gone(f, getpid());
	assert_false(vg_follow_running(f));
	vg_follow_add(f, dead, NULL, NULL);	/* its exit record lost */
	assert_false(vg_follow_running(f));
	assert_true(vg_follow_find(f, dead)->gone);
	vg_follow_free(f);
	/* a NULL set is an empty one */
	assert_int_equal(vg_follow_count(NULL), 0);
	assert_null(vg_follow_find(NULL, 1));
	assert_false(vg_follow_running(NULL));
	vg_follow_free(NULL);
}

/* the tree's forks and execs, numbered together; vigil run's own exec */
static void test_follow_counts(void **state)
{
	struct vg_follow *f = vg_follow_new();
	uint64_t forks, execs;

	assert_int_equal(vg_follow_count_fork(f), 1);
	assert_int_equal(vg_follow_count_exec(f), 2);
	assert_int_equal(vg_follow_count_fork(f), 3);
	vg_follow_counts(f, &forks, &execs);
	assert_int_equal(forks, 2);
	assert_int_equal(execs, 1);
	assert_int_equal(vg_follow_is_program(f, 7, 9), -1);
	assert_true(vg_follow_launch_exec(f, 7, 9));
	assert_false(vg_follow_launch_exec(f, 8, 9));
	/* the launch's file, not the later one's */
	assert_int_equal(vg_follow_is_program(f, 7, 9), 1);
	assert_int_equal(vg_follow_is_program(f, 8, 9), 0);
	assert_int_equal(vg_follow_is_program(f, 7, 10), 0);
	vg_follow_free(f);
}

static void self_exe(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);

	assert_true(n > 0);
	path[n] = 0;
}

/* --exe: this test's own executable, by device and inode */
static void test_watch_match_exe(void **state)
{
	char exe[PATH_MAX];
	struct vg_err e = { 0 };
	struct vg_watch_match *m;
	struct stat st;
	uint32_t dev, lib_dev, kdev;
	uint64_t ino, lib_ino;

	self_exe(exe, sizeof(exe));
	assert_int_equal(stat(exe, &st), 0);
	kdev = major(st.st_dev) << 20 | minor(st.st_dev);
	m = vg_watch_match_new(exe, false, false, &e);
	assert_non_null(m);
	vg_watch_match_ids(m, &dev, &ino, &lib_dev, &lib_ino);
	assert_int_equal(dev, kdev);
	assert_int_equal(ino, st.st_ino);
	assert_int_equal(lib_dev, 0);
	assert_int_equal(lib_ino, 0);
	assert_null(vg_watch_match_name(m));	/* no --same-build */
	assert_true(vg_watch_match_running(m, getpid()));
	assert_true(vg_watch_match_exec(m, getpid(), kdev, st.st_ino));
	assert_false(vg_watch_match_exec(m, getpid(), kdev, st.st_ino + 1));
	vg_watch_match_free(m);
	/* no vigil watch: nothing matches, every id 0 */
	vg_watch_match_ids(NULL, &dev, &ino, &lib_dev, &lib_ino);
	assert_int_equal(dev | lib_dev, 0);
	assert_int_equal(ino | lib_ino, 0);
	assert_false(vg_watch_match_running(NULL, getpid()));
	/* a usage error, as vigil watch --exe says it */
	assert_null(vg_watch_match_new("/nonexistent/vigil-test", false, false,
				       &e));
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_non_null(strstr(e.msg, "no such file"));
}

/* --lib-mapped: the file is matched at its executable mapping (here this
 * test's own, mapped executable as a library would be), never at an
 * exec */
static void test_watch_match_lib(void **state)
{
	char exe[PATH_MAX];
	struct vg_err e = { 0 };
	struct vg_watch_match *m;
	struct stat st;
	uint32_t dev, lib_dev;
	uint64_t ino, lib_ino;

	self_exe(exe, sizeof(exe));
	assert_int_equal(stat(exe, &st), 0);
	m = vg_watch_match_new(exe, true, false, &e);
	assert_non_null(m);
	vg_watch_match_ids(m, &dev, &ino, &lib_dev, &lib_ino);
	assert_int_equal(dev, 0);
	assert_int_equal(ino, 0);
	assert_int_equal(lib_ino, st.st_ino);
	assert_true(vg_watch_match_running(m, getpid()));
	assert_false(vg_watch_match_exec(m, getpid(), lib_dev, lib_ino));
	vg_watch_match_free(m);
}

/* --same-build: the file name the exec tracepoint holds, and a process
 * running the file itself is a copy of it by name and build id (when the
 * test was linked with one) */
static void test_watch_match_same_build(void **state)
{
	char exe[PATH_MAX];
	struct vg_err e = { 0 };
	struct vg_watch_match *m;
	const char *base;

	self_exe(exe, sizeof(exe));
	base = strrchr(exe, '/') + 1;
	m = vg_watch_match_new(exe, false, true, &e);
	if (!m) {	/* linked without a build id: said so */
		assert_int_equal(e.exit_code, VG_EXIT_USAGE);
		assert_non_null(strstr(e.msg, "build id"));
		skip();
	}
	assert_string_equal(vg_watch_match_name(m), base);
	/* another file's identity, this process's name and build id */
	assert_true(vg_watch_match_exec(m, getpid(), 0, 0));
	vg_watch_match_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follow_set),
		cmocka_unit_test(test_follow_gone),
		cmocka_unit_test(test_follow_counts),
		cmocka_unit_test(test_watch_match_exe),
		cmocka_unit_test(test_watch_match_lib),
		cmocka_unit_test(test_watch_match_same_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
