/* The parametric monitor against hand-computed verdicts: creation and
 * joins (the unsafe iterator, a counting property, random traces against
 * a brute-force model), freeing and tombstones. Specs are built by hand
 * (monitor_builder.h, monitor_props.h), not parsed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "monitor_props.h"

static void test_unsafe_iter(void **state)
{
	struct mb b;
	struct vg_monitor *m;
	struct vg_monitor_stats st;

	build_iter(&b);
	m = new_mon(&b, 0);

	feed(m, MB_EV(ev_create, 1, 10));	/* {c1,i10}: init -> live */
	feed(m, MB_EV(ev_create, 1, 11));	/* {c1,i11}: init -> live */
	assert_int_equal(ncalls, 2);
	assert_true(called(IT_INIT, IT_LIVE, 1, 10));
	assert_true(called(IT_INIT, IT_LIVE, 1, 11));
	assert_int_equal(calls[0].mask, 3);

	feed(m, MB_EV(ev_next, 10));		/* {c1,i10}: live -> live */
	assert_int_equal(ncalls, 3);
	assert_int_equal(calls[2].from, IT_LIVE);
	assert_int_equal(calls[2].to, IT_LIVE);
	assert_int_equal(calls[2].p[1], 10);

	feed(m, MB_EV(ev_create, 2, 20));	/* {c2,i20}: live */
	ncalls = 0;
	feed(m, MB_EV(ev_update, 1));		/* both c1 slices go stale */
	assert_int_equal(ncalls, 2);
	assert_true(called(IT_LIVE, IT_STALE, 1, 10));
	assert_true(called(IT_LIVE, IT_STALE, 1, 11));
	/* update(c) from init does nothing: no {c1} slice is kept */
	assert_int_equal(slice(m, 0, 1, 1, 0).n, 0);
	assert_int_equal(slice(m, 0, 3, 2, 20).state, IT_LIVE);

	ncalls = 0;
	feed(m, MB_EV(ev_next, 20));		/* {c2,i20}: live -> live */
	feed(m, MB_EV(ev_next, 11));		/* {c1,i11}: stale -> bad */
	assert_int_equal(ncalls, 2);
	assert_true(called(IT_STALE, IT_BAD, 1, 11));
	assert_true(calls[1].has_vars || b.spec.props[0].nvars == 0);
	assert_true(slice(m, 0, 3, 1, 11).tomb);

	ncalls = 0;
	feed(m, MB_EV(ev_next, 11));		/* absorbed by the tombstone */
	assert_int_equal(ncalls, 0);
	feed(m, MB_EV(ev_create, 1, 11));	/* the pair's next life */
	assert_int_equal(ncalls, 1);
	assert_true(called(IT_INIT, IT_LIVE, 1, 11));
	assert_int_equal(slice(m, 0, 3, 1, 11).state, IT_LIVE);
	assert_false(slice(m, 0, 3, 1, 11).tomb);

	ncalls = 0;
	feed(m, MB_EV(ev_update, 2));		/* {c2,i20}: live -> stale */
	feed(m, MB_EV(ev_next, 10));		/* {c1,i10}: stale -> bad */
	assert_int_equal(ncalls, 2);
	assert_true(called(IT_LIVE, IT_STALE, 2, 20));
	assert_true(called(IT_STALE, IT_BAD, 1, 10));

	assert_int_equal(slice(m, 0, 3, 1, 10).state, IT_BAD);
	assert_true(slice(m, 0, 3, 1, 10).tomb);
	assert_int_equal(slice(m, 0, 3, 2, 20).state, IT_STALE);
	assert_false(slice(m, 0, 3, 2, 20).tomb);
	assert_int_equal(count_slices(m), 3);

	st = stats(m);
	assert_int_equal(st.events, 11);
	assert_int_equal(st.transitions, 11);
	assert_int_equal(st.slices_created, 4);
	assert_int_equal(st.slices_freed, 1);	/* the tombstone {c1,i11} */
	assert_int_equal(st.slices_live, 3);
	assert_int_equal(st.tombstones, 1);
	assert_int_equal(st.slices_refused, 0);
	assert_true(st.bytes > 0);
	assert_false(vg_monitor_prop_inconclusive(m, 0));
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_join(void **state)
{
	struct mb b;
	struct vg_monitor *m;

	build_count(&b);
	m = new_mon(&b, 0);

	feed(m, MB_EV(ev_a, 1));	/* {a1} from scratch */
	assert_int_equal(count_of(m, 1, 1, 0), 1);
	assert_int_equal(count_slices(m), 1);

	/* eb(7) meets {a1}: {a1,b7} is made from {a1} (n=1) and takes the
	 * event; {b7} starts from scratch */
	feed(m, MB_EV(ev_b, 7));
	assert_int_equal(count_of(m, 3, 1, 7), 2);
	assert_int_equal(count_of(m, 2, 0, 7), 1);
	assert_int_equal(count_of(m, 1, 1, 0), 1);
	assert_int_equal(count_slices(m), 3);

	feed(m, MB_EV(ev_ab, 1, 7));	/* only {a1,b7} */
	assert_int_equal(count_of(m, 3, 1, 7), 3);
	assert_int_equal(count_of(m, 1, 1, 0), 1);
	assert_int_equal(count_of(m, 2, 0, 7), 1);

	/* {a2,b7} is made from {b7}, the most specific slice below it */
	feed(m, MB_EV(ev_ab, 2, 7));
	assert_int_equal(count_of(m, 3, 2, 7), 2);
	assert_int_equal(count_of(m, 1, 2, 0), -1);

	feed(m, MB_EV(ev_a, 2));	/* {a2,b7} and a new {a2} */
	assert_int_equal(count_of(m, 3, 2, 7), 3);
	assert_int_equal(count_of(m, 1, 2, 0), 1);
	assert_int_equal(count_slices(m), 5);

	/* tick binds nothing: every slice, and bottom starts */
	ncalls = 0;
	feed(m, MB_EV0(ev_tick));
	assert_int_equal(ncalls, 6);
	assert_int_equal(count_of(m, 0, 0, 0), 1);
	assert_int_equal(count_of(m, 1, 1, 0), 2);
	assert_int_equal(count_of(m, 1, 2, 0), 2);
	assert_int_equal(count_of(m, 2, 0, 7), 2);
	assert_int_equal(count_of(m, 3, 1, 7), 4);
	assert_int_equal(count_of(m, 3, 2, 7), 4);

	/* eb(8): {b8} from bottom, {a1,b8} from {a1}, {a2,b8} from {a2} */
	feed(m, MB_EV(ev_b, 8));
	assert_int_equal(count_of(m, 2, 0, 8), 2);
	assert_int_equal(count_of(m, 3, 1, 8), 3);
	assert_int_equal(count_of(m, 3, 2, 8), 3);
	assert_int_equal(count_of(m, 0, 0, 0), 1);
	assert_int_equal(count_slices(m), 9);
	assert_int_equal(stats(m).slices_created, 9);
	assert_int_equal(stats(m).slices_live, 9);
	vg_monitor_free(m);
	mb_free(&b);
}

/* The same property over random streams, against a brute-force count of
 * each slice's trace, and the closure the join semantics promises: two
 * compatible slices imply their join exists. */
struct ref_ev {
	uint32_t mask;
	uint64_t v[2];
};

struct check_ctx {
	struct ref_ev *evs;
	int n;
	int slices;
	struct {
		uint32_t mask;
		uint64_t v[2];
	} seen[512];
};

static void check_cb(void *ctx, const struct vg_slice_view *s)
{
	struct check_ctx *c = ctx;
	int64_t want = 0;

	for (int i = 0; i < c->n; i++) {
		bool below = (c->evs[i].mask & s->mask) == c->evs[i].mask;

		for (int j = 0; below && j < 2; j++)
			if ((c->evs[i].mask & (1u << j)) &&
			    c->evs[i].v[j] != s->params[j])
				below = false;
		want += below;
	}
	assert_int_equal(s->vars[0], want);
	assert_true(c->slices < 512);
	c->seen[c->slices].mask = s->mask;
	c->seen[c->slices].v[0] = (s->mask & 1) ? s->params[0] : 0;
	c->seen[c->slices].v[1] = (s->mask & 2) ? s->params[1] : 0;
	c->slices++;
}

static void test_join_random(void **state)
{
	struct ref_ev evs[200];
	struct mb b;

	build_count(&b);
	srand(12345);
	for (int round = 0; round < 30; round++) {
		struct vg_monitor *m = new_mon(&b, 0);
		struct check_ctx *c = calloc(1, sizeof(*c));
		int n = 5 + rand() % 40;

		for (int i = 0; i < n; i++) {
			uint64_t a = 1 + rand() % 3, bv = 10 + rand() % 3;
			int k = rand() % 10;

			if (k < 4) {
				evs[i] = (struct ref_ev){ 1, { a, 0 } };
				feed(m, MB_EV(ev_a, a));
			} else if (k < 7) {
				evs[i] = (struct ref_ev){ 2, { 0, bv } };
				feed(m, MB_EV(ev_b, bv));
			} else if (k < 9) {
				evs[i] = (struct ref_ev){ 3, { a, bv } };
				feed(m, MB_EV(ev_ab, a, bv));
			} else {
				evs[i] = (struct ref_ev){ 0, { 0, 0 } };
				feed(m, MB_EV0(ev_tick));
			}
		}
		c->evs = evs;
		c->n = n;
		vg_monitor_foreach(m, check_cb, c);
		/* closure under joins of compatible slices */
		for (int i = 0; i < c->slices; i++)
			for (int j = 0; j < c->slices; j++) {
				uint32_t mi = c->seen[i].mask, mj = c->seen[j].mask;
				uint64_t v[2];
				bool compat = true, found = false;

				for (int p = 0; p < 2; p++) {
					if ((mi & mj & (1u << p)) &&
					    c->seen[i].v[p] != c->seen[j].v[p])
						compat = false;
					v[p] = (mi & (1u << p)) ? c->seen[i].v[p]
								: c->seen[j].v[p];
				}
				if (!compat)
					continue;
				for (int k = 0; k < c->slices && !found; k++)
					found = c->seen[k].mask == (mi | mj) &&
						c->seen[k].v[0] == v[0] &&
						c->seen[k].v[1] == v[1];
				assert_true(found);
			}
		assert_int_equal(stats(m).slices_live, c->slices);
		free(c);
		vg_monitor_free(m);
	}
	mb_free(&b);
}

/* ---- freeing --------------------------------------------------------- */

static void test_freeing(void **state)
{
	/* open(x) -> opened { n = n + 1 }; close(x) -> init { n = n - 1 }
	 * reset(x) in init with n != 0 keeps the slice alive */
	const struct vg_insn inc[] = { I_LDV(0), I_PUSH(1), I_OP(VG_OP_ADD),
				       I_STV(0), I_END };
	const struct vg_insn dec[] = { I_LDV(0), I_PUSH(1), I_OP(VG_OP_SUB),
				       I_STV(0), I_END };
	const struct vg_insn set5[] = { I_PUSH(5), I_STV(0), I_END };
	const struct vg_insn set0[] = { I_PUSH(0), I_STV(0), I_END };
	struct mb b;
	struct vg_monitor *m;
	int eo, ec, es, ez;

	mb_init(&b);
	eo = mb_event(&b, "open", 1);
	ec = mb_event(&b, "close", 1);
	es = mb_event(&b, "set5", 1);
	ez = mb_event(&b, "zero", 1);
	mb_prop(&b, "files", 1, "x");
	mb_var(&b, "n", 0);
	mb_state(&b, "closed", VG_STATE_ACCEPTING);
	mb_state(&b, "opened", VG_STATE_NONACCEPTING);
	mb_bind(&b, eo, 0);
	mb_bind(&b, ec, 0);
	mb_bind(&b, es, 0);
	mb_bind(&b, ez, 0);
	mb_trans_u(&b, 0, eo, 1, inc);
	mb_trans_u(&b, 1, ec, 0, dec);
	mb_trans_u(&b, 0, es, 0, set5);
	mb_trans_u(&b, 0, ez, 0, set0);
	m = new_mon(&b, 0);

	feed(m, MB_EV(eo, 7));
	feed(m, MB_EV(eo, 8));
	assert_int_equal(stats(m).slices_live, 2);
	feed(m, MB_EV(ec, 7));		/* back to closed, n = 0: freed */
	assert_int_equal(slice(m, 0, 1, 7, 0).n, 0);
	assert_int_equal(stats(m).slices_freed, 1);
	assert_int_equal(stats(m).slices_live, 1);
	assert_int_equal(ncalls, 3);	/* the freeing transition was seen */
	assert_int_equal(calls[2].to, 0);

	feed(m, MB_EV(eo, 7));		/* a fresh slice */
	assert_int_equal(slice(m, 0, 1, 7, 0).state, 1);
	assert_int_equal(slice(m, 0, 1, 7, 0).v[0], 1);
	assert_int_equal(stats(m).slices_created, 3);

	/* initial state but n = 5: not the same as no slice, kept */
	feed(m, MB_EV(es, 9));
	assert_int_equal(slice(m, 0, 1, 9, 0).state, 0);
	assert_int_equal(slice(m, 0, 1, 9, 0).v[0], 5);
	feed(m, MB_EV(ez, 9));		/* n = 0 again: freed */
	assert_int_equal(slice(m, 0, 1, 9, 0).n, 0);
	/* a self-loop from scratch that changes nothing stores nothing, but
	 * the transition is still reported */
	ncalls = 0;
	feed(m, MB_EV(ez, 10));
	assert_int_equal(ncalls, 1);
	assert_int_equal(slice(m, 0, 1, 10, 0).n, 0);
	/* close on an unknown file: no transition from closed, nothing */
	feed(m, MB_EV(ec, 11));
	assert_int_equal(ncalls, 1);

	assert_int_equal(stats(m).slices_freed, 2);
	assert_int_equal(stats(m).slices_created, 4);
	assert_int_equal(stats(m).slices_live, 2);

	/* churn: memory stays where it was */
	uint64_t bytes = stats(m).bytes;
	for (uint64_t i = 0; i < 100000; i++) {
		feed(m, MB_EV(eo, 1000 + i % 64));
		feed(m, MB_EV(ec, 1000 + i % 64));
	}
	assert_int_equal(stats(m).slices_live, 2);
	assert_true(stats(m).bytes <= bytes + 4096 * 64);
	vg_monitor_free(m);
	mb_free(&b);
}

/* ---- tombstones ------------------------------------------------------ */

static void test_tombstones(void **state)
{
	struct mb b;
	struct vg_monitor *m;

	/* the count property with a violation on eab(a, 99) */
	build_count(&b);
	{
		struct vg_property *p = &b.spec.props[0];
		const struct vg_insn g[] = { I_FIELD(1), I_PUSH(99),
					     I_OP(VG_OP_EQ), I_END };
		int bad = mb_state(&b, "bad", VG_STATE_VIOLATION);

		/* must come before the counting transitions: shift them */
		memmove(&p->trans[2], &p->trans[0], p->ntrans * sizeof(*p->trans));
		p->ntrans += 2;
		p->trans[0] = (struct vg_transition){ .from = 0, .to = bad,
						      .event = ev_ab,
						      .guard = mb_code(&b, g, MB_N(g)) };
		p->trans[1] = p->trans[0];
		p->trans[1].from = 1;
	}
	m = new_mon(&b, 0);

	feed(m, MB_EV(ev_a, 1));		/* {a1}: n = 1 */
	feed(m, MB_EV(ev_ab, 1, 99));	/* {a1,b99} from {a1}: violation */
	assert_int_equal(ncalls, 2);
	assert_int_equal(calls[1].to, 2);
	assert_int_equal(calls[1].from, 1);
	assert_true(calls[1].has_vars);
	assert_int_equal(calls[1].v[0], 1);	/* the copy's variables */
	assert_true(slice(m, 0, 3, 1, 99).tomb);
	assert_int_equal(stats(m).tombstones, 1);

	/* later events with the tombstone's binding: absorbed */
	ncalls = 0;
	feed(m, MB_EV(ev_ab, 1, 99));
	feed(m, MB_EV(ev_b, 99));	/* {b99} from scratch; the join
					 * {a1,b99} already exists */
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].mask, 2);
	assert_int_equal(slice(m, 0, 3, 1, 99).state, 2);

	/* ev_a(1) reaches {a1}; the tombstone {a1,b99} above it is not
	 * touched */
	ncalls = 0;
	feed(m, MB_EV(ev_a, 1));
	assert_int_equal(ncalls, 1);
	assert_int_equal(count_of(m, 1, 1, 0), 2);

	/* {a5,b99} is made from {b99} and dies at once: a tombstone */
	feed(m, MB_EV(ev_ab, 5, 99));
	assert_true(slice(m, 0, 3, 5, 99).tomb);
	ncalls = 0;
	feed(m, MB_EV(ev_tick));
	int live = count_slices(m);
	/* tick reached the live ones only: {a1}, {b99}, bottom new */
	assert_int_equal(ncalls, 3);
	assert_int_equal(live, 5);
	assert_int_equal(stats(m).tombstones, 2);
	assert_int_equal(stats(m).slices_live, 5);
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_tomb_absorbs_join(void **state)
{
	struct mb b;
	struct vg_monitor *m;

	/* one parameter x; "kill(x)" is a violation; a second property-free
	 * check: 2 params, {a} dies, then eab(a, b) must not create {a,b} */
	build_count(&b);
	{
		struct vg_property *p = &b.spec.props[0];
		int bad = mb_state(&b, "bad", VG_STATE_VIOLATION);
		const struct vg_insn g[] = { I_FIELD(0), I_PUSH(66),
					     I_OP(VG_OP_EQ), I_END };

		memmove(&p->trans[1], &p->trans[0], p->ntrans * sizeof(*p->trans));
		p->ntrans++;
		p->trans[0] = (struct vg_transition){ .from = 0, .to = bad,
						      .event = ev_a,
						      .guard = mb_code(&b, g, MB_N(g)) };
	}
	m = new_mon(&b, 0);
	feed(m, MB_EV(ev_a, 66));		/* {a66}: violation */
	assert_true(slice(m, 0, 1, 66, 0).tomb);
	feed(m, MB_EV0(ev_tick));		/* bottom: n = 1 */
	assert_int_equal(count_of(m, 0, 0, 0), 1);
	ncalls = 0;
	/* bottom joins to {a66,b3}, but the most specific slice below that
	 * is the tombstone {a66}: absorbed, nothing created */
	feed(m, MB_EV(ev_ab, 66, 3));
	assert_int_equal(ncalls, 0);
	assert_int_equal(slice(m, 0, 3, 66, 3).n, 0);
	feed(m, MB_EV(ev_b, 4));		/* {b4} from bottom: n = 2 */
	assert_int_equal(ncalls, 1);
	assert_int_equal(count_of(m, 2, 0, 4), 2);
	assert_int_equal(slice(m, 0, 3, 66, 4).n, 0);
	assert_int_equal(count_slices(m), 3);
	vg_monitor_free(m);
	mb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unsafe_iter),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_join_random),
		cmocka_unit_test(test_freeing),
		cmocka_unit_test(test_tombstones),
		cmocka_unit_test(test_tomb_absorbs_join),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
