/* vg_monitor_disable (vigil unload of a property the session started
 * with): the property's slices are freed, no event steps it, mirrored
 * slices are ignored, foreach/stats/prop_live no longer see it, and the
 * other property on the same events goes on exactly as before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "monitor_props.h"

static int visited[2];

static void visit(void *ctx, const struct vg_slice_view *s)
{
	(void)ctx;
	visited[s->prop]++;
}

static void test_disable(void **state)
{
	struct mb b;
	struct vg_monitor *m;
	struct vg_err e;
	int eo, ec;
	uint64_t params[VG_MAX_PARAMS] = { 42 };

	(void)state;
	mb_init(&b);
	eo = mb_event(&b, "open", 1);
	ec = mb_event(&b, "close", 1);
	for (int p = 0; p < 2; p++) {	/* two properties, the same shape */
		mb_prop(&b, p ? "b" : "a", 1, "x");
		mb_state(&b, "closed", VG_STATE_ACCEPTING);
		mb_state(&b, "opened", VG_STATE_NONACCEPTING);
		mb_bind(&b, eo, 0);
		mb_bind(&b, ec, 0);
		mb_trans(&b, 0, eo, 1);
		mb_trans(&b, 1, ec, 0);
	}
	m = new_mon(&b, 0);
	feed(m, MB_EV(eo, 1));
	feed(m, MB_EV(eo, 2));
	assert_int_equal(vg_monitor_prop_live(m, 0), 2);
	assert_int_equal(vg_monitor_prop_live(m, 1), 2);
	assert_false(vg_monitor_prop_disabled(m, 0));

	vg_monitor_disable(m, 0);
	assert_true(vg_monitor_prop_disabled(m, 0));
	assert_false(vg_monitor_prop_disabled(m, 1));
	assert_int_equal(vg_monitor_prop_live(m, 0), 0);
	assert_int_equal(stats(m).slices_live, 2);	/* b's two */

	ncalls = 0;
	feed(m, MB_EV(eo, 3));		/* b only */
	feed(m, MB_EV(ec, 1));
	assert_int_equal(ncalls, 2);
	for (int i = 0; i < ncalls; i++)
		assert_int_equal(calls[i].prop, 1);
	assert_int_equal(vg_monitor_prop_live(m, 0), 0);
	assert_int_equal(vg_monitor_prop_live(m, 1), 2);	/* 2 and 3 */

	/* a kernel-tier slice mirrored after the unload is ignored */
	assert_int_equal(vg_monitor_set(m, 0, 1, params, 1, NULL, &e), 0);
	assert_int_equal(vg_monitor_prop_live(m, 0), 0);

	visited[0] = visited[1] = 0;
	vg_monitor_foreach(m, visit, NULL);
	assert_int_equal(visited[0], 0);
	assert_int_equal(visited[1], 2);

	vg_monitor_disable(m, 0);	/* twice: nothing more */
	vg_monitor_disable(m, 7);	/* out of range: nothing */
	assert_int_equal(vg_monitor_prop_live(m, 1), 2);
	vg_monitor_free(m);
	mb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
