/* What the tests of the parametric monitor share (test_monitor.c,
 * test_monitor_rules.c): hooks that record every transition, lookups of
 * slices, and two properties built by hand (monitor_builder.h): the
 * unsafe iterator and a counting property whose variable is each slice's
 * trace length. */
#ifndef VIGIL_TESTS_MONITOR_PROPS_H
#define VIGIL_TESTS_MONITOR_PROPS_H

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

static inline int nvars_of(int prop)
{
	int n = cur_spec->props[prop].nvars;

	return n < 4 ? n : 4;
}

static inline void on_transition(void *ctx, const struct vg_slice_view *s, int from,
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

static inline struct vg_monitor *new_mon(struct mb *b, uint64_t max_slices)
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

static inline void feed(struct vg_monitor *m, struct vg_mon_event ev)
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

static inline void find_cb(void *ctx, const struct vg_slice_view *s)
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
static inline struct found slice(struct vg_monitor *m, int prop, uint32_t mask,
			  uint64_t p0, uint64_t p1)
{
	struct want w = { .prop = prop, .mask = mask, .p = { p0, p1 } };

	vg_monitor_foreach(m, find_cb, &w);
	assert_true(w.f.n <= 1);	/* a binding is never stored twice */
	if (!w.f.n)
		w.f.state = -1;
	return w.f;
}

static inline int count_slices(struct vg_monitor *m)
{
	struct want w = { .prop = -1 };

	vg_monitor_foreach(m, find_cb, &w);
	return w.total;
}

static inline struct vg_monitor_stats stats(struct vg_monitor *m)
{
	struct vg_monitor_stats st;

	vg_monitor_stats(m, &st);
	return st;
}

/* ---- the unsafe iterator (DESIGN.md), two parameters ----------------- */

enum { IT_INIT, IT_LIVE, IT_STALE, IT_BAD };
static int ev_create, ev_update, ev_next;

static inline void build_iter(struct mb *b)
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
	mb_creates(b, ev_create);	/* JavaMOP's `creation event` */
	mb_trans(b, IT_INIT, ev_create, IT_LIVE);
	mb_trans(b, IT_LIVE, ev_update, IT_STALE);
	mb_trans(b, IT_LIVE, ev_next, IT_LIVE);
	mb_trans(b, IT_STALE, ev_update, IT_STALE);
	mb_trans(b, IT_STALE, ev_next, IT_BAD);
}

static inline bool called(int from, int to, uint64_t c, uint64_t i)
{
	for (int k = 0; k < ncalls; k++)
		if (calls[k].from == from && calls[k].to == to &&
		    calls[k].p[0] == c && calls[k].p[1] == i)
			return true;
	return false;
}

/* ---- joins: a counting property shows each slice's trace ------------- */

/* Two parameters a, b; events ea(a), eb(b), eab(a, b), tick(). Every event
 * moves s0 -> s1 and s1 -> s1 and adds 1 to n, so a slice's n is the
 * length of its trace: the events whose binding is below its own. */
static int ev_a, ev_b, ev_ab, ev_tick;

static inline void build_count(struct mb *b)
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

static inline int64_t count_of(struct vg_monitor *m, uint32_t mask, uint64_t a,
			uint64_t bv)
{
	struct found f = slice(m, 0, mask, a, bv);

	return f.n ? f.v[0] : -1;
}

#endif
