/* Unit tests of the libraries a program may dlopen (--lib;
 * user/sym/libs.h: vg_libs_load_with): where they go in the search, what
 * is refused, and the "not found" message with its hint.
 *
 * The setup compiles, into a temporary directory it removes at the end,
 * a program that names no library of its own (app), and a library it
 * could dlopen (dl/libplug.so) that defines plug_fn and also a malloc of
 * its own: the loader's libc must still win that one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/elf.h"
#include "sym/libs.h"
#include "tmpdir.h"

static const char app_c[] = "int main(void) { return 0; }\n";
static const char plug_c[] =
	"#include <stddef.h>\n"
	"int plug_fn(int x) { return x + 1; }\n"
	"static int plug_local(int x) { return x * 2; }\n"
	"int (*keep)(int) = plug_local;\n"
	"void *malloc(size_t n) { return NULL; }\n";

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/vigil-dl-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	if (write_file(P("app.c"), app_c) || write_file(P("plug.c"), plug_c) ||
	    sh("mkdir -p %s/dl", dir) ||
	    sh("cc -o %s %s", P("app"), P("app.c")) ||
	    sh("cc -no-pie -fno-pie -o %s %s", P("app_nopie"), P("app.c")) ||
	    sh("cc -g -shared -fPIC -o %s %s", P("dl/libplug.so"),
	       P("plug.c")))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (dir[0] && strncmp(dir, "/tmp/vigil-dl-", 14) == 0)
		sh("rm -rf '%s'", dir);
	return 0;
}

static void test_found_after_the_loaders(void **state)
{
	const char *dl[] = { P("dl/libplug.so") };
	struct vg_libs l, plain;
	struct vg_err e = { 0 };
	struct vg_func_where w;
	struct vg_func f;
	char real[PATH_MAX];

	(void)state;
	unsetenv("LD_LIBRARY_PATH");
	assert_int_equal(vg_libs_load(P("app"), &plain, &e), 0);
	assert_int_equal(plain.nloaded, plain.n);
	assert_int_equal(vg_libs_load_with(P("app"), dl, 1, &l, &e), 0);
	/* the loader's view is unchanged; the --lib library comes after */
	assert_int_equal(l.nloaded, plain.n);
	assert_int_equal(l.n, plain.n + 1);
	assert_string_equal(l.v[l.nloaded].how, "--lib");
	assert_string_equal(l.v[l.nloaded].needed, dl[0]);
	assert_non_null(realpath(dl[0], real));
	assert_string_equal(l.v[l.nloaded].path, real);
	/* exported, and local (symtab) */
	assert_int_equal(vg_libs_find_func(&l, "plug_fn", &w, &e), 0);
	assert_int_equal(w.obj, l.nloaded);
	assert_string_equal(w.path, real);
	assert_int_equal(vg_elf_find_func(real, "plug_fn", &f, &e), 0);
	assert_int_equal(w.fn.offset, f.offset);
	assert_int_equal(vg_libs_find_func(&l, "plug_local", &w, &e), 0);
	assert_int_equal(w.obj, l.nloaded);
	assert_int_equal(w.fn.source, VG_SRC_SYMTAB);
	/* defined by both: the loader's libc, searched first */
	assert_int_equal(vg_libs_find_func(&l, "malloc", &w, &e), 0);
	assert_true(w.obj < l.nloaded);
	assert_non_null(strstr(w.path, "libc.so"));
	vg_libs_free(&l);
	vg_libs_free(&plain);
}

static void test_not_found_hint(void **state)
{
	const char *dl[] = { P("dl/libplug.so") };
	struct vg_libs l;
	struct vg_err e = { 0 };
	struct vg_func_where w;

	(void)state;
	assert_int_equal(vg_libs_load(P("app"), &l, &e), 0);
	assert_int_equal(vg_libs_find_func(&l, "plug_fn", &w, &e), -1);
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_contains(e.msg, "function 'plug_fn' not found in ");
	assert_contains(e.msg, P("app"));
	assert_contains(e.msg, "if the program loads it with dlopen, name the library with --lib PATH");
	vg_libs_free(&l);
	assert_int_equal(vg_libs_load_with(P("app"), dl, 1, &l, &e), 0);
	assert_int_equal(vg_libs_find_func(&l, "no_such_fn", &w, &e), -1);
	assert_contains(e.msg, "libraries and 1 --lib library; if the program");
	vg_libs_free(&l);
}

static void test_bare_name_and_duplicates(void **state)
{
	const char *bare[] = { "libplug.so" };
	const char *libc[] = { "libc.so.6" };
	struct vg_libs l;
	struct vg_err e = { 0 };

	(void)state;
	/* where dlopen would look: LD_LIBRARY_PATH here */
	setenv("LD_LIBRARY_PATH", P("dl"), 1);
	assert_int_equal(vg_libs_load_with(P("app"), bare, 1, &l, &e), 0);
	assert_int_equal(l.n, l.nloaded + 1);
	assert_string_equal(l.v[l.nloaded].path, P("dl/libplug.so"));
	vg_libs_free(&l);
	unsetenv("LD_LIBRARY_PATH");
	assert_int_equal(vg_libs_load_with(P("app"), bare, 1, &l, &e), -1);
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_contains(e.msg, "--lib libplug.so: not found where dlopen from");
	/* one the loader maps anyway is not searched twice */
	assert_int_equal(vg_libs_load_with(P("app"), libc, 1, &l, &e), 0);
	assert_int_equal(l.n, l.nloaded);
	vg_libs_free(&l);
}

static void test_refused(void **state)
{
	struct {
		const char *path, *why;
	} bad[] = {
		{ P("dl/none.so"), "No such file or directory" },
		{ P("plug.c"), "not an ELF file" },
		{ P("app_nopie"), "not a shared library" },
		{ "", "an empty path" },
	};
	struct vg_libs l;
	struct vg_err e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *dl[] = { bad[i].path };

		memset(&e, 0, sizeof(e));
		assert_int_equal(vg_libs_load_with(P("app"), dl, 1, &l, &e), -1);
		assert_int_equal(e.exit_code, VG_EXIT_USAGE);
		assert_contains(e.msg, "--lib");
		assert_contains(e.msg, bad[i].why);
		assert_int_equal(l.n, 0);	/* nothing left to free */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found_after_the_loaders),
		cmocka_unit_test(test_not_found_hint),
		cmocka_unit_test(test_bare_name_and_duplicates),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
