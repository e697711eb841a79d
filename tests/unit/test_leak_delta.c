/* Loss records against the previous leak check (user/leakscan/delta.h),
 * as memcheck's VALGRIND_DO_ADDED_LEAK_CHECK and _CHANGED_ show them, on
 * the steps of memcheck's own leak-delta test: a block reachable, then
 * lost beside a new one (ADDED: both, "+10"), then reachable again
 * (CHANGED: the lost record with nothing left, "0 (-10) bytes in 0 (-1)
 * blocks", with the stack it had, and the reachable one back); the
 * summary's changes; a quick check shows no record; the JSON of a record
 * with no block left; NEW shows the records that had no block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "leakscan/delta.h"
#include "leakscan/records.h"

static const char *const text_a[] = { "malloc", "f+0x15 (leak-delta.c:14)",
				      "main+0x2b4 (leak-delta.c:60)" };
static const char *const text_b[] = { "malloc", "f+0x182 (leak-delta.c:23)",
				      "main+0x2b4 (leak-delta.c:60)" };
static const struct vg_leak_frame frames[3] = {
	{ "malloc", "", 0, "libc.so.6" }, { "f", "leak-delta.c", 14, "t" },
	{ "main", "leak-delta.c", 60, "t" },
};
static struct vg_leak_stack stacks[2];

/* the check's records of blocks (a: 10 bytes, b: 21, each of a kind; -1
 * for none), their text (and the JSON) against d */
static char *check(struct vg_leak_delta *d, int a, int b,
		   enum vg_leak_delta_mode mode, bool summary, char **json)
{
	struct vg_leak_block v[2];
	struct vg_leak_report r;
	size_t n = 0, len = 0, jlen = 0;
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);

	stacks[0] = (struct vg_leak_stack){ 3, frames, text_a };
	stacks[1] = (struct vg_leak_stack){ 3, frames, text_b };
	memset(v, 0, sizeof(v));
	if (a >= 0)
		v[n++] = (struct vg_leak_block){ .addr = 0x1000, .size = 10,
						 .tag = 0, .kind = a };
	if (b >= 0)
		v[n++] = (struct vg_leak_block){ .addr = 0x2000, .size = 21,
						 .tag = 1, .kind = b };
	assert_int_equal(vg_leak_records(v, n, stacks, 2, NULL, &r), 0);
	assert_int_equal(vg_leak_delta_apply(d, &r, stacks, 2, mode), 0);
	r.summary_only = summary;
	vg_leak_report_text(&r, stacks, NULL, (1u << VG_LEAK_NKINDS) - 1, f);
	fclose(f);
	if (json) {
		f = open_memstream(json, &jlen);
		vg_leak_report_json(&r, stacks, NULL, f);
		fclose(f);
	}
	vg_leak_report_free(&r);
	return text;
}

static void test_steps(void **state)
{
	struct vg_leak_delta *d = vg_leak_delta_new();
	char *t, *j = NULL;

	(void)state;
	assert_non_null(d);
	/* a plain check: no change shown */
	t = check(d, VG_LEAK_REACHABLE, -1, VG_LEAK_DELTA_NONE, false, NULL);
	assert_non_null(strstr(t, "10 bytes in 1 blocks are still reachable in loss record 1 of 1\n"));
	assert_null(strstr(t, "(+"));
	free(t);
	/* nothing changed: ADDED shows no record, the summary its "+0" */
	t = check(d, VG_LEAK_REACHABLE, -1, VG_LEAK_DELTA_INCREASED, false,
		  NULL);
	assert_null(strstr(t, "loss record"));
	assert_non_null(strstr(t, "   still reachable: 10 (+0) bytes in 1 (+0) blocks\n"));
	free(t);
	/* a lost, b new: both grew; a's reachable record, gone, did not */
	t = check(d, VG_LEAK_DEFINITE, VG_LEAK_REACHABLE,
		  VG_LEAK_DELTA_INCREASED, false, NULL);
	assert_non_null(strstr(t, "10 (+10) bytes in 1 (+1) blocks are definitely lost in loss record"));
	assert_non_null(strstr(t, "21 (+21) bytes in 1 (+1) blocks are still reachable"));
	assert_null(strstr(t, "0 (-10)"));
	assert_non_null(strstr(t, "   definitely lost: 10 (+10) bytes in 1 (+1) blocks\n"));
	assert_non_null(strstr(t, "   still reachable: 21 (+11) bytes in 1 (+0) blocks\n"));
	free(t);
	/* a reachable again: CHANGED shows the lost record with nothing
	 * left, under the stack it had, and a's reachable one; b is as it
	 * was */
	t = check(d, VG_LEAK_REACHABLE, VG_LEAK_REACHABLE,
		  VG_LEAK_DELTA_CHANGED, false, &j);
	assert_non_null(strstr(t, "0 (-10) bytes in 0 (-1) blocks are definitely lost in loss record 1 of 3\n   at malloc\n   by f+0x15 (leak-delta.c:14)\n"));
	assert_non_null(strstr(t, "10 (+10) bytes in 1 (+1) blocks are still reachable"));
	assert_null(strstr(t, "21 (+0) bytes in 1 (+0) blocks are still reachable in loss"));
	assert_non_null(strstr(t, "   definitely lost: 0 (-10) bytes in 0 (-1) blocks\n"));
	assert_non_null(strstr(j, "\"kind\":\"definite\",\"blocks\":0,\"bytes\":0,"));
	assert_non_null(strstr(j, "\"previous\":{\"blocks\":1,\"bytes\":10,\"indirect_bytes\":0},\"stack\":[{\"text\":\"malloc\""));
	assert_null(strstr(j, "\"bytes\":21,\"indirect_bytes\":0,\"first_address\":\"0x2000\",\"previous\""));
	free(t);
	free(j);
	/* a quick check: the summary alone */
	t = check(d, VG_LEAK_DEFINITE, -1, VG_LEAK_DELTA_NONE, true, &j);
	assert_null(strstr(t, "loss record"));
	assert_non_null(strstr(t, "   definitely lost: 10 bytes in 1 blocks\n"));
	assert_non_null(strstr(j, "\"records\":[]"));
	free(t);
	free(j);
	/* a plain check never shows a record with no block */
	t = check(d, -1, VG_LEAK_REACHABLE, VG_LEAK_DELTA_NONE, false, NULL);
	assert_null(strstr(t, "definitely lost in loss record"));
	assert_non_null(strstr(t, "21 bytes in 1 blocks are still reachable"));
	free(t);
	/* NEW (valgrind 3.21's): a, lost again, had no block; b had */
	t = check(d, VG_LEAK_DEFINITE, VG_LEAK_REACHABLE, VG_LEAK_DELTA_NEW,
		  false, NULL);
	assert_non_null(strstr(t, "10 (+10) bytes in 1 (+1) blocks are definitely lost"));
	assert_null(strstr(t, "21 (+0) bytes in 1 (+0) blocks are still reachable in loss"));
	free(t);
	vg_leak_delta_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
