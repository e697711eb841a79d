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

static char *text_of(struct vg_evidence *x, const struct vg_slice_view *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	vg_evidence_text(x, s, f);
	fclose(f);
	return text;
}

/* A restore inside a session rewinds the evidence to a checkpoint's mark:
 * the steps after it go, those before stay, unless the ring went round. */
static void test_rewind_to_a_mark(void **state)
{
	struct vg_spec *spec = load(pair_spec);
	uint64_t params[VG_MAX_PARAMS] = { 7 };
	struct vg_slice_view s = { .prop = 0, .mask = 1, .params = params,
				   .trans = -1 };
	struct vg_mon_event ev = { 0 };
	struct vg_evidence *x = vg_evidence_new(spec, 8, 16);
	uint64_t mark;
	char *t;

	assert_non_null(x);
	ev.event = vg_spec_find_event(spec, VG_EV_NAMED, "lock");
	ev.slot[0] = 7;
	for (int i = 0; i < 2; i++)
		vg_evidence_add(x, &s, 0, 0, &ev);
	mark = vg_evidence_mark(x);
	assert_int_equal(mark, 2);
	for (int i = 0; i < 3; i++)
		vg_evidence_add(x, &s, 0, 1, &ev);
	vg_evidence_rewind(x, mark);
	assert_int_equal(vg_evidence_mark(x), 2);
	t = text_of(x, &s);
	assert_non_null(t);
	assert_non_null(strstr(t, "of this slice's 2 recorded steps"));
	assert_int_equal(count_lines(t, "w -> bad"), 0);
	free(t);
	/* past the ring's size since the mark: nothing of then is left */
	for (int i = 0; i < 9; i++)
		vg_evidence_add(x, &s, 0, 1, &ev);
	vg_evidence_rewind(x, mark);
	t = text_of(x, &s);
	assert_true(!t || !strstr(t, "evidence"));
	free(t);
	vg_evidence_free(x);
	vg_spec_free(spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joined_slice_lists_each_event_once),
		cmocka_unit_test(test_rewind_to_a_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
