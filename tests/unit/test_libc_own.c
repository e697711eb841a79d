/* The rule for blocks the C library allocated for itself
 * (user/leakscan/libc_own.h), shared by --leak-check's records and the
 * leak property's verdict at exit: glibc's and the loader's objects by
 * path, a stack entirely in them, and only a still reachable block (a
 * lost block whose stack shows glibc alone, a program's strdup seen
 * through frame pointers glibc does not keep, stays a leak). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "leakscan/libc_own.h"

static void test_objects(void **state)
{
	(void)state;
	assert_true(vg_leak_libc_object("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(vg_leak_libc_object("libc.so.6"));
	assert_true(vg_leak_libc_object("/lib64/ld-linux-x86-64.so.2"));
	assert_true(vg_leak_libc_object("/lib/x86_64-linux-gnu/libpthread.so.0"));
	assert_true(vg_leak_libc_object("/lib/x86_64-linux-gnu/libnss_files.so.2"));
	assert_false(vg_leak_libc_object("/usr/lib/x86_64-linux-gnu/libcrypto.so.3"));
	assert_false(vg_leak_libc_object("/usr/lib/x86_64-linux-gnu/libmicrohttpd.so.12"));
	assert_false(vg_leak_libc_object("/home/u/libc.so.6.d/prog"));
	assert_false(vg_leak_libc_object("/tmp/prog"));
	assert_false(vg_leak_libc_object(""));
	assert_false(vg_leak_libc_object(NULL));
}

static void test_stacks(void **state)
{
	const struct vg_leak_frame libc[] = {
		{ "__tzstring", "", 0, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ "", "", 0, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ "_dl_init", "", 0, "/lib64/ld-linux-x86-64.so.2" },
	};
	const struct vg_leak_frame prog[] = {
		{ "strdup", "", 0, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ "main", "prog.c", 9, "/tmp/prog" },
	};
	const struct vg_leak_frame unknown[] = {
		{ "", "", 0, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ "", "", 0, "" },
	};

	(void)state;
	assert_true(vg_leak_libc_stack(libc, 3));
	assert_false(vg_leak_libc_stack(prog, 2));
	assert_true(vg_leak_libc_stack(prog, 1));	/* as far as it shows */
	assert_false(vg_leak_libc_stack(unknown, 2));
	assert_false(vg_leak_libc_stack(libc, 0));	/* no stack: unknown */

	assert_true(vg_leak_libc_own(libc, 3, VG_LEAK_REACHABLE));
	for (int k = VG_LEAK_DEFINITE; k < VG_LEAK_REACHABLE; k++)
		assert_false(vg_leak_libc_own(libc, 3, k));	/* lost */
	assert_false(vg_leak_libc_own(prog, 2, VG_LEAK_REACHABLE));
	assert_false(vg_leak_libc_own(libc, 0, VG_LEAK_REACHABLE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_objects),
		cmocka_unit_test(test_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
