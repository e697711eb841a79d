/* The parametric monitor against hand-computed verdicts: creation, joins,
 * events binding nothing, freeing, tombstones, first-match order, guards,
 * globals, max_slices, mirroring, foreach and stats. Specs are built by
 * hand (monitor_builder.h), not parsed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "monitor_builder.h"

/* ---- recording hooks and looking slices up --------------------------- */

struct call {
	int prop;
	uint32_t mask;
	uint64_t p[VG_MAX_PARAMS];
	int from, to;
	bool has_vars, inconc;
	int64_t v[4];
	uint64_t seq;
};

static struct call calls[512];
static int ncalls;
static const struct vg_spec *cur_spec;	/* of the monitor under test */

static int nvars_of(int prop)
{
	int n = cur_spec->props[prop].nvars;

	return n < 4 ? n : 4;
}

static void on_transition(void *ctx, const struct vg_slice_view *s, int from,
			  int to, const struct vg_mon_event *ev)
{
	struct call *c = &calls[ncalls < 511 ? ncalls : 511];

	ncalls++;			/* counted past the array's end too */
	memset(c, 0, sizeof(*c));
	c->prop = s->prop;
	c->mask = s->mask;
	for (int i = 0; i < VG_MAX_PARAMS; i++)
		c->p[i] = (s->mask & (1u << i)) ? s->params[i] : 0;
	c->from = from;
	c->to = to;
	assert_int_equal(to, s->state);
	c->has_vars = s->vars != NULL;
	for (int i = 0; s->vars && i < nvars_of(s->prop); i++)
		c->v[i] = s->vars[i];
	c->inconc = s->inconclusive;
	c->seq = ev->seq;
}

static const struct vg_monitor_hooks hooks = { .transition = on_transition };

static struct vg_monitor *new_mon(struct mb *b, uint64_t max_slices)
{
	struct vg_monitor_opts o = { .max_slices = max_slices };
	struct vg_err e;
	struct vg_monitor *m = vg_monitor_new(&b->spec, &o, &hooks, &e);

	if (!m)
		fail_msg("vg_monitor_new: %s", e.msg);
	cur_spec = &b->spec;
	ncalls = 0;
	return m;
}

static uint64_t seq;

static void feed(struct vg_monitor *m, struct vg_mon_event ev)
{
	struct vg_err e;

	ev.seq = ++seq;
	if (vg_monitor_event(m, &ev, &e))
		fail_msg("vg_monitor_event: %s", e.msg);
}

struct found {
	int n;			/* matches */
	int state;
	bool tomb, inconc;
	int64_t v[4];
};

struct want {
	int prop;
	uint32_t mask;
	uint64_t p[VG_MAX_PARAMS];
	struct found f;
	int total;		/* all slices visited */
};

static void find_cb(void *ctx, const struct vg_slice_view *s)
{
	struct want *w = ctx;

	w->total++;
	if (s->prop != w->prop || s->mask != w->mask)
		return;
	for (int i = 0; i < VG_MAX_PARAMS; i++)
		if ((s->mask & (1u << i)) && s->params[i] != w->p[i])
			return;
	w->f.n++;
	w->f.state = s->state;
	w->f.tomb = s->vars == NULL;
	w->f.inconc = s->inconclusive;
	for (int i = 0; s->vars && i < nvars_of(s->prop); i++)
		w->f.v[i] = s->vars[i];
}

/* The slice (prop, mask, params); f.n == 0 when it does not exist. */
static struct found slice(struct vg_monitor *m, int prop, uint32_t mask,
			  uint64_t p0, uint64_t p1)
{
	struct want w = { .prop = prop, .mask = mask, .p = { p0, p1 } };

	vg_monitor_foreach(m, find_cb, &w);
	assert_true(w.f.n <= 1);	/* a binding is never stored twice */
	if (!w.f.n)
		w.f.state = -1;
	return w.f;
}

static int count_slices(struct vg_monitor *m)
{
	struct want w = { .prop = -1 };

	vg_monitor_foreach(m, find_cb, &w);
	return w.total;
}

static struct vg_monitor_stats stats(struct vg_monitor *m)
{
	struct vg_monitor_stats st;

	vg_monitor_stats(m, &st);
	return st;
}

/* ---- the unsafe iterator (DESIGN.md), two parameters ----------------- */

enum { IT_INIT, IT_LIVE, IT_STALE, IT_BAD };
static int ev_create, ev_update, ev_next;

static void build_iter(struct mb *b)
{
	mb_init(b);
	ev_create = mb_event(b, "create", 2);
	ev_update = mb_event(b, "update", 1);
	ev_next = mb_event(b, "next", 1);
	mb_prop(b, "unsafe_iter", 2, "c", "i");
	mb_state(b, "init", VG_STATE_ACCEPTING);
	mb_state(b, "live", VG_STATE_ACCEPTING);
	mb_state(b, "stale", VG_STATE_ACCEPTING);
	mb_state(b, "bad", VG_STATE_VIOLATION);
	mb_bind(b, ev_create, 0, 1);
	mb_bind(b, ev_update, 0, VG_UNBOUND);
	mb_bind(b, ev_next, VG_UNBOUND, 0);
	mb_trans(b, IT_INIT, ev_create, IT_LIVE);
	mb_trans(b, IT_LIVE, ev_update, IT_STALE);
	mb_trans(b, IT_LIVE, ev_next, IT_LIVE);
	mb_trans(b, IT_STALE, ev_update, IT_STALE);
	mb_trans(b, IT_STALE, ev_next, IT_BAD);
}

static bool called(int from, int to, uint64_t c, uint64_t i)
{
	for (int k = 0; k < ncalls; k++)
		if (calls[k].from == from && calls[k].to == to &&
		    calls[k].p[0] == c && calls[k].p[1] == i)
			return true;
	return false;
}

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
	feed(m, MB_EV(ev_create, 1, 11));	/* not re-created */
	assert_int_equal(ncalls, 0);
	assert_int_equal(slice(m, 0, 3, 1, 11).state, IT_BAD);

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
	assert_int_equal(st.transitions, 10);
	assert_int_equal(st.slices_created, 3);
	assert_int_equal(st.slices_freed, 0);
	assert_int_equal(st.slices_live, 3);
	assert_int_equal(st.tombstones, 2);
	assert_int_equal(st.slices_refused, 0);
	assert_true(st.bytes > 0);
	assert_false(vg_monitor_prop_inconclusive(m, 0));
	vg_monitor_free(m);
	mb_free(&b);
}

/* ---- joins: a counting property shows each slice's trace ------------- */

/* Two parameters a, b; events ea(a), eb(b), eab(a, b), tick(). Every event
 * moves s0 -> s1 and s1 -> s1 and adds 1 to n, so a slice's n is the
 * length of its trace: the events whose binding is below its own. */
static int ev_a, ev_b, ev_ab, ev_tick;

static void build_count(struct mb *b)
{
	const struct vg_insn inc[] = { I_LDV(0), I_PUSH(1), I_OP(VG_OP_ADD),
				       I_STV(0), I_END };
	int evs[4];

	mb_init(b);
	evs[0] = ev_a = mb_event(b, "ea", 1);
	evs[1] = ev_b = mb_event(b, "eb", 1);
	evs[2] = ev_ab = mb_event(b, "eab", 2);
	evs[3] = ev_tick = mb_event(b, "tick", 0);
	mb_prop(b, "count", 2, "a", "b");
	mb_var(b, "n", 0);
	mb_state(b, "s0", VG_STATE_ACCEPTING);
	mb_state(b, "s1", VG_STATE_ACCEPTING);
	mb_bind(b, ev_a, 0, VG_UNBOUND);
	mb_bind(b, ev_b, VG_UNBOUND, 0);
	mb_bind(b, ev_ab, 0, 1);
	mb_bind(b, ev_tick, VG_UNBOUND, VG_UNBOUND);
	for (int i = 0; i < 4; i++) {
		mb_trans_u(b, 0, evs[i], 1, inc);
		mb_trans_u(b, 1, evs[i], 1, inc);
	}
}

static int64_t count_of(struct vg_monitor *m, uint32_t mask, uint64_t a,
			uint64_t bv)
{
	struct found f = slice(m, 0, mask, a, bv);

	return f.n ? f.v[0] : -1;
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
	feed(m, MB_EV(ev_create, 5, 6));	/* absorbed */
	assert_int_equal(ncalls, 0);
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
		cmocka_unit_test(test_unsafe_iter),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_join_random),
		cmocka_unit_test(test_freeing),
		cmocka_unit_test(test_tombstones),
		cmocka_unit_test(test_tomb_absorbs_join),
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
