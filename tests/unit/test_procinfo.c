/* Unit tests of where a process lives (user/proc/procinfo.h) and of
 * libraries found through another root (user/sym/libs.c under a
 * /proc/self/fd/N prefix, as for a process in a container). */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/procinfo.h"
#include "sym/libs.h"
#include "sym/maps.h"

/* vigil's own process: its pid, a cgroup, its root is vigil's */
static void test_where_self(void **state)
{
	struct vg_proc_where w;
	struct vg_err e = { 0 };
	char prefix[64];

	assert_int_equal(vg_proc_where(getpid(), &w, &e), 0);
	assert_int_equal(w.ns_pid, getpid());
	assert_true(w.cgroup[0] == '/');
	assert_false(w.other_root);
	assert_int_equal(vg_proc_root_prefix(getpid(), prefix, sizeof(prefix), &e), 0);
	assert_string_equal(prefix, "");
	assert_int_not_equal(vg_proc_where(0x7ffffff0, &w, &e), 0);
}

/* A program named under another root's prefix (here, an O_PATH
 * descriptor of / itself) has every library found under the prefix, the
 * same files as without it. */
static void test_libs_through_root(void **state)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char bin[PATH_MAX], prefix[32];
	struct vg_libs plain, rooted;
	struct vg_err e = { 0 };

	assert_true(fd >= 0);
	snprintf(prefix, sizeof(prefix), "/proc/self/fd/%d", fd);
	snprintf(bin, sizeof(bin), "%s/bin/true", prefix);
	assert_int_equal(vg_libs_load("/bin/true", &plain, &e), 0);
	assert_int_equal(vg_libs_load(bin, &rooted, &e), 0);
	assert_int_equal(plain.n, rooted.n);
	assert_true(rooted.n >= 3);	/* the binary, libc, the loader */
	for (size_t i = 0; i < rooted.n; i++) {
		struct stat a, b;

		assert_non_null(rooted.v[i].path);
		if (strncmp(rooted.v[i].path, prefix, strlen(prefix)))
			fail_msg("%s is not under %s", rooted.v[i].path, prefix);
		assert_int_equal(stat(rooted.v[i].path, &a), 0);
		assert_int_equal(stat(plain.v[i].path, &b), 0);
		assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	}
	vg_libs_free(&plain);
	vg_libs_free(&rooted);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where_self),
		cmocka_unit_test(test_libs_through_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
