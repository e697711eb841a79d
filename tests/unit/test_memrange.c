/* The range a memory check's violation is about (user/report/memrange.c)
 * from its variables, and globals named as objects in such a report
 * (report/names.h, symbol lookups of user/sym/symbolize.c): the static
 * and the global here are looked up in this very process, from its
 * .symtab. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/memrange.h"
#include "report/names.h"
#include "report/report.h"
#include "spec_load.h"
#include "sym/symbolize.h"

static const char *mem_spec =
	"property ov\n"
	"event copy(dst, n)\n"
	"uint len = 0\n"
	"uint room = 0\n"
	"uint over = 0\n"
	"ptr at\n"
	"state ok accepting {\n"
	"  copy(dst, n) when !valid(dst, n) { at = dst; len = n; room = 0; over = len - room; } -> bad\n"
	"}\n"
	"state bad violation\n";

/* the same variables, no memory predicate: not a memory check */
static const char *plain_spec =
	"property pl\n"
	"event copy(dst, n)\n"
	"uint len = 0\n"
	"uint room = 0\n"
	"state ok accepting {\n"
	"  copy(dst, n) when n > 4 { len = n; } -> bad\n"
	"}\n"
	"state bad violation\n";

/* names 0x500000..0x500100 as a block, as an object or not */
static bool fake_namer(void *ctx, uint64_t v, bool object, char *buf,
		       size_t len)
{
	if (v < 0x500000 || v >= 0x500100)
		return false;
	snprintf(buf, len, "%s, +%llu", object ? "block of 256 bytes" : "&blk",
		 (unsigned long long)(v - 0x500000));
	return true;
}

/* vars in declaration order: len, room, over, at */
static struct vg_slice_view view(const int64_t *vars)
{
	return (struct vg_slice_view){ .prop = 0, .vars = vars, .trans = -1 };
}

static void test_range_text(void **state)
{
	struct vg_spec *s = load(mem_spec);
	int64_t named[] = { 100, 50, 50, 0x500010 };
	int64_t none[] = { 16, 0, 16, 0x900000 };
	int64_t no_at[] = { 100, 50, 50, 0 };
	int64_t inside[] = { 10, 50, 0, 0x500010 };
	struct vg_slice_view v;
	struct vg_memrange m;
	char text[512];

	vg_report_set_namer(fake_namer, NULL);
	vg_names_objects(true);
	v = view(named);
	assert_true(vg_memrange_of(s, &v, &m));
	assert_int_equal(m.over, 50);
	vg_memrange_text(&m, text, sizeof(text));
	assert_string_equal(text, "[0x500010, 0x500074): 100 bytes at block of 256 bytes, +16: 50 fit, 50 past its end");
	/* in no object vigil knows of */
	v = view(none);
	assert_true(vg_memrange_of(s, &v, &m));
	vg_memrange_text(&m, text, sizeof(text));
	assert_string_equal(text, "[0x900000, 0x900010): 16 bytes in no live object: all 16 outside");
	/* a property that does not keep the pointer */
	v = view(no_at);
	assert_true(vg_memrange_of(s, &v, &m));
	vg_memrange_text(&m, text, sizeof(text));
	assert_string_equal(text, "100 bytes: 50 fit, 50 past its end");
	/* no overrun: no range (an update that did not run) */
	v = view(inside);
	assert_false(vg_memrange_of(s, &v, &m));
	vg_names_objects(false);
	vg_report_set_namer(NULL, NULL);
	vg_spec_free(s);
}

static void test_range_needs_mem_pred(void **state)
{
	struct vg_spec *s = load(plain_spec);
	int64_t vars[] = { 100, 50 };
	struct vg_slice_view v = view(vars);
	struct vg_memrange m;

	assert_false(vg_memrange_of(s, &v, &m));
	vg_spec_free(s);
}

static void test_range_json(void **state)
{
	struct vg_spec *s = load(mem_spec);
	int64_t vars[] = { 80, 64, 16, 0x500000 };
	struct vg_slice_view v = view(vars);
	struct vg_memrange m;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	vg_report_set_namer(fake_namer, NULL);
	vg_names_objects(true);
	assert_true(vg_memrange_of(s, &v, &m));
	f = open_memstream(&out, &len);
	vg_memrange_json(&m, f);
	fclose(f);
	assert_string_equal(out, "{\"at\":\"0x500000\",\"len\":80,\"room\":64,\"over\":16,"
			    "\"object\":\"block of 256 bytes, +0\","
			    "\"text\":\"[0x500000, 0x500050): 80 bytes at block of 256 bytes, +0: 64 fit, 16 past its end\"}");
	free(out);
	vg_names_objects(false);
	vg_report_set_namer(NULL, NULL);
	vg_spec_free(s);
}

/* the namer is told which way to name: as an object only while on */
static void test_names_objects(void **state)
{
	char name[64];

	vg_report_set_namer(fake_namer, NULL);
	assert_true(vg_name_of(0x500008, name, sizeof(name)));
	assert_string_equal(name, "&blk, +8");
	vg_names_objects(true);
	assert_true(vg_name_of(0x500008, name, sizeof(name)));
	assert_string_equal(name, "block of 256 bytes, +8");
	vg_names_objects(false);
	assert_false(vg_name_of(0x900000, name, sizeof(name)));
	vg_report_set_namer(NULL, NULL);
}

static char counter[24];	/* a static: .symtab's local symbol */
char memrange_table[40];	/* a global */

static void test_symbolize_static_and_global(void **state)
{
	struct vg_symbolizer *sym = vg_symbolizer_new(getpid());
	struct vg_data_sym d;

	assert_non_null(sym);
	counter[0] = memrange_table[0] = 1;	/* kept, whatever -O */
	assert_true(vg_symbolize_global(sym, (uint64_t)(counter + 5), &d));
	assert_string_equal(d.name, "counter");
	assert_int_equal(d.size, 24);
	assert_int_equal(d.off, 5);
	assert_true(d.local);
	assert_non_null(strstr(d.file, "test_memrange.c"));
	assert_true(vg_symbolize_global(sym, (uint64_t)memrange_table, &d));
	assert_string_equal(d.name, "memrange_table");
	assert_int_equal(d.size, 40);
	assert_int_equal(d.off, 0);
	assert_false(d.local);
	vg_symbolizer_free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_text),
		cmocka_unit_test(test_range_needs_mem_pred),
		cmocka_unit_test(test_range_json),
		cmocka_unit_test(test_names_objects),
		cmocka_unit_test(test_symbolize_static_and_global),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
