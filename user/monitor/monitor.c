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

struct bind_rt {
	uint32_t mask;
	uint8_t slot[VG_MAX_PARAMS];
};

struct prop_rt {
	const struct vg_property *p;
	int k;
	uint32_t nvars, nglobals, nmasks;
	bool evaluate;
	bool inconclusive;		/* refused a slice, or marked */
	int64_t *globals, *init_vars, *tmp_vars, *saved_globals;
	int nb;
	struct bind_rt *b;
	int16_t *ev2b;			/* spec event -> b index, or -1 */
	uint32_t *tr_off;		/* [nstates * nb + 1] into tr_list */
	int *tr_list;
	uint8_t *viol;			/* [nstates] */
	/* proper submasks of each mask, most parameters first */
	uint8_t order[1 << VG_MAX_PARAMS][1 << VG_MAX_PARAMS];
	uint8_t norder[1 << VG_MAX_PARAMS];
	uint64_t stored;		/* live slices + tombstones */
	struct vg_store st;
};

struct fin {
	uint32_t mask, ref;
};

struct vg_monitor {
	const struct vg_spec *spec;
	struct vg_monitor_hooks hooks;
	uint64_t max_slices;
	int nprops;
	struct prop_rt *pr;
	struct vg_monitor_stats s;	/* live/tombstones/bytes computed */
	struct fin *fin;		/* slices to finalise after an event */
	size_t nfin, capfin;
};

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
	if (!pr->globals || !pr->saved_globals || !pr->init_vars ||
	    !pr->tmp_vars || !pr->b || !pr->ev2b || !pr->viol ||
	    !pr->tr_off || !pr->tr_list)
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
		add_binding(pr, vb->event, mask, vb->slot);
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
	for (int i = 0; i < spec->nprops; i++)
		if (prop_init(m, &m->pr[i], &spec->props[i],
			      !opts || !opts->evaluate || opts->evaluate[i], e))
			goto fail;
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
	free(m);
}

/* ---- one slice takes one event --------------------------------------- */

static bool vars_initial(const struct prop_rt *pr, const int64_t *vars)
{
	return !pr->nvars ||
	       !memcmp(vars, pr->init_vars, pr->nvars * sizeof(int64_t));
}

/* Try the transitions of `state` on binding bi in order; the first whose
 * guard holds runs its update. Returns its index, or -1. */
static int choose(const struct prop_rt *pr, int bi, int state,
		  const uint64_t *params, int64_t *vars,
		  const struct vg_mon_event *ev)
{
	const struct vg_property *p = pr->p;
	uint32_t c = (uint32_t)state * pr->nb + bi;
	struct vg_vm_ctx x = {
		.slot = ev->slot, .params = params, .vars = vars,
		.nvars = pr->nvars, .globals = pr->globals,
		.nglobals = pr->nglobals, .tid = ev->tid,
		.time_ns = ev->time_ns,
	};

	for (uint32_t i = pr->tr_off[c]; i < pr->tr_off[c + 1]; i++) {
		const struct vg_transition *t = &p->trans[pr->tr_list[i]];

		if (t->guard.len) {
			x.code = p->code + t->guard.off;
			x.len = t->guard.len;
			if (!vg_vm_exec(&x))
				continue;
		}
		if (t->update.len) {
			x.code = p->code + t->update.off;
			x.len = t->update.len;
			vg_vm_exec(&x);
		}
		return pr->tr_list[i];
	}
	return -1;
}

static void call_hook(struct vg_monitor *m, int prop, uint32_t mask,
		      const uint64_t *params, int to, const int64_t *vars,
		      bool inconc, int from, const struct vg_mon_event *ev)
{
	struct vg_slice_view v = {
		.prop = prop, .mask = mask, .params = params, .state = to,
		.vars = vars, .inconclusive = inconc,
	};

	m->s.transitions++;
	if (m->hooks.transition)
		m->hooks.transition(m->hooks.ctx, &v, from, to, ev);
}

static int fin_push(struct vg_monitor *m, uint32_t mask, uint32_t ref,
		    struct vg_err *e)
{
	if (m->nfin == m->capfin) {
		size_t n = m->capfin ? 2 * m->capfin : 64;
		struct fin *f = realloc(m->fin, n * sizeof(*f));

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

	if (pr->tr_off[c] == pr->tr_off[c + 1])
		return 0;		/* the common "nothing to do" */
	vars = vg_rec_vars(ms, r);
	vg_rec_expand(ms, vg_rec_params(ms, r, ref), params);
	t = choose(pr, bi, from, params, vars, ev);
	if (t < 0)
		return 0;
	r->state = (uint16_t)pr->p->trans[t].to;
	call_hook(m, prop, mask, params, r->state, vars,
		  r->flags & VG_SF_INCONC, from, ev);
	if (pr->viol[r->state] || (r->state == 0 && vars_initial(pr, vars)))
		return fin_push(m, mask, ref, e);
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

static bool full_up(const struct vg_monitor *m, const struct prop_rt *pr)
{
	return m->max_slices && pr->stored >= m->max_slices;
}

static void refuse(struct vg_monitor *m, struct prop_rt *pr)
{
	m->s.slices_refused++;
	pr->inconclusive = true;
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
	if (full_up(m, pr)) {
		refuse(m, pr);
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
	return 0;
}

/* Step D: beta's slice from the initial state. */
static int from_scratch(struct vg_monitor *m, int prop, struct prop_rt *pr,
			int bi, uint32_t bmask, const uint64_t *beta,
			const struct vg_mon_event *ev, struct vg_err *e)
{
	struct vg_mstore *ms = &pr->st.ms[bmask];
	uint64_t h = vg_store_hash(bmask, beta);
	uint32_t dummy, ref;
	bool full = full_up(m, pr), keep;
	int t, to;

	if ((ms->nlive || ms->ntomb) && vg_store_find(ms, beta, h) != VG_REF_NONE)
		return 0;
	if (most_specific(pr, bmask, beta, -1, &dummy) != VG_REF_NONE)
		return 0;		/* step A started from it */
	memcpy(pr->tmp_vars, pr->init_vars, pr->nvars * sizeof(int64_t));
	if (full && pr->nglobals)
		memcpy(pr->saved_globals, pr->globals,
		       pr->nglobals * sizeof(int64_t));
	t = choose(pr, bi, 0, beta, pr->tmp_vars, ev);
	if (t < 0)
		return 0;
	to = pr->p->trans[t].to;
	keep = pr->viol[to] || to != 0 || !vars_initial(pr, pr->tmp_vars);
	if (keep && full) {
		/* the slice cannot exist: undo what its update did */
		if (pr->nglobals)
			memcpy(pr->globals, pr->saved_globals,
			       pr->nglobals * sizeof(int64_t));
		refuse(m, pr);
		return 0;
	}
	call_hook(m, prop, bmask, beta, to, pr->tmp_vars, pr->inconclusive, 0,
		  ev);
	if (!keep)
		return 0;
	if (pr->viol[to])
		ref = vg_store_add_tomb(ms, beta, h, to,
					pr->inconclusive ? VG_SF_INCONC : 0);
	else
		ref = vg_store_add_live(ms, beta, h, to,
					pr->inconclusive ? VG_SF_INCONC : 0,
					pr->tmp_vars);
	if (ref == VG_REF_NONE)
		return vg_errf(e, "out of memory");
	pr->stored++;
	m->s.slices_created++;
	return 0;
}

/* Step F. */
static int finalise(struct vg_monitor *m, struct prop_rt *pr,
		    struct vg_err *e)
{
	for (size_t i = 0; i < m->nfin; i++) {
		struct vg_mstore *ms = &pr->st.ms[m->fin[i].mask];
		uint32_t ref = m->fin[i].ref;
		struct vg_rec *r = vg_store_rec(ms, ref);
		uint64_t full[VG_MAX_PARAMS];
		int state = r->state;
		uint8_t flags = r->flags;

		vg_rec_expand(ms, vg_rec_params(ms, r, ref), full);
		vg_store_remove(ms, ref);
		if (!pr->viol[state]) {
			pr->stored--;
			m->s.slices_freed++;
			continue;
		}
		if (vg_store_add_tomb(ms, full, vg_store_hash(ms->mask, full),
				      state, flags) == VG_REF_NONE) {
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
	if (m->nfin) {
		int r2 = finalise(m, pr, e);

		rc = rc ? rc : r2;
	}
	return rc;
}

int vg_monitor_event(struct vg_monitor *m, const struct vg_mon_event *ev,
		     struct vg_err *e)
{
	if (ev->event < 0 || ev->event >= m->spec->nevents)
		return vg_errf(e, "monitor: event index %d out of range",
			       ev->event);
	m->s.events++;
	for (int i = 0; i < m->nprops; i++)
		if (m->pr[i].evaluate &&
		    prop_event(m, i, &m->pr[i], ev, e))
			return -1;
	return 0;
}

/* ---- batches: hide the memory latency of large stores ---------------- */

/* With a million slices the tables and records are far bigger than the
 * caches, and one event costs two dependent cache misses (table entry, then
 * record) that no amount of computing can hide. Given several events at
 * once we can touch the entry of event i + 2*PF_DIST and the record of event
 * i + PF_DIST while handling event i, so the misses of consecutive events
 * overlap. Only the first probe of the exact table (and of the sub-binding
 * index an event uses) is prefetched: that is where the slice is nearly
 * always. Prefetching never changes the result. */
#define PF_DIST 6

static void prefetch(const struct vg_monitor *m, const struct vg_mon_event *ev,
		     bool rec)
{
	if (ev->event < 0 || ev->event >= m->spec->nevents)
		return;
	for (int p = 0; p < m->nprops; p++) {
		const struct prop_rt *pr = &m->pr[p];
		int bi = pr->ev2b[ev->event];
		uint64_t beta[VG_MAX_PARAMS] = { 0 };
		uint32_t bm;
		uint32_t hv;

		if (bi < 0 || !pr->evaluate)
			continue;
		bm = pr->b[bi].mask;
		for (int i = 0; i < pr->k; i++)
			if (bm & (1u << i))
				beta[i] = ev->slot[pr->b[bi].slot[i]];
		hv = vg_h32(vg_store_hash(bm, beta));
		for (uint32_t mk = bm; mk < pr->nmasks; mk++) {
			const struct vg_mstore *ms = &pr->st.ms[mk];
			const struct vg_htab *t;
			const struct vg_htab_ent *en;

			if ((mk & bm) != bm || !ms->nlive)
				continue;
			if (mk == bm)
				t = &ms->tab;
			else if (bm && ms->idx_k[bm] >= 0)
				t = &ms->idx[ms->idx_k[bm]];
			else
				continue;
			if (!t->cap)
				continue;
			en = &t->ent[hv & (t->cap - 1)];
			if (!rec) {
				__builtin_prefetch(en);
			} else if (en->ref != VG_REF_NONE) {
				const char *r = (const char *)vg_store_rec(ms, en->ref);

				__builtin_prefetch(r);
				__builtin_prefetch(r + ms->live.rec_size - 1);
			}
		}
	}
}

int vg_monitor_events(struct vg_monitor *m, const struct vg_mon_event *evs,
		      size_t n, struct vg_err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (i + 2 * PF_DIST < n)
			prefetch(m, &evs[i + 2 * PF_DIST], false);
		if (i + PF_DIST < n)
			prefetch(m, &evs[i + PF_DIST], true);
		if (vg_monitor_event(m, &evs[i], e))
			return -1;
	}
	return 0;
}

/* ---- mirroring, marking, visiting ------------------------------------ */

int vg_monitor_set(struct vg_monitor *m, int prop, uint32_t mask,
		   const uint64_t *params, int state, const int64_t *vars,
		   struct vg_err *e)
{
	struct prop_rt *pr;
	struct vg_mstore *ms;
	uint64_t full[VG_MAX_PARAMS] = { 0 }, h;
	uint32_t ref;
	uint8_t flags = 0;
	bool initial;

	if (prop < 0 || prop >= m->nprops)
		return vg_errf(e, "monitor: no property %d", prop);
	pr = &m->pr[prop];
	if (mask & ~(pr->nmasks - 1) || state < 0 || state >= pr->p->nstates)
		return vg_errf(e, "monitor: %s: bad slice (mask %#x, state %d)",
			       pr->p->name, mask, state);
	if (!vars)
		vars = pr->init_vars;
	for (int i = 0; i < pr->k; i++)
		if (mask & (1u << i))
			full[i] = params[i];
	ms = &pr->st.ms[mask];
	h = vg_store_hash(mask, full);
	ref = vg_store_find(ms, full, h);
	initial = state == 0 && vars_initial(pr, vars);
	if (ref != VG_REF_NONE) {
		struct vg_rec *r = vg_store_rec(ms, ref);

		if (!(ref & VG_REF_TOMB) && !pr->viol[state] && !initial) {
			r->state = (uint16_t)state;
			memcpy(vg_rec_vars(ms, r), vars,
			       pr->nvars * sizeof(int64_t));
			return 0;
		}
		if ((ref & VG_REF_TOMB) && pr->viol[state]) {
			r->state = (uint16_t)state;
			return 0;
		}
		/* changes kind (live <-> tombstone) or goes away */
		flags = r->flags;
		vg_store_remove(ms, ref);
		pr->stored--;
		if (initial) {
			m->s.slices_freed++;
			return 0;
		}
	} else {
		if (initial)
			return 0;
		if (full_up(m, pr)) {
			refuse(m, pr);
			return 0;
		}
		flags = pr->inconclusive ? VG_SF_INCONC : 0;
		m->s.slices_created++;
	}
	if (pr->viol[state])
		ref = vg_store_add_tomb(ms, full, h, state, flags);
	else
		ref = vg_store_add_live(ms, full, h, state, flags, vars);
	if (ref == VG_REF_NONE)
		return vg_errf(e, "out of memory");
	pr->stored++;
	return 0;
}

void vg_monitor_mark_inconclusive(struct vg_monitor *m, int prop)
{
	struct prop_rt *pr;

	if (prop < 0 || prop >= m->nprops)
		return;
	pr = &m->pr[prop];
	pr->inconclusive = true;
	for (uint32_t mk = 0; mk < pr->nmasks; mk++) {
		struct vg_mstore *ms = &pr->st.ms[mk];

		VG_STORE_FOREACH(ms, i, ref)
			vg_store_rec(ms, ref)->flags |= VG_SF_INCONC;
	}
}

bool vg_monitor_prop_inconclusive(const struct vg_monitor *m, int prop)
{
	return prop >= 0 && prop < m->nprops && m->pr[prop].inconclusive;
}

void vg_monitor_foreach(struct vg_monitor *m,
			void (*cb)(void *ctx, const struct vg_slice_view *s),
			void *ctx)
{
	for (int p = 0; p < m->nprops; p++) {
		struct prop_rt *pr = &m->pr[p];

		for (uint32_t mk = 0; mk < pr->nmasks; mk++) {
			struct vg_mstore *ms = &pr->st.ms[mk];

			VG_STORE_FOREACH(ms, i, ref) {
				struct vg_rec *r = vg_store_rec(ms, ref);
				uint64_t params[VG_MAX_PARAMS];
				struct vg_slice_view v = {
					.prop = p, .mask = mk,
					.params = params, .state = r->state,
					.vars = (ref & VG_REF_TOMB)
							? NULL
							: vg_rec_vars(ms, r),
					/* a refused slice leaves the whole
					 * property's end verdict open */
					.inconclusive =
						(r->flags & VG_SF_INCONC) ||
						pr->inconclusive,
				};

				vg_rec_expand(ms, vg_rec_params(ms, r, ref),
					      params);
				cb(ctx, &v);
			}
		}
		/* a property without parameters always has its one instance,
		 * even when it sits in the initial state (and is not stored) */
		if (!pr->k && !pr->st.ms[0].tab.count) {
			static const uint64_t none[VG_MAX_PARAMS];
			struct vg_slice_view v = {
				.prop = p, .params = none, .state = 0,
				.vars = pr->init_vars,
				.inconclusive = pr->inconclusive,
			};

			cb(ctx, &v);
		}
	}
}

void vg_monitor_stats(const struct vg_monitor *m, struct vg_monitor_stats *st)
{
	*st = m->s;
	st->slices_live = st->tombstones = 0;
	st->bytes = m->capfin * sizeof(struct fin);
	for (int p = 0; p < m->nprops; p++) {
		const struct prop_rt *pr = &m->pr[p];

		for (uint32_t mk = 0; mk < pr->nmasks; mk++) {
			st->slices_live += pr->st.ms[mk].nlive +
					   pr->st.ms[mk].ntomb;
			st->tombstones += pr->st.ms[mk].ntomb;
		}
		st->bytes += vg_store_bytes(&pr->st);
	}
}

const int64_t *vg_monitor_globals(const struct vg_monitor *m, int prop)
{
	if (prop < 0 || prop >= m->nprops)
		return NULL;
	return m->pr[prop].globals;
}
