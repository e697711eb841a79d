/* Event dispatch and transitions: parametric trace slicing (Chen & Rosu)
 * over the slice store of slices.c. docs/LANGUAGE.md ("Slicing") states
 * the semantics; this file is its implementation.
 *
 * One event e with binding beta (mask B) is handled per property in four
 * steps, chosen so that every decision about new slices is taken on the
 * state *before* the event and every slice sees the event exactly once:
 *
 *  A. joins: for every live slice theta whose mask N lacks some parameter
 *     of B and that agrees with beta on N & B, theta' = theta |_| beta. If
 *     theta' does not exist it is created as a copy of the most specific
 *     existing slice below it (theta or a larger one). A tombstone there
 *     absorbs the event: nothing is created.
 *  C. updates: every live slice above beta (B subset of its mask, equal
 *     values) -- the copies made in A included -- takes the event.
 *  D. from scratch: if nothing at or below beta exists, beta's slice starts
 *     from the initial state and variables (the implicit bottom slice). It
 *     is stored only if the event leaves it somewhere else.
 *  F. finalisation: slices that went back to initial are freed, slices that
 *     reached a violation shrink to tombstones. Deferred to here so that no
 *     list is changed while C walks it.
 *
 * Cost per event and property, with 2^k masks (k <= 4): A does one lookup
 * per mask that has live slices and lacks part of B, plus one copy per
 * slice created; C one lookup per mask above B plus O(1) per slice it
 * reaches; D at most 2^k lookups, skipped when the initial state has no
 * transition on e. With one parameter this is a single hash lookup. The
 * only scans are for an event that binds nothing (it reaches every slice,
 * by definition) and joins on disjoint parameters (A with N & B empty:
 * every slice of mask N combines with beta, as the semantics demand). */
#include "monitor_internal.h"

#include <stdlib.h>
#include <string.h>

/* masks have at most VG_MAX_PARAMS bits: a table beats a libgcc call */
static inline int popc(uint32_t x)
{
	static const uint8_t pc[16] = { 0, 1, 1, 2, 1, 2, 2, 3,
					1, 2, 2, 3, 2, 3, 3, 4 };

	return pc[x & 15];
}

/* ---- setup ----------------------------------------------------------- */

static int add_binding(struct prop_rt *pr, int ev, uint32_t mask,
		       const uint8_t *slot)
{
	struct bind_rt *b = &pr->b[pr->nb];

	b->mask = mask;
	for (int i = 0; i < VG_MAX_PARAMS; i++)
		b->slot[i] = slot ? slot[i] : VG_UNBOUND;
	pr->ev2b[ev] = (int16_t)pr->nb;
	return pr->nb++;
}

static int prop_init(struct vg_monitor *m, struct prop_rt *pr,
		     const struct vg_property *p, bool evaluate,
		     struct vg_err *e)
{
	int nev = m->spec->nevents, ns = p->nstates;
	uint32_t needed[1 << VG_MAX_PARAMS] = { 0 };
	uint32_t *cnt;

	pr->p = p;
	pr->k = p->nparams;
	pr->nvars = (uint32_t)p->nvars;
	pr->nglobals = (uint32_t)p->nglobals;
	pr->evaluate = evaluate;
	if (p->nparams < 0 || p->nparams > VG_MAX_PARAMS || ns < 1 ||
	    ns > UINT16_MAX || p->nvars < 0 || p->nglobals < 0)
		return vg_errf(e, "monitor: property %s: bad shape", p->name);
	pr->nmasks = 1u << pr->k;
	pr->globals = calloc(pr->nglobals + 1, sizeof(int64_t));
	pr->saved_globals = calloc(pr->nglobals + 1, sizeof(int64_t));
	pr->init_vars = calloc(pr->nvars + 1, sizeof(int64_t));
	pr->tmp_vars = calloc(pr->nvars + 1, sizeof(int64_t));
	pr->b = calloc((size_t)nev + 1, sizeof(*pr->b));
	pr->ev2b = malloc(((size_t)nev + 1) * sizeof(int16_t));
	pr->viol = calloc(ns, 1);
	pr->tr_off = calloc((size_t)ns * (nev + 1) + 1, sizeof(uint32_t));
	pr->tr_list = calloc(p->ntrans + 1, sizeof(int));
	pr->trc = calloc(p->ntrans + 1, sizeof(*pr->trc));
	if (!pr->globals || !pr->saved_globals || !pr->init_vars ||
	    !pr->tmp_vars || !pr->b || !pr->ev2b || !pr->viol ||
	    !pr->tr_off || !pr->tr_list || !pr->trc)
		return vg_errf(e, "out of memory");
	for (uint32_t i = 0; i < pr->nglobals; i++)
		pr->globals[i] = p->globals[i].init;
	for (uint32_t i = 0; i < pr->nvars; i++)
		pr->init_vars[i] = p->vars[i].init;
	for (int s = 0; s < ns; s++)
		pr->viol[s] = p->states[s].kind == VG_STATE_VIOLATION;
	for (int i = 0; i < nev; i++)
		pr->ev2b[i] = -1;

	/* beta's mask comes from the slots, not from b->mask: a parameter is
	 * bound exactly when the event has a slot for it */
	for (int i = 0; i < p->nbindings; i++) {
		const struct vg_binding *vb = &p->bindings[i];
		uint32_t mask = 0;

		if (vb->event < 0 || vb->event >= nev)
			return vg_errf(e, "monitor: property %s: binding of unknown event %d",
				       p->name, vb->event);
		if (pr->ev2b[vb->event] >= 0)
			continue;	/* the first wins, as vg_property_binding */
		for (int j = 0; j < pr->k; j++) {
			if (vb->slot[j] == VG_UNBOUND)
				continue;
			if (vb->slot[j] >= VG_NSLOTS)
				return vg_errf(e, "monitor: property %s: bad binding slot",
					       p->name);
			mask |= 1u << j;
		}
		pr->b[add_binding(pr, vb->event, mask, vb->slot)].creates =
			vb->creates;
	}
	for (int i = 0; i < p->ntrans; i++) {
		const struct vg_transition *t = &p->trans[i];

		if (t->from < 0 || t->from >= ns || t->to < 0 || t->to >= ns ||
		    t->event < 0 || t->event >= nev ||
		    (uint64_t)t->guard.off + t->guard.len > (uint64_t)p->ncode ||
		    (uint64_t)t->update.off + t->update.len > (uint64_t)p->ncode)
			return vg_errf(e, "monitor: property %s: bad transition %d",
				       p->name, i);
		if (pr->ev2b[t->event] < 0)	/* binds nothing */
			add_binding(pr, t->event, 0, NULL);
	}

	/* transitions grouped by (from, binding), source order kept */
	cnt = pr->tr_off + 1;
	for (int i = 0; i < p->ntrans; i++)
		cnt[p->trans[i].from * pr->nb + pr->ev2b[p->trans[i].event]]++;
	for (int i = 1; i <= ns * pr->nb; i++)
		pr->tr_off[i] += pr->tr_off[i - 1];
	{
		uint32_t *fill = calloc((size_t)ns * pr->nb + 1, sizeof(*fill));

		if (!fill)
			return vg_errf(e, "out of memory");
		for (int i = 0; i < p->ntrans; i++) {
			int c = p->trans[i].from * pr->nb +
				pr->ev2b[p->trans[i].event];

			pr->tr_list[pr->tr_off[c] + fill[c]++] = i;
		}
		free(fill);
	}
	for (int i = 0; i < p->ntrans; i++) {
		const struct vg_transition *t = &p->trans[pr->tr_list[i]];
		struct tr_rt *r = &pr->trc[i];

		r->index = pr->tr_list[i];
		r->to = (uint16_t)t->to;
		r->guard = p->code + t->guard.off;
		r->glen = t->guard.len;
		r->gfast = vg_vm_check(r->guard, r->glen, pr->nvars,
				       pr->nglobals);
		r->update = p->code + t->update.off;
		r->ulen = t->update.len;
		r->ufast = vg_vm_check(r->update, r->ulen, pr->nvars,
				       pr->nglobals);
	}

	/* a mask keeps an index on s when an event's binding meets it in s:
	 * that is how A and C look slices up by a sub-binding */
	for (uint32_t mk = 0; mk < pr->nmasks; mk++)
		for (int i = 0; i < pr->nb; i++) {
			uint32_t s = pr->b[i].mask & mk;

			if (s && s != mk)
				needed[mk] |= 1u << s;
		}
	for (uint32_t mk = 0; mk < pr->nmasks; mk++) {
		int n = 0;

		for (int pc = popc(mk) - 1; pc >= 0; pc--)
			for (int s = (int)mk; s >= 0; s--)
				if (((uint32_t)s & mk) == (uint32_t)s &&
				    (uint32_t)s != mk && popc(s) == pc)
					pr->order[mk][n++] = (uint8_t)s;
		pr->norder[mk] = (uint8_t)n;
	}
	return vg_store_init(&pr->st, pr->k, pr->nvars, needed);
}

static void prop_fini(struct prop_rt *pr)
{
	vg_store_fini(&pr->st);
	free(pr->globals);
	free(pr->saved_globals);
	free(pr->init_vars);
	free(pr->tmp_vars);
	free(pr->b);
	free(pr->ev2b);
	free(pr->viol);
	free(pr->tr_off);
	free(pr->tr_list);
	free(pr->trc);
}

struct vg_monitor *vg_monitor_new(const struct vg_spec *spec,
				  const struct vg_monitor_opts *opts,
				  const struct vg_monitor_hooks *hooks,
				  struct vg_err *e)
{
	struct vg_monitor *m = calloc(1, sizeof(*m));

	if (!m) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	m->spec = spec;
	if (hooks)
		m->hooks = *hooks;
	if (opts)
		m->max_slices = opts->max_slices;
	m->nprops = spec->nprops;
	m->pr = calloc(spec->nprops + 1, sizeof(*m->pr));
	if (!m->pr) {
		vg_errf(e, "out of memory");
		goto fail;
	}
	for (int i = 0; i < spec->nprops; i++) {
		if (prop_init(m, &m->pr[i], &spec->props[i],
			      !opts || !opts->evaluate || opts->evaluate[i], e))
			goto fail;
		m->timed |= m->pr[i].evaluate && spec->props[i].timed;
	}
	return m;
fail:
	vg_monitor_free(m);
	return NULL;
}

void vg_monitor_free(struct vg_monitor *m)
{
	if (!m)
		return;
	for (int i = 0; m->pr && i < m->nprops; i++)
		prop_fini(&m->pr[i]);
	free(m->pr);
	free(m->fin);
	vg_timers_free(m);
	free(m);
}

/* ---- one slice takes one event --------------------------------------- */

/* Try the transitions of `state` on binding bi in order; the first whose
 * guard holds runs its update. Returns its index, or -1. *unknown: a
 * memory predicate of a guard or update it ran was unknown (a guard
 * that was is passed over, whatever its value). */
static int choose(const struct vg_monitor *m, const struct prop_rt *pr,
		  int bi, int state, const uint64_t *params, int64_t *vars,
		  const struct vg_mon_event *ev, bool *unknown)
{
	uint32_t c = (uint32_t)state * pr->nb + bi;
	bool unk = false;
	struct vg_vm_ctx x = {
		.slot = ev->slot, .params = params, .vars = vars,
		.nvars = pr->nvars, .globals = pr->globals,
		.nglobals = pr->nglobals, .tid = ev->tid,
		.time_ns = ev->time_ns, .mem = m->mem, .pid = ev->pid,
		.unknown = &unk,
	};

	for (uint32_t i = pr->tr_off[c]; i < pr->tr_off[c + 1]; i++) {
		const struct tr_rt *t = &pr->trc[i];

		if (t->glen) {
			bool held;

			x.code = t->guard;
			x.len = t->glen;
			unk = false;
			held = t->gfast ? vg_vm_fast(&x) : vg_vm_exec(&x);
			*unknown |= unk;
			if (!held || unk)
				continue;
		}
		if (t->ulen) {
			x.code = t->update;
			x.len = t->ulen;
			unk = false;
			t->ufast ? vg_vm_fast(&x) : vg_vm_exec(&x);
			*unknown |= unk;
		}
		return t->index;
	}
	return -1;
}

void vg_monitor_set_mem(struct vg_monitor *m, const struct vg_mem_oracle *o)
{
	m->mem = o;
}

void vg_mon_call_hook(struct vg_monitor *m, int prop, uint32_t mask,
		      const uint64_t *params, int to, int t, const int64_t *vars,
		      bool inconc, int from, const struct vg_mon_event *ev)
{
	struct vg_slice_view v = {
		.prop = prop, .mask = mask, .params = params, .state = to,
		.vars = vars, .inconclusive = inconc, .trans = t,
	};

	m->s.transitions++;
	if (m->hooks.transition)
		m->hooks.transition(m->hooks.ctx, &v, from, to, ev);
}

int vg_mon_fin_push(struct vg_monitor *m, uint32_t mask, uint32_t ref,
		    struct vg_err *e)
{
	if (m->nfin == m->capfin) {
		size_t n = m->capfin ? 2 * m->capfin : 64;
		struct vg_fin *f = realloc(m->fin, n * sizeof(*f));

		if (!f)
			return vg_errf(e, "out of memory");
		m->fin = f;
		m->capfin = n;
	}
	m->fin[m->nfin].mask = mask;
	m->fin[m->nfin++].ref = ref;
	return 0;
}

/* Step C for one live slice. */
static int apply(struct vg_monitor *m, int prop, struct prop_rt *pr, int bi,
		 uint32_t mask, uint32_t ref, const struct vg_mon_event *ev,
		 struct vg_err *e)
{
	struct vg_mstore *ms = &pr->st.ms[mask];
	struct vg_rec *r = vg_store_rec(ms, ref);
	uint32_t c = (uint32_t)r->state * pr->nb + bi;
	uint64_t params[VG_MAX_PARAMS];
	int64_t *vars;
	int from = r->state, t;
	bool unknown = false;

	if (pr->tr_off[c] == pr->tr_off[c + 1])
		return 0;		/* the common "nothing to do" */
	vars = vg_rec_vars(ms, r);
	vg_rec_expand(ms, vg_rec_params(ms, r, ref), params);
	t = choose(m, pr, bi, from, params, vars, ev, &unknown);
	/* (a violation a known guard took is real, whatever an earlier
	 * guard left unknown: the event was checked, as the in-process
	 * tier counts it, inproc/kstep.c) */
	unknown = unknown && (t < 0 || !pr->viol[pr->p->trans[t].to]);
	pr->mem_unknown += unknown;
	if (unknown)
		r->flags |= VG_SF_INCONC;
	if (t < 0)
		return 0;
	r->state = (uint16_t)pr->p->trans[t].to;
	if (pr->p->timed)
		vg_timer_enter(m, pr, mask, params, r->state, vars, ev);
	vg_mon_call_hook(m, prop, mask, params, r->state, t, vars,
			 r->flags & VG_SF_INCONC, from, ev);
	if (pr->viol[r->state] || (r->state == 0 && vg_vars_initial(pr, vars)))
		return vg_mon_fin_push(m, mask, ref, e);
	return 0;
}

/* ---- finding and creating slices ------------------------------------- */

/* The most specific slice strictly below `full` (mask mk) with more than
 * `minpop` parameters; VG_REF_NONE if none. *smask gets its mask. */
static uint32_t most_specific(struct prop_rt *pr, uint32_t mk,
			      const uint64_t *full, int minpop,
			      uint32_t *smask)
{
	for (int i = 0; i < pr->norder[mk]; i++) {
		uint32_t s = pr->order[mk][i], ref;
		struct vg_mstore *ms = &pr->st.ms[s];

		if (popc(s) <= minpop)
			break;
		if (!ms->nlive && !ms->ntomb)
			continue;
		ref = vg_store_find(ms, full, vg_store_hash(s, full));
		if (ref != VG_REF_NONE) {
			*smask = s;
			return ref;
		}
	}
	return VG_REF_NONE;
}

/* Step A for one live slice theta (mask n) compatible with beta. */
static int join(struct vg_monitor *m, struct prop_rt *pr, uint32_t n,
		uint32_t ref, uint32_t bmask, const uint64_t *beta,
		struct vg_err *e)
{
	struct vg_mstore *ms = &pr->st.ms[n], *dst;
	struct vg_rec *src;
	uint64_t full[VG_MAX_PARAMS], h;
	uint32_t mk = n | bmask, smask = n, sref;

	vg_rec_expand(ms, vg_rec_params(ms, vg_store_rec(ms, ref), ref), full);
	for (int i = 0; i < pr->k; i++)
		if (bmask & (1u << i))
			full[i] = beta[i];
	dst = &pr->st.ms[mk];
	h = vg_store_hash(mk, full);
	if (dst->nlive + dst->ntomb && vg_store_find(dst, full, h) != VG_REF_NONE)
		return 0;
	sref = most_specific(pr, mk, full, popc(n), &smask);
	if (sref == VG_REF_NONE)
		sref = ref;
	if (sref & VG_REF_TOMB)
		return 0;		/* a violation below absorbs the event */
	if (vg_full_up(m, pr)) {
		vg_refuse(m, pr);
		return 0;
	}
	src = vg_store_rec(&pr->st.ms[smask], sref);
	if (vg_store_add_live(dst, full, h, src->state,
			      (src->flags & VG_SF_INCONC) |
				      (pr->inconclusive ? VG_SF_INCONC : 0),
			      vg_rec_vars(&pr->st.ms[smask], src)) ==
	    VG_REF_NONE)
		return vg_errf(e, "out of memory");
	pr->stored++;
	m->s.slices_created++;
	if (pr->p->timed)
		vg_timer_copy(m, pr, mk, full, src->state,
			      vg_rec_vars(&pr->st.ms[smask], src));
	return 0;
}

/* Step D once nothing at or below beta is known to exist (h: its hash),
 * or beta's own slice is the tombstone `tomb` (else VG_REF_NONE): an
 * instance that reached a violation is over. Only an event that creates
 * the values it binds (bi's `creates`: a block the allocator hands out
 * again at the same address) and starts an instance from the initial
 * state into a state that is not a violation starts the object's next
 * life; any other event is absorbed, as parametric trace slicing has it
 * (an object used again after its violation is the same object). The
 * tombstone's violation stays reported; an event that would only repeat
 * the violation is absorbed too. */
static int start(struct vg_monitor *m, int prop, struct prop_rt *pr, int bi,
		 uint32_t bmask, const uint64_t *beta, uint64_t h,
		 uint32_t tomb, const struct vg_mon_event *ev,
		 struct vg_err *e)
{
	struct vg_mstore *ms = &pr->st.ms[bmask];
	uint32_t ref;
	bool full = vg_full_up(m, pr), keep, unknown = false;
	uint8_t flags = pr->inconclusive ? VG_SF_INCONC : 0;
	int t, to;

	if (tomb != VG_REF_NONE && !pr->b[bi].creates)
		return 0;	/* the same object again: absorbed */
	memcpy(pr->tmp_vars, pr->init_vars, pr->nvars * sizeof(int64_t));
	if ((full || tomb != VG_REF_NONE) && pr->nglobals)
		memcpy(pr->saved_globals, pr->globals,
		       pr->nglobals * sizeof(int64_t));
	t = choose(m, pr, bi, 0, beta, pr->tmp_vars, ev, &unknown);
	unknown = unknown && (t < 0 || !pr->viol[pr->p->trans[t].to]);
	pr->mem_unknown += unknown;
	if (unknown)
		flags |= VG_SF_INCONC;
	if (t < 0) {
		/* an instance left in its initial state is not kept, nor
		 * its mark: the property's verdict keeps that */
		pr->inconc_gone += unknown;
		return 0;
	}
	to = pr->p->trans[t].to;
	if (tomb != VG_REF_NONE) {
		if (pr->viol[to]) {	/* the same violation again: absorbed */
			if (pr->nglobals)
				memcpy(pr->globals, pr->saved_globals,
				       pr->nglobals * sizeof(int64_t));
			return 0;
		}
		/* a new instance: it has missed nothing yet (what the old
		 * one may have missed was said with its violation) */
		vg_store_remove(ms, tomb);
		pr->stored--;
		m->s.slices_freed++;
		full = vg_full_up(m, pr);
	}
	if (pr->p->timed)
		vg_timer_enter(m, pr, bmask, beta, to, pr->tmp_vars, ev);
	keep = pr->viol[to] || to != 0 || !vg_vars_initial(pr, pr->tmp_vars);
	if (keep && full) {
		/* the slice cannot exist: undo what its update did */
		if (pr->nglobals)
			memcpy(pr->globals, pr->saved_globals,
			       pr->nglobals * sizeof(int64_t));
		vg_refuse(m, pr);
		return 0;
	}
	vg_mon_call_hook(m, prop, bmask, beta, to, t, pr->tmp_vars,
			 flags & VG_SF_INCONC, 0, ev);
	if (!keep) {
		pr->inconc_gone += unknown;
		return 0;
	}
	if (pr->viol[to])
		ref = vg_store_add_tomb(ms, beta, h, to, flags);
	else
		ref = vg_store_add_live(ms, beta, h, to, flags, pr->tmp_vars);
	if (ref == VG_REF_NONE)
		return vg_errf(e, "out of memory");
	pr->stored++;
	m->s.slices_created++;
	return 0;
}

/* Step D: beta's slice from the initial state. */
static int from_scratch(struct vg_monitor *m, int prop, struct prop_rt *pr,
			int bi, uint32_t bmask, const uint64_t *beta,
			const struct vg_mon_event *ev, struct vg_err *e)
{
	struct vg_mstore *ms = &pr->st.ms[bmask];
	uint64_t h = vg_store_hash(bmask, beta);
	uint32_t dummy;

	uint32_t ref = VG_REF_NONE;

	if ((ms->nlive || ms->ntomb) &&
	    (ref = vg_store_find(ms, beta, h)) != VG_REF_NONE &&
	    !(ref & VG_REF_TOMB))
		return 0;
	/* a slice below beta: step A started from it (a tombstone at beta
	 * with a live slice below it stays: that slice's join would be the
	 * next life, and joins do not recreate) */
	if (most_specific(pr, bmask, beta, -1, &dummy) != VG_REF_NONE)
		return 0;
	return start(m, prop, pr, bi, bmask, beta, h, ref, ev, e);
}

/* Does no slice bind a proper subset of the full mask `all`? */
static bool lower_empty(const struct prop_rt *pr, uint32_t all)
{
	for (uint32_t n = 0; n < all; n++)
		if (pr->st.ms[n].nlive || pr->st.ms[n].ntomb)
			return false;
	return true;
}

/* Step F. */
int vg_mon_finalise(struct vg_monitor *m, struct prop_rt *pr,
		    struct vg_err *e)
{
	for (size_t i = 0; i < m->nfin; i++) {
		struct vg_mstore *ms = &pr->st.ms[m->fin[i].mask];
		uint32_t ref = m->fin[i].ref;
		int state = vg_store_rec(ms, ref)->state;

		if (!pr->viol[state]) {
			pr->inconc_gone +=
				!!(vg_store_rec(ms, ref)->flags & VG_SF_INCONC);
			vg_store_remove(ms, ref);
			pr->stored--;
			m->s.slices_freed++;
			continue;
		}
		if (vg_store_to_tomb(ms, ref, state) == VG_REF_NONE) {
			pr->stored--;
			m->nfin = 0;
			return vg_errf(e, "out of memory");
		}
	}
	m->nfin = 0;
	return 0;
}

/* ---- dispatch -------------------------------------------------------- */

static int prop_event(struct vg_monitor *m, int prop, struct prop_rt *pr,
		      const struct vg_mon_event *ev, struct vg_err *e)
{
	int bi = pr->ev2b[ev->event];
	const struct bind_rt *b;
	uint64_t beta[VG_MAX_PARAMS] = { 0 };
	uint32_t bm;
	int rc = 0;

	if (bi < 0)
		return 0;
	b = &pr->b[bi];
	bm = b->mask;
	for (int i = 0; i < pr->k; i++)
		if (bm & (1u << i))
			beta[i] = ev->slot[b->slot[i]];

	/* The usual case, worth its own path: the event binds every parameter
	 * (every event of a one-parameter property does) and no slice binds
	 * fewer. Then A has nothing to join, C reaches beta's slice alone and
	 * D has nothing below beta to find: one lookup in all. */
	if (bm && bm == pr->nmasks - 1 && lower_empty(pr, bm)) {
		struct vg_mstore *ms = &pr->st.ms[bm];
		uint64_t h = vg_store_hash(bm, beta);
		uint32_t ref = ms->inl ? vg_itab_find(ms, beta, vg_h32(h))
				       : vg_store_find(ms, beta, h);

		if (ref == VG_REF_NONE || (ref & VG_REF_TOMB)) {
			if (pr->tr_off[bi] != pr->tr_off[bi + 1])
				rc = start(m, prop, pr, bi, bm, beta, h, ref,
					   ev, e);
		} else {
			rc = apply(m, prop, pr, bi, bm, ref, ev, e);
		}
		goto fin;
	}

	/* A: joins with slices that lack part of beta */
	for (uint32_t n = 0; bm && n < pr->nmasks && !rc; n++) {
		struct vg_mstore *ms = &pr->st.ms[n];
		uint32_t common = n & bm, ref;

		if (!(bm & ~n) || !ms->nlive)
			continue;
		if (common == n) {
			ref = vg_store_find(ms, beta, vg_store_hash(n, beta));
			if (ref != VG_REF_NONE && !(ref & VG_REF_TOMB))
				rc = join(m, pr, n, ref, bm, beta, e);
		} else if (!common) {
			VG_STORE_FOREACH(ms, i, r)
				if (!(r & VG_REF_TOMB) &&
				    (rc = join(m, pr, n, r, bm, beta, e)))
					break;
		} else {
			for (ref = vg_store_idx_head(ms, common, beta);
			     ref != VG_REF_NONE && !rc;
			     ref = vg_store_next(ms, ref, common))
				rc = join(m, pr, n, ref, bm, beta, e);
		}
	}

	/* C: every live slice at or above beta */
	for (uint32_t mk = 0; mk < pr->nmasks && !rc; mk++) {
		struct vg_mstore *ms = &pr->st.ms[mk];
		uint32_t ref;

		if ((mk & bm) != bm || !ms->nlive)
			continue;
		if (mk == bm) {
			ref = vg_store_find(ms, beta, vg_store_hash(mk, beta));
			if (ref != VG_REF_NONE && !(ref & VG_REF_TOMB))
				rc = apply(m, prop, pr, bi, mk, ref, ev, e);
		} else if (!bm) {
			VG_STORE_FOREACH(ms, i, r)
				if (!(r & VG_REF_TOMB) &&
				    (rc = apply(m, prop, pr, bi, mk, r, ev, e)))
					break;
		} else {
			for (ref = vg_store_idx_head(ms, bm, beta);
			     ref != VG_REF_NONE && !rc;
			     ref = vg_store_next(ms, ref, bm))
				rc = apply(m, prop, pr, bi, mk, ref, ev, e);
		}
	}

	/* D: only when the initial state reacts to e at all */
	if (!rc && pr->tr_off[bi] != pr->tr_off[bi + 1])
		rc = from_scratch(m, prop, pr, bi, bm, beta, ev, e);
fin:
	if (m->nfin) {
		int r2 = vg_mon_finalise(m, pr, e);

		rc = rc ? rc : r2;
	}
	return rc;
}

int vg_monitor_event_prop(struct vg_monitor *m, int prop,
			  const struct vg_mon_event *ev, struct vg_err *e)
{
	if (ev->event < 0 || ev->event >= m->spec->nevents ||
	    prop < 0 || prop >= m->nprops)
		return vg_errf(e, "monitor: event %d for property %d out of range",
			       ev->event, prop);
	m->s.events++;
	if (m->tm.n && m->tm.h[0].deadline <= ev->time_ns &&
	    vg_monitor_expire(m, ev->time_ns, e) < 0)
		return -1;
	if (m->pr[prop].evaluate)
		return prop_event(m, prop, &m->pr[prop], ev, e) ? -1 : 0;
	return 0;
}

int vg_monitor_event(struct vg_monitor *m, const struct vg_mon_event *ev,
		     struct vg_err *e)
{
	if (ev->event < 0 || ev->event >= m->spec->nevents)
		return vg_errf(e, "monitor: event index %d out of range",
			       ev->event);
	m->s.events++;
	/* timeouts due by now first (timers.c); a tick does only that */
	if (m->tm.n && m->tm.h[0].deadline <= ev->time_ns &&
	    vg_monitor_expire(m, ev->time_ns, e) < 0)
		return -1;
	if (m->timed && m->spec->events[ev->event].kind == VG_EV_TIMEOUT)
		return 0;
	for (int i = 0; i < m->nprops; i++)
		if (m->pr[i].evaluate &&
		    prop_event(m, i, &m->pr[i], ev, e))
			return -1;
	return 0;
}

