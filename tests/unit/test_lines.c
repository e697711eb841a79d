/* Bounded line reading (user/util/lines.c): what every text reader of
 * vigil uses so that an endless line ends in an error, not in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/lines.h"

static FILE *text(const char *s, size_t n)
{
	FILE *f = fmemopen((void *)s, n, "r");

	assert_non_null(f);
	return f;
}

static void test_lines_and_last_without_newline(void **state)
{
	static const char s[] = "a,1\n\nlast";
	FILE *f = text(s, sizeof(s) - 1);
	char *buf = NULL;
	size_t cap = 0, len;

	assert_int_equal(vg_read_line(f, &buf, &cap, 16, &len), 1);
	assert_string_equal(buf, "a,1");
	assert_int_equal(len, 3);
	assert_int_equal(vg_read_line(f, &buf, &cap, 16, &len), 1);
	assert_int_equal(len, 0);
	assert_int_equal(vg_read_line(f, &buf, &cap, 16, &len), 1);
	assert_string_equal(buf, "last");
	assert_int_equal(vg_read_line(f, &buf, &cap, 16, &len), 0);
	free(buf);
	fclose(f);
}

static void test_line_past_the_bound(void **state)
{
	char s[100];
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, len;

	memset(s, 'x', sizeof(s));
	f = text(s, sizeof(s));
	assert_int_equal(vg_read_line(f, &buf, &cap, 16, &len), -1);
	/* it never held more than the bound */
	assert_true(cap <= 17);
	free(buf);
	fclose(f);
	/* exactly the bound is a line */
	buf = NULL;
	cap = 0;
	f = text(s, 16);
	assert_int_equal(vg_read_line(f, &buf, &cap, 16, &len), 1);
	assert_int_equal(len, 16);
	free(buf);
	fclose(f);
}

static void test_not_text(void **state)
{
	assert_int_equal(vg_not_text("a,b\t\"c\"\r", 8), -1);
	assert_int_equal(vg_not_text("ab\0c", 4), 2);
	assert_int_equal(vg_not_text("\x07", 1), 0);
	assert_int_equal(vg_not_text("caf\xc3\xa9", 5), -1);	/* UTF-8 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_and_last_without_newline),
		cmocka_unit_test(test_line_past_the_bound),
		cmocka_unit_test(test_not_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
