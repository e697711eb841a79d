/* The parametric monitor against hand-computed verdicts: first-match
 * order, guards, variables, parameters and globals, max_slices, mirroring
 * and marking, options, many slices, batches, and specs it must refuse.
 * Specs are built by hand (monitor_builder.h, monitor_props.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "monitor_props.h"

/* ---- first match, guards, variables, parameters, globals ------------- */

static void test_first_match(void **state)
{
	const struct vg_insn gx[] = { I_FIELD(1), I_PUSH(1), I_OP(VG_OP_EQ),
				      I_END };
	const struct vg_insn gy[] = { I_FIELD(1), I_PUSH(2), I_OP(VG_OP_GES),
				      I_END };
	struct mb b;
	struct vg_monitor *m;
	int e;

	mb_init(&b);
	e = mb_event(&b, "go", 2);
	mb_prop(&b, "order", 1, "x");
	mb_state(&b, "s", VG_STATE_ACCEPTING);
	mb_state(&b, "a", VG_STATE_ACCEPTING);
	mb_state(&b, "b", VG_STATE_ACCEPTING);
	mb_state(&b, "c", VG_STATE_ACCEPTING);
	mb_bind(&b, e, 0);
	mb_trans_g(&b, 0, e, 1, gx);	/* y == 1 -> a */
	mb_trans_g(&b, 0, e, 2, gy);	/* y >= 2 -> b */
	mb_trans(&b, 0, e, 3);		/* otherwise -> c */
	mb_trans_g(&b, 0, e, 1, gy);	/* never reached */
	m = new_mon(&b, 0);

	feed(m, MB_EV(e, 1, 1));
	feed(m, MB_EV(e, 2, 5));
	feed(m, MB_EV(e, 3, 0));
	assert_int_equal(slice(m, 0, 1, 1, 0).state, 1);
	assert_int_equal(slice(m, 0, 1, 2, 0).state, 2);
	assert_int_equal(slice(m, 0, 1, 3, 0).state, 3);
	/* states a, b, c have no transitions: nothing changes */
	ncalls = 0;
	feed(m, MB_EV(e, 1, 2));
	assert_int_equal(ncalls, 0);
	assert_int_equal(slice(m, 0, 1, 1, 0).state, 1);
	vg_monitor_free(m);
	mb_free(&b);
}

/* queue_bounds from DESIGN.md: after queue_new(size) returns q. */
static void test_queue_bounds(void **state)
{
	enum { Q_INIT, Q_READY, Q_OVER, Q_UNDER };
	enum { N, MAX };
	const struct vg_insn setmax[] = { I_FIELD(0), I_STV(MAX), I_END };
	const struct vg_insn lt[] = { I_LDV(N), I_LDV(MAX), I_OP(VG_OP_LTS),
				      I_END };
	const struct vg_insn inc[] = { I_LDV(N), I_PUSH(1), I_OP(VG_OP_ADD),
				       I_STV(N), I_END };
	const struct vg_insn gt0[] = { I_LDV(N), I_PUSH(0), I_OP(VG_OP_GTS),
				       I_END };
	const struct vg_insn dec[] = { I_LDV(N), I_PUSH(1), I_OP(VG_OP_SUB),
				       I_STV(N), I_END };
	struct mb b;
	struct vg_monitor *m;
	int enew, epush, epop;

	mb_init(&b);
	enew = mb_event(&b, "queue_new", 1);
	b.spec.events[enew].kind = VG_EV_AFTER;
	b.spec.events[enew].uses_ret = true;
	epush = mb_event(&b, "queue_push", 1);
	epop = mb_event(&b, "queue_pop", 1);
	mb_prop(&b, "queue_bounds", 1, "q");
	mb_var(&b, "n", 0);
	mb_var(&b, "max", 0);
	mb_state(&b, "init", VG_STATE_ACCEPTING);
	mb_state(&b, "ready", VG_STATE_ACCEPTING);
	mb_state(&b, "overflow", VG_STATE_VIOLATION);
	mb_state(&b, "underflow", VG_STATE_VIOLATION);
	mb_bind(&b, enew, VG_SLOT_RET);
	mb_bind(&b, epush, 0);
	mb_bind(&b, epop, 0);
	mb_creates(&b, enew);		/* `after queue_new() returns q` */
	mb_trans_u(&b, Q_INIT, enew, Q_READY, setmax);
	mb_trans_gu(&b, Q_READY, epush, Q_READY, lt, inc);
	mb_trans(&b, Q_READY, epush, Q_OVER);
	mb_trans_gu(&b, Q_READY, epop, Q_READY, gt0, dec);
	mb_trans(&b, Q_READY, epop, Q_UNDER);
	m = new_mon(&b, 0);

	struct vg_mon_event nq = MB_EV(enew, 2);
	nq.slot[VG_SLOT_RET] = 0x1000;
	feed(m, nq);				/* q1: max 2 */
	nq = MB_EV(enew, 1);
	nq.slot[VG_SLOT_RET] = 0x2000;
	feed(m, nq);				/* q2: max 1 */
	feed(m, MB_EV(epush, 0x3000));		/* unknown queue: nothing */
	assert_int_equal(ncalls, 2);
	assert_int_equal(slice(m, 0, 1, 0x3000, 0).n, 0);
	feed(m, MB_EV(epush, 0x1000));		/* n 1 */
	feed(m, MB_EV(epush, 0x1000));		/* n 2 */
	{
		struct found f = slice(m, 0, 1, 0x1000, 0);

		assert_int_equal(f.state, Q_READY);
		assert_int_equal(f.v[N], 2);
		assert_int_equal(f.v[MAX], 2);
	}
	feed(m, MB_EV(epop, 0x2000));		/* q2 empty: underflow */
	assert_int_equal(calls[ncalls - 1].to, Q_UNDER);
	assert_int_equal(calls[ncalls - 1].p[0], 0x2000);
	assert_int_equal(calls[ncalls - 1].v[MAX], 1);
	feed(m, MB_EV(epush, 0x1000));		/* q1 full: overflow */
	assert_int_equal(calls[ncalls - 1].to, Q_OVER);
	assert_int_equal(calls[ncalls - 1].from, Q_READY);
	assert_int_equal(calls[ncalls - 1].v[N], 2);
	int before = ncalls;
	feed(m, MB_EV(epop, 0x1000));		/* absorbed */
	feed(m, MB_EV(epop, 0x2000));
	assert_int_equal(ncalls, before);
	assert_int_equal(ncalls, 6);
	assert_int_equal(slice(m, 0, 1, 0x1000, 0).state, Q_OVER);
	assert_int_equal(slice(m, 0, 1, 0x2000, 0).state, Q_UNDER);
	assert_int_equal(stats(m).tombstones, 2);

	/* a third queue that is used correctly ends ready */
	nq = MB_EV(enew, 3);
	nq.slot[VG_SLOT_RET] = 0x4000;
	feed(m, nq);
	feed(m, MB_EV(epush, 0x4000));
	feed(m, MB_EV(epop, 0x4000));
	assert_int_equal(slice(m, 0, 1, 0x4000, 0).state, Q_READY);
	assert_int_equal(slice(m, 0, 1, 0x4000, 0).v[N], 0);
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_globals_and_params(void **state)
{
	/* every hit adds the slice's parameter to a global sum; the guard
	 * reads the parameter: only x >= 10 may go to "big" */
	const struct vg_insn add[] = { I_LDG(0), I_PARAM(0), I_OP(VG_OP_ADD),
				       I_STG(0), I_LDG(1), I_PUSH(1),
				       I_OP(VG_OP_ADD), I_STG(1), I_END };
	const struct vg_insn big[] = { I_PARAM(0), I_PUSH(10), I_OP(VG_OP_GEU),
				       I_END };
	struct mb b;
	struct vg_monitor *m;
	const int64_t *g;
	int e;

	mb_init(&b);
	e = mb_event(&b, "hit", 1);
	mb_prop(&b, "sum", 1, "x");
	mb_global(&b, "total", 100);
	mb_global(&b, "hits", 0);
	mb_state(&b, "s", VG_STATE_ACCEPTING);
	mb_state(&b, "small", VG_STATE_ACCEPTING);
	mb_state(&b, "big", VG_STATE_ACCEPTING);
	mb_bind(&b, e, 0);
	mb_trans_gu(&b, 0, e, 2, big, add);
	mb_trans_u(&b, 0, e, 1, add);
	mb_trans_u(&b, 1, e, 1, add);
	mb_trans_u(&b, 2, e, 2, add);
	m = new_mon(&b, 0);

	g = vg_monitor_globals(m, 0);
	assert_int_equal(g[0], 100);
	feed(m, MB_EV(e, 3));
	feed(m, MB_EV(e, 30));
	feed(m, MB_EV(e, 3));
	g = vg_monitor_globals(m, 0);
	assert_int_equal(g[0], 136);		/* one copy, shared */
	assert_int_equal(g[1], 3);
	assert_int_equal(slice(m, 0, 1, 3, 0).state, 1);
	assert_int_equal(slice(m, 0, 1, 30, 0).state, 2);
	assert_null(vg_monitor_globals(m, 5));
	vg_monitor_free(m);
	mb_free(&b);
}

/* ---- limits, mirroring, marking, options ----------------------------- */

static void test_max_slices(void **state)
{
	const struct vg_insn add[] = { I_LDG(0), I_PUSH(1), I_OP(VG_OP_ADD),
				       I_STG(0), I_END };
	struct mb b;
	struct vg_monitor *m;
	int e;

	mb_init(&b);
	e = mb_event(&b, "hit", 1);
	mb_prop(&b, "lim", 1, "x");
	mb_global(&b, "g", 0);
	mb_state(&b, "s", VG_STATE_ACCEPTING);
	mb_state(&b, "t", VG_STATE_ACCEPTING);
	mb_bind(&b, e, 0);
	mb_trans_u(&b, 0, e, 1, add);
	mb_trans_u(&b, 1, e, 1, add);
	m = new_mon(&b, 2);

	feed(m, MB_EV(e, 1));
	feed(m, MB_EV(e, 2));
	assert_false(vg_monitor_prop_inconclusive(m, 0));
	feed(m, MB_EV(e, 3));			/* refused */
	assert_int_equal(ncalls, 2);		/* no hook for it */
	assert_int_equal(stats(m).slices_refused, 1);
	assert_int_equal(stats(m).slices_live, 2);
	assert_int_equal(vg_monitor_globals(m, 0)[0], 2);	/* undone */
	assert_true(vg_monitor_prop_inconclusive(m, 0));
	assert_int_equal(slice(m, 0, 1, 3, 0).n, 0);
	/* existing slices go on; at the end everything is inconclusive */
	feed(m, MB_EV(e, 1));
	assert_int_equal(ncalls, 3);
	assert_false(calls[2].inconc);
	assert_true(slice(m, 0, 1, 1, 0).inconc);
	assert_int_equal(vg_monitor_globals(m, 0)[0], 3);
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_max_slices_join(void **state)
{
	struct mb b;
	struct vg_monitor *m;

	build_count(&b);
	m = new_mon(&b, 2);
	feed(m, MB_EV(ev_a, 1));
	feed(m, MB_EV(ev_a, 2));
	feed(m, MB_EV(ev_b, 7));	/* joins and {b7}: all refused */
	assert_int_equal(stats(m).slices_refused, 3);
	assert_int_equal(stats(m).slices_live, 2);
	assert_true(vg_monitor_prop_inconclusive(m, 0));
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_set(void **state)
{
	struct mb b;
	struct vg_monitor *m;
	struct vg_err e;
	uint64_t p[VG_MAX_PARAMS] = { 5, 6 };
	int64_t v1[1] = { 7 }, v0[1] = { 0 };

	build_count(&b);
	m = new_mon(&b, 0);

	assert_int_equal(vg_monitor_set(m, 0, 3, p, 1, v1, &e), 0);
	assert_int_equal(ncalls, 0);
	assert_int_equal(count_of(m, 3, 5, 6), 7);
	assert_int_equal(stats(m).slices_created, 1);
	/* the mirrored slice takes later events like any other */
	feed(m, MB_EV(ev_ab, 5, 6));
	assert_int_equal(count_of(m, 3, 5, 6), 8);
	v1[0] = 9;
	assert_int_equal(vg_monitor_set(m, 0, 3, p, 1, v1, &e), 0);
	assert_int_equal(count_of(m, 3, 5, 6), 9);
	/* back to initial: freed */
	assert_int_equal(vg_monitor_set(m, 0, 3, p, 0, v0, &e), 0);
	assert_int_equal(slice(m, 0, 3, 5, 6).n, 0);
	assert_int_equal(stats(m).slices_freed, 1);
	/* initial with NULL vars: nothing to store */
	assert_int_equal(vg_monitor_set(m, 0, 1, p, 0, NULL, &e), 0);
	assert_int_equal(count_slices(m), 0);
	/* bad arguments */
	assert_int_equal(vg_monitor_set(m, 0, 4, p, 1, v1, &e), -1);
	assert_int_equal(vg_monitor_set(m, 0, 3, p, 9, v1, &e), -1);
	assert_int_equal(vg_monitor_set(m, 3, 3, p, 1, v1, &e), -1);
	assert_int_equal(ncalls, 1);
	vg_monitor_free(m);
	mb_free(&b);

	/* violation: a tombstone; a live one turns into one */
	build_iter(&b);
	m = new_mon(&b, 0);
	assert_int_equal(vg_monitor_set(m, 0, 3, p, IT_BAD, NULL, &e), 0);
	assert_true(slice(m, 0, 3, 5, 6).tomb);
	feed(m, MB_EV(ev_next, 6));		/* absorbed */
	assert_int_equal(ncalls, 0);
	assert_true(slice(m, 0, 3, 5, 6).tomb);
	p[1] = 8;
	assert_int_equal(vg_monitor_set(m, 0, 3, p, IT_STALE, NULL, &e), 0);
	assert_false(slice(m, 0, 3, 5, 8).tomb);
	assert_int_equal(vg_monitor_set(m, 0, 3, p, IT_BAD, NULL, &e), 0);
	assert_true(slice(m, 0, 3, 5, 8).tomb);
	assert_int_equal(stats(m).tombstones, 2);
	assert_int_equal(stats(m).slices_live, 2);
	/* and back (a kernel table restarted a slice) */
	assert_int_equal(vg_monitor_set(m, 0, 3, p, IT_LIVE, NULL, &e), 0);
	assert_int_equal(slice(m, 0, 3, 5, 8).state, IT_LIVE);
	assert_false(slice(m, 0, 3, 5, 8).tomb);
	feed(m, MB_EV(ev_update, 5));
	assert_int_equal(slice(m, 0, 3, 5, 8).state, IT_STALE);
	assert_int_equal(stats(m).tombstones, 1);
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_mark_inconclusive(void **state)
{
	struct mb b;
	struct vg_monitor *m;

	build_iter(&b);
	m = new_mon(&b, 0);
	feed(m, MB_EV(ev_create, 1, 2));
	assert_false(slice(m, 0, 3, 1, 2).inconc);
	vg_monitor_mark_inconclusive(m, 0);
	vg_monitor_mark_inconclusive(m, 9);	/* ignored */
	assert_true(slice(m, 0, 3, 1, 2).inconc);
	assert_true(vg_monitor_prop_inconclusive(m, 0));
	/* the hook sees the flag on the marked slice and on new ones */
	feed(m, MB_EV(ev_next, 2));
	assert_true(calls[ncalls - 1].inconc);
	feed(m, MB_EV(ev_create, 3, 4));
	assert_true(calls[ncalls - 1].inconc);
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_no_params_and_options(void **state)
{
	struct mb b;
	struct vg_monitor *m;
	struct vg_monitor_opts o = { 0 };
	struct vg_err e;
	bool eval[2] = { false, true };
	int ego, eother;

	mb_init(&b);
	ego = mb_event(&b, "go", 0);
	eother = mb_event(&b, "other", 1);
	mb_prop(&b, "once", 0);
	mb_state(&b, "waiting", VG_STATE_NONACCEPTING);
	mb_state(&b, "done", VG_STATE_ACCEPTING);
	mb_bind(&b, ego);
	mb_trans(&b, 0, ego, 1);
	mb_prop(&b, "twice", 0);
	mb_state(&b, "waiting", VG_STATE_NONACCEPTING);
	mb_state(&b, "done", VG_STATE_ACCEPTING);
	mb_bind(&b, ego);
	mb_trans(&b, 0, ego, 1);

	m = new_mon(&b, 0);
	/* the one instance is visible before any event, in its initial
	 * state, though nothing is stored */
	assert_int_equal(slice(m, 0, 0, 0, 0).state, 0);
	assert_int_equal(count_slices(m), 2);
	assert_int_equal(stats(m).slices_live, 0);
	feed(m, MB_EV(eother, 5));		/* used by neither: ignored */
	assert_int_equal(ncalls, 0);
	feed(m, MB_EV0(ego));
	assert_int_equal(ncalls, 2);
	assert_int_equal(slice(m, 0, 0, 0, 0).state, 1);
	assert_int_equal(slice(m, 1, 0, 0, 0).state, 1);
	assert_int_equal(count_slices(m), 2);
	feed(m, MB_EV0(ego));			/* done has no transition */
	assert_int_equal(ncalls, 2);
	assert_int_equal(stats(m).events, 3);
	/* an event index out of range is an error */
	struct vg_mon_event bad = MB_EV0(7);
	assert_int_equal(vg_monitor_event(m, &bad, &e), -1);
	vg_monitor_free(m);

	/* evaluate[] leaves property 0 to someone else */
	o.evaluate = eval;
	m = vg_monitor_new(&b.spec, &o, &hooks, &e);
	assert_non_null(m);
	cur_spec = &b.spec;
	ncalls = 0;
	feed(m, MB_EV0(ego));
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].prop, 1);
	assert_int_equal(slice(m, 0, 0, 0, 0).state, 0);
	vg_monitor_free(m);

	/* no hooks at all is fine */
	m = vg_monitor_new(&b.spec, NULL, NULL, &e);
	assert_non_null(m);
	feed(m, MB_EV0(ego));
	assert_int_equal(stats(m).transitions, 2);
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_many_slices(void **state)
{
	/* enough slices to grow every table and pool several times, then
	 * free them all: nothing left, counts exact */
	struct mb b;
	struct vg_monitor *m;
	const uint64_t n = 20000;

	build_iter(&b);
	m = new_mon(&b, 0);
	for (uint64_t i = 0; i < n; i++)
		feed(m, MB_EV(ev_create, i % 100, i));
	assert_int_equal(stats(m).slices_live, n);
	feed(m, MB_EV(ev_update, 42));		/* 200 iterators of c42 */
	assert_int_equal(ncalls, n + n / 100);
	for (uint64_t i = 0; i < n; i++)
		feed(m, MB_EV(ev_next, i));
	assert_int_equal(stats(m).tombstones, n / 100);
	assert_int_equal(slice(m, 0, 3, 42, 4242).state, IT_BAD);
	assert_int_equal(slice(m, 0, 3, 41, 4241).state, IT_LIVE);
	assert_int_equal(slice(m, 0, 3, 42, 4243).n, 0);
	assert_int_equal(slice(m, 0, 3, 43, 4243).state, IT_LIVE);
	/* mirror every live one back to initial: all freed */
	for (uint64_t i = 0; i < n; i++) {
		uint64_t p[VG_MAX_PARAMS] = { i % 100, i };
		struct vg_err e;

		if (i % 100 != 42)
			assert_int_equal(vg_monitor_set(m, 0, 3, p, 0, NULL, &e), 0);
	}
	assert_int_equal(stats(m).slices_live, n / 100);
	assert_int_equal(count_slices(m), n / 100);
	vg_monitor_free(m);
	mb_free(&b);
}

/* vg_monitor_events (prefetching batches) gives what single events give */
static void test_batch(void **state)
{
	struct vg_mon_event evs[3000];
	struct vg_monitor_stats s1, s2;
	struct vg_monitor *m1, *m2;
	struct vg_err e;
	struct mb b;
	int n = 0;

	build_iter(&b);
	for (uint64_t i = 0; i < 1000; i++) {
		evs[n++] = MB_EV(ev_create, i % 37, i);
		evs[n++] = MB_EV(ev_update, (i * 7) % 37);
		evs[n++] = MB_EV(ev_next, (i * 13) % 1000);
	}
	m1 = new_mon(&b, 0);
	for (int i = 0; i < n; i++)
		feed(m1, evs[i]);
	m2 = new_mon(&b, 0);
	assert_int_equal(vg_monitor_events(m2, evs, n, &e), 0);
	vg_monitor_stats(m1, &s1);
	vg_monitor_stats(m2, &s2);
	assert_int_equal(s1.transitions, s2.transitions);
	assert_int_equal(s1.tombstones, s2.tombstones);
	assert_int_equal(s1.slices_live, s2.slices_live);
	assert_true(s1.tombstones > 0);
	for (uint64_t i = 0; i < 1000; i += 7)
		assert_int_equal(slice(m1, 0, 3, i % 37, i).state,
				 slice(m2, 0, 3, i % 37, i).state);
	evs[5].event = 99;
	assert_int_equal(vg_monitor_events(m2, evs, n, &e), -1);
	vg_monitor_free(m1);
	vg_monitor_free(m2);
	mb_free(&b);
}

static void test_bad_spec(void **state)
{
	struct mb b;
	struct vg_err e;

	build_iter(&b);
	b.spec.props[0].trans[0].to = 17;
	assert_null(vg_monitor_new(&b.spec, NULL, NULL, &e));
	b.spec.props[0].trans[0].to = IT_LIVE;
	b.spec.props[0].bindings[0].slot[0] = 40;
	assert_null(vg_monitor_new(&b.spec, NULL, NULL, &e));
	mb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_match),
		cmocka_unit_test(test_queue_bounds),
		cmocka_unit_test(test_globals_and_params),
		cmocka_unit_test(test_max_slices),
		cmocka_unit_test(test_max_slices_join),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_mark_inconclusive),
		cmocka_unit_test(test_no_params_and_options),
		cmocka_unit_test(test_many_slices),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_bad_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
