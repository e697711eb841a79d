/* The evidence of a violation (user/report/evidence.c) fed by the real
 * monitor: a slice made by a join lists each of its events once, though
 * the event stepped the less specific slice too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "monitor/monitor.h"
#include "report/evidence.h"
#include "spec_load.h"

/* lock_order's shape: `lock(a)` binds a, `got(b)` binds b; the pair's
 * slice is a join of (a) and (b) */
static const char *pair_spec =
	"property order\n"
	"slice on a, b\n"
	"event lock(a)\n"
	"event got(b)\n"
	"int held = 0\n"
	"state w accepting {\n"
	"  lock(a) when held == 1 -> bad\n"
	"  lock(a) { held = 1; } -> w\n"
	"  got(b) -> w\n"
	"}\n"
	"state bad violation\n";

struct seen {
	struct vg_evidence *x;
	char *text;
	size_t len;
};

static void on_transition(void *ctx, const struct vg_slice_view *s,
			  int from, int to, const struct vg_mon_event *ev)
{
	struct seen *sn = ctx;

	vg_evidence_add(sn->x, s, from, to, ev);
	if (s->mask == 3 && to == 1) {
		FILE *f = open_memstream(&sn->text, &sn->len);

		vg_evidence_text(sn->x, s, f);
		fclose(f);
	}
}

static int count_lines(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_joined_slice_lists_each_event_once(void **state)
{
	struct vg_spec *spec = load(pair_spec);
	struct seen sn = { 0 };
	struct vg_monitor_hooks hooks = { .ctx = &sn,
					  .transition = on_transition };
	struct vg_err e = { 0 };
	struct vg_monitor *m;
	struct vg_mon_event ev = { 0 };
	int lock = vg_spec_find_event(spec, VG_EV_NAMED, "lock");
	int got = vg_spec_find_event(spec, VG_EV_NAMED, "got");

	sn.x = vg_evidence_new(spec, 0, 16);
	assert_non_null(sn.x);
	m = vg_monitor_new(spec, NULL, &hooks, &e);
	assert_non_null(m);
	/* lock(7) makes (a=7); got(9) makes (b=9) and joins (7, 9); a
	 * second lock(7) steps (7) and (7, 9): (7, 9) violates */
	ev.event = lock, ev.slot[0] = 7, ev.seq = 1, ev.time_ns = 100;
	assert_int_equal(vg_monitor_event(m, &ev, &e), 0);
	ev.event = got, ev.slot[0] = 9, ev.seq = 2, ev.time_ns = 200;
	assert_int_equal(vg_monitor_event(m, &ev, &e), 0);
	ev.event = lock, ev.slot[0] = 7, ev.seq = 3, ev.time_ns = 300;
	assert_int_equal(vg_monitor_event(m, &ev, &e), 0);
	assert_non_null(sn.text);
	/* three events, each once, the last as the pair's slice took it */
	assert_int_equal(count_lines(sn.text, "lock(7)"), 2);
	assert_int_equal(count_lines(sn.text, "got(9)"), 1);
	assert_int_equal(count_lines(sn.text, "w -> bad"), 1);
	assert_non_null(strstr(sn.text, "of this slice's 3 recorded steps"));
	free(sn.text);
	vg_monitor_free(m);
	vg_evidence_free(sn.x);
	vg_spec_free(spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joined_slice_lists_each_event_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
