/* Unit tests of sites carried from one copy of a file to another
 * (user/sym/elfcopy.h), on the e2e targets (build/targets/, from the
 * Makefile's BUILD): the same build keeps its offsets; another file gets
 * a function's entry by its name; a site inside a function whose size
 * differs, or a function the other file lacks, is refused with both file
 * names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/elf.h"
#include "sym/elfcopy.h"

static char paths[2][4096];

static const char *tgt(int slot, const char *name)
{
	const char *b = getenv("BUILD");

	snprintf(paths[slot], sizeof(paths[slot]), "%s/targets/%s",
		 b ? b : "build", name);
	return paths[slot];
}

static uint64_t entry_of(const char *bin, const char *func, uint64_t *size)
{
	struct vg_func f;
	struct vg_err e = { 0 };

	assert_int_equal(vg_elf_find_func(bin, func, &f, &e), 0);
	if (size)
		*size = f.size;
	return f.offset;
}

static void build_id_read(void **state)
{
	uint8_t id[64];

	(void)state;
	assert_int_equal(vg_elf_build_id(tgt(0, "instance"), id, sizeof(id)), 20);
	assert_int_equal(vg_elf_build_id("/etc/hostname", id, sizeof(id)), -1);
}

static void same_build_same_offsets(void **state)
{
	const char *a = tgt(0, "instance");
	uint64_t in[2] = { entry_of(a, "inst_open", NULL), 0x1234 }, out[2];
	const char *how = NULL;
	struct vg_err e = { 0 };

	(void)state;
	assert_int_equal(vg_elf_carry_offsets(a, a, in, out, 2, &how, &e), 0);
	assert_string_equal(how, "same build");
	assert_true(out[0] == in[0] && out[1] == in[1]);
}

static void another_build_by_symbol(void **state)
{
	const char *a = tgt(0, "instance"), *b = tgt(1, "allocs");
	uint64_t in = entry_of(a, "main", NULL), out = 0;
	const char *how = NULL;
	struct vg_err e = { 0 };

	(void)state;
	assert_int_equal(vg_elf_carry_offsets(a, b, &in, &out, 1, &how, &e), 0);
	assert_string_equal(how, "by symbol");
	assert_true(out == entry_of(b, "main", NULL));
	assert_true(out != in);
}

static void inside_a_function_of_another_size(void **state)
{
	const char *a = tgt(0, "instance"), *b = tgt(1, "allocs");
	uint64_t sa, sb, in, out;
	const char *how = NULL;
	struct vg_err e = { 0 };

	(void)state;
	in = entry_of(a, "main", &sa) + 4;
	entry_of(b, "main", &sb);
	assert_true(sa != sb);
	assert_int_equal(vg_elf_carry_offsets(a, b, &in, &out, 1, &how, &e), -1);
	assert_non_null(strstr(e.msg, "inside function 'main' (+0x4)"));
	assert_non_null(strstr(e.msg, "targets/allocs"));
}

static void function_missing(void **state)
{
	const char *a = tgt(0, "instance"), *b = tgt(1, "allocs");
	uint64_t in = entry_of(a, "inst_open", NULL), out;
	const char *how = NULL;
	struct vg_err e = { 0 };

	(void)state;
	assert_int_equal(vg_elf_carry_offsets(a, b, &in, &out, 1, &how, &e), -1);
	assert_non_null(strstr(e.msg, "function 'inst_open' of"));
	assert_non_null(strstr(e.msg, "targets/instance"));
	assert_non_null(strstr(e.msg, "targets/allocs"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(build_id_read),
		cmocka_unit_test(same_build_same_offsets),
		cmocka_unit_test(another_build_by_symbol),
		cmocka_unit_test(inside_a_function_of_another_size),
		cmocka_unit_test(function_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
