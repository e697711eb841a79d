/* Time in properties: state timeouts (`within ... else -> s`) and clocks,
 * from the language (units, -D durations, errors) through the monitor's
 * timers (fired with no event, cancelled by leaving, restarted by entering
 * again, copied by joins) to CSV traces with timestamps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor.h"
#include "spec/spec.h"
#include "trace/trace.h"
#include "spec_load.h"

#define MS 1000000ull

static const char *held_spec =
	"param limit = 100ms\n"
	"property held \"held at most a limit\"\n"
	"slice on l\n"
	"event acquire(l)\n"
	"event release(l)\n"
	"event poke(l)\n"
	"int n = 0\n"
	"clock c\n"
	"state free { acquire(l) { reset c; } -> held }\n"
	"state held within $limit else { n = c; } -> late {\n"
	"  release(l) -> free\n"
	"  poke(l) -> held\n"
	"}\n"
	"state late violation\n";

struct seen {
	int n;
	int from[16], to[16], event[16];
	uint64_t time[16], slot[16][4], param[16];
	int64_t n_var[16];
};

static void on_tr(void *ctx, const struct vg_slice_view *s, int from, int to,
		  const struct vg_mon_event *ev)
{
	struct seen *w = ctx;

	if (w->n == 16)
		return;
	w->from[w->n] = from;
	w->to[w->n] = to;
	w->event[w->n] = ev->event;
	w->time[w->n] = ev->time_ns;
	memcpy(w->slot[w->n], ev->slot, sizeof(w->slot[0]));
	w->param[w->n] = s->params[0];
	w->n_var[w->n] = s->vars ? s->vars[0] : 0;
	w->n++;
}

static struct vg_monitor *mon(struct vg_spec *s, struct seen *w)
{
	struct vg_monitor_hooks h = { .ctx = w, .transition = on_tr };
	struct vg_err e = { 0 };
	struct vg_monitor *m = vg_monitor_new(s, NULL, &h, &e);

	assert_non_null(m);
	return m;
}

static void feed(struct vg_monitor *m, struct vg_spec *s, const char *name,
		 uint64_t l, uint64_t t)
{
	struct vg_mon_event ev = { .time_ns = t, .pid = 7, .tid = 8 };
	struct vg_err e = { 0 };

	ev.event = vg_spec_find_event(s, VG_EV_NAMED, name);
	assert_true(ev.event >= 0);
	ev.slot[0] = l;
	ev.slot[VG_SLOT_STACK] = 42;
	assert_int_equal(vg_monitor_event(m, &ev, &e), 0);
}

static int expire(struct vg_monitor *m, uint64_t now)
{
	struct vg_err e = { 0 };

	return vg_monitor_expire(m, now, &e);
}

static void test_spec_shape(void **state)
{
	struct vg_spec *s = load(held_spec);
	const struct vg_property *p = &s->props[0];
	int held = vg_property_find_state(p, "held");

	assert_true(p->timed);
	assert_true(p->states[held].timed);
	assert_int_equal(p->states[held].limit_ns, 100 * MS);
	assert_int_equal(p->states[held].timeout_to,
			 vg_property_find_state(p, "late"));
	assert_false(p->states[0].timed);
	assert_true(p->vars[p->deadline_var].hidden);
	assert_true(p->vars[1].clock);
	assert_int_equal(s->events[p->timeout_event].kind, VG_EV_TIMEOUT);
	vg_spec_free(s);
}

static void test_units_and_defines(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	int held;

	assert_int_equal(vg_spec_define(s, "limit", "3s", &e), 0);
	assert_int_equal(vg_spec_load_string(s, "t.vigil", held_spec, &e), 0);
	held = vg_property_find_state(&s->props[0], "held");
	assert_int_equal(s->props[0].states[held].limit_ns, 3000 * MS);
	vg_spec_free(s);

	s = vg_spec_new();
	assert_int_equal(vg_spec_define(s, "limit", "250us", &e), 0);
	assert_int_equal(vg_spec_load_string(s, "t.vigil", held_spec, &e), 0);
	assert_int_equal(s->props[0].states[held].limit_ns, 250000);
	vg_spec_free(s);

	s = vg_spec_new();	/* a unit that is none */
	assert_int_equal(vg_spec_define(s, "limit", "250xs", &e), 0);
	assert_int_equal(vg_spec_load_string(s, "t.vigil", held_spec, &e), -1);
	assert_non_null(strstr(e.msg, "-D limit=250xs: expected a number"));
	vg_spec_free(s);

	/* every unit, and a bare number is nanoseconds */
	s = load("property p int a = 7ns, b = 7us, c = 7ms, d = 7s, f = 7\n"
		 "state x\n");
	assert_int_equal(s->props[0].vars[0].init, 7);
	assert_int_equal(s->props[0].vars[1].init, 7000);
	assert_int_equal(s->props[0].vars[2].init, 7 * MS);
	assert_int_equal(s->props[0].vars[3].init, 7000 * MS);
	assert_int_equal(s->props[0].vars[4].init, 7);
	vg_spec_free(s);
}

static const struct {
	const char *src, *what;
} bad[] = {
	{ "property p state a within 1s -> a\n",
	  "t.vigil:1:30: error: unexpected '->', expected 'else' and where the slice goes when the time runs out ('else -> STATE')" },
	{ "property p state a within 1s else -> b\n",
	  "t.vigil:1:38: error: unknown state 'b', expected a state of property p" },
	{ "property p int x state a { before f() { reset x } -> a }\n",
	  "t.vigil:1:47: error: 'x' is not a clock, expected a name declared with 'clock x'" },
	{ "property p clock c state a { before f() { c = 1 } -> a }\n",
	  "t.vigil:1:43: error: clock 'c' cannot be assigned, expected 'reset c'" },
	{ "property p state a { before f() { reset c } -> a }\n",
	  "t.vigil:1:41: error: unknown clock 'c', expected a clock of property p (declared with 'clock c')" },
	{ "property p state a within 10xs else -> a\n",
	  "t.vigil:1:29: error: unexpected 'x' in a number, expected a digit" },
	{ "property p state a within \"x\" else -> a\n",
	  "t.vigil:1:27: error: the limit of 'within' is a string, expected a duration (200ms, 2s, $limit) or 'CLOCK < duration'" },
	{ "property p state a within 0ms else -> a\n",
	  "t.vigil:1:27: error: the limit of 'within' is 0, expected a positive duration (200ms, 2s)" },
	{ "property p state a state b violation within 1s else -> a\n",
	  "t.vigil:1:38: error: violation state 'b' has a timeout, expected none (a violation is final)" },
	{ "property p state a within 99999999999s else -> a\n",
	  "t.vigil:1:27: error: duration too large, expected at most 64 bits of nanoseconds" },
};

static void test_errors(void **state)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vg_spec *s = vg_spec_new();
		struct vg_err e = { 0 };

		assert_int_equal(vg_spec_load_string(s, "t.vigil", bad[i].src, &e), -1);
		if (strncmp(e.msg, bad[i].what, strlen(bad[i].what))) {
			print_error("case %zu:\n got: %s\nwant: %s\n", i, e.msg,
				    bad[i].what);
			fail();
		}
		vg_spec_free(s);
	}
}

/* The timer fires with no event at all, at the deadline, with the
 * entering event's time, the limit and its stack in the event. */
static void test_fires_without_events(void **state)
{
	struct vg_spec *s = load(held_spec);
	struct seen w = { 0 };
	struct vg_monitor *m = mon(s, &w);
	const struct vg_property *p = &s->props[0];

	feed(m, s, "acquire", 1, 1000 * MS);
	assert_int_equal(w.n, 1);
	assert_int_equal(vg_monitor_next_deadline(m), 1100 * MS);
	assert_int_equal(expire(m, 1099 * MS), 0);
	assert_int_equal(w.n, 1);
	assert_int_equal(expire(m, 1100 * MS + 5), 1);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.event[1], p->timeout_event);
	assert_int_equal(w.from[1], vg_property_find_state(p, "held"));
	assert_int_equal(w.to[1], vg_property_find_state(p, "late"));
	assert_int_equal(w.time[1], 1100 * MS);
	assert_int_equal(w.slot[1][VG_TSLOT_ENTERED], 1000 * MS);
	assert_int_equal(w.slot[1][VG_TSLOT_LIMIT], 100 * MS);
	assert_int_equal(w.slot[1][VG_TSLOT_FIRED], 1100 * MS + 5);
	assert_int_equal(w.param[1], 1);
	/* the update ran at the deadline: n = c = 100ms since the reset */
	assert_int_equal(w.n_var[1], 100 * MS);
	/* a violation is final: a tombstone, nothing more fires */
	assert_int_equal(expire(m, 5000 * MS), 0);
	vg_monitor_free(m);
	vg_spec_free(s);
}

static void test_leave_cancels_enter_restarts(void **state)
{
	struct vg_spec *s = load(held_spec);
	struct seen w = { 0 };
	struct vg_monitor *m = mon(s, &w);

	/* leaving cancels */
	feed(m, s, "acquire", 1, 0);
	feed(m, s, "release", 1, 99 * MS);
	assert_int_equal(expire(m, 1000 * MS), 0);
	assert_int_equal(w.n, 2);
	/* entering again (a self-loop) restarts */
	feed(m, s, "acquire", 2, 1000 * MS);
	feed(m, s, "poke", 2, 1090 * MS);
	assert_int_equal(expire(m, 1150 * MS), 0);
	assert_int_equal(expire(m, 1190 * MS), 1);
	assert_int_equal(w.time[w.n - 1], 1190 * MS);
	/* an event after the deadline finds the timeout taken first; one at
	 * the deadline itself too */
	feed(m, s, "acquire", 3, 2000 * MS);
	feed(m, s, "release", 3, 2100 * MS);
	assert_int_equal(w.to[w.n - 1],
			 vg_property_find_state(&s->props[0], "late"));
	/* slices apart: only the late one fires */
	feed(m, s, "acquire", 4, 3000 * MS);
	feed(m, s, "acquire", 5, 3050 * MS);
	feed(m, s, "release", 4, 3060 * MS);
	assert_int_equal(expire(m, 4000 * MS), 1);
	assert_int_equal(w.param[w.n - 1], 5);
	vg_monitor_free(m);
	vg_spec_free(s);
}

/* A clock bound as the invariant: `within c < 50ms` counts from the
 * reset, not from the entry, and guards read the clock. */
static void test_clock_invariant_and_guard(void **state)
{
	struct vg_spec *s = load(
		"property req slice on r\n"
		"event start(r) event step(r) event done(r)\n"
		"clock c\n"
		"state idle { start(r) { reset c; } -> busy }\n"
		"state busy within c <= 50ms else -> slow {\n"
		"  step(r) -> waiting\n"
		"  done(r) when c > 40ms -> late_done\n"
		"  done(r) -> idle\n"
		"}\n"
		"state waiting within c < 50ms else -> slow { done(r) -> idle }\n"
		"state slow violation\n"
		"state late_done violation\n");
	struct seen w = { 0 };
	struct vg_monitor *m = mon(s, &w);

	feed(m, s, "start", 1, 0);
	feed(m, s, "step", 1, 30 * MS);
	/* waiting's deadline is the reset plus 50ms, not the entry */
	assert_int_equal(vg_monitor_next_deadline(m), 50 * MS);
	assert_int_equal(expire(m, 50 * MS), 1);
	assert_int_equal(w.to[w.n - 1], vg_property_find_state(&s->props[0], "slow"));
	/* the guard on the clock */
	feed(m, s, "start", 2, 100 * MS);
	feed(m, s, "done", 2, 145 * MS);
	assert_int_equal(w.to[w.n - 1],
			 vg_property_find_state(&s->props[0], "late_done"));
	feed(m, s, "start", 3, 200 * MS);
	feed(m, s, "done", 3, 230 * MS);
	assert_int_equal(w.to[w.n - 1], 0);
	vg_monitor_free(m);
	vg_spec_free(s);
}

/* A join copies a slice in a timed state: the copy times out too. */
static void test_join_copies_timer(void **state)
{
	struct vg_spec *s = load(
		"property p slice on a, b\n"
		"event ea(a) event eb(b)\n"
		"state s0 { ea(a) -> s1 }\n"
		"state s1 within 10ms else -> bad { eb(b) -> s1 }\n"
		"state bad violation\n");
	struct seen w = { 0 };
	struct vg_monitor *m = mon(s, &w);

	feed(m, s, "ea", 1, 0);
	feed(m, s, "eb", 9, 5 * MS);	/* {a1,b9} from {a1}, re-entered */
	assert_int_equal(expire(m, 100 * MS), 2);
	vg_monitor_free(m);
	vg_spec_free(s);
}

/* Locks released in time leave stale entries: the heap is compacted, so
 * it follows the slices that wait, and a real one still fires. */
static void test_stale_entries_compacted(void **state)
{
	struct vg_spec *s = load(held_spec);
	struct seen w = { 0 };
	struct vg_monitor *m = mon(s, &w);
	struct vg_monitor_stats st;

	feed(m, s, "acquire", 999999, 0);	/* held all along */
	for (uint64_t i = 0; i < 100000; i++) {
		feed(m, s, "acquire", i % 7, i * 100);
		feed(m, s, "release", i % 7, i * 100 + 50);
	}
	vg_monitor_stats(m, &st);
	assert_true(st.timers < 10000);
	w.n = 0;
	assert_int_equal(expire(m, 100 * MS), 1);
	assert_int_equal(w.param[0], 999999);
	vg_monitor_free(m);
	vg_spec_free(s);
}

static void test_csv_timestamps(void **state)
{
	struct vg_spec *s = load(held_spec);
	struct vg_mon_event ev;
	struct vg_err e = { 0 };
	const char *l1 = "@1500ms,acquire,3";
	const char *l2 = "@12,release,3";
	const char *l3 = "@1.5s,release,3";

	assert_int_equal(vg_csv_parse_line(s, l1, strlen(l1), 1, &ev, &e), 1);
	assert_int_equal(ev.time_ns, 1500 * MS);
	assert_int_equal(ev.slot[0], 3);
	assert_int_equal(vg_csv_parse_line(s, l2, strlen(l2), 2, &ev, &e), 1);
	assert_int_equal(ev.time_ns, 12);
	assert_int_equal(vg_csv_parse_line(s, l3, strlen(l3), 3, &ev, &e), -1);
	assert_non_null(strstr(e.msg, "3: bad timestamp '@1.5s'"));
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_shape),
		cmocka_unit_test(test_units_and_defines),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fires_without_events),
		cmocka_unit_test(test_leave_cancels_enter_restarts),
		cmocka_unit_test(test_clock_invariant_and_guard),
		cmocka_unit_test(test_join_copies_timer),
		cmocka_unit_test(test_stale_entries_compacted),
		cmocka_unit_test(test_csv_timestamps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
