/* The monitor seen from outside the event path: batches of events with
 * prefetching, mirroring slices evaluated elsewhere, marking, visiting,
 * statistics. The event path itself is monitor.c. */
#include "monitor_internal.h"

/* ---- batches: hide the memory latency of large stores ---------------- */

/* With a million slices the tables and records are far bigger than the
 * caches, and one event costs two dependent cache misses (table entry, then
 * record) that no amount of computing can hide. Given several events at
 * once we can touch the entry of event i + 2*PF_DIST and the record of event
 * i + PF_DIST while handling event i, so the misses of consecutive events
 * overlap. Inline masks (monitor_internal.h) need only the first step. Only the first probe of the exact table (and of the sub-binding
 * index an event uses) is prefetched: that is where the slice is nearly
 * always. Prefetching never changes the result. */
#define PF_DIST 6

/* GCC sees that prefetch() below only loads and prefetches, finds it pure
 * and deletes every call to it (it did: the batch API ran at the speed of
 * single events). The empty asm volatile is a side effect it must keep. */
#define PREFETCH(p_)                                                       \
	do {                                                               \
		const void *pp_ = (p_);                                    \
		__builtin_prefetch(pp_);                                   \
		__asm__ volatile("" : : "r"(pp_));                         \
	} while (0)

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
		uint32_t hv = 0;
		bool hashed = false;

		if (bi < 0 || !pr->evaluate)
			continue;
		bm = pr->b[bi].mask;
		for (int i = 0; i < pr->k; i++)
			if (bm & (1u << i))
				beta[i] = ev->slot[pr->b[bi].slot[i]];
		for (uint32_t mk = bm; mk < pr->nmasks; mk++) {
			const struct vg_mstore *ms = &pr->st.ms[mk];
			const struct vg_htab *t;
			const struct vg_htab_ent *en;

			if ((mk & bm) != bm || !ms->nlive)
				continue;
			/* the hash only once, and only when some table is
			 * probed: this runs twice per event */
			if (!hashed && (!ms->inl || (!rec && mk == bm))) {
				hv = vg_h32(vg_store_hash(bm, beta));
				hashed = true;
			}
			if (ms->inl) {	/* the slot is the record: one step */
				if (!rec && mk == bm)
					PREFETCH(ms->itab +
						(size_t)(hv & (ms->icap - 1)) *
							ms->esize);
				continue;
			}
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
				PREFETCH(en);
			} else if (en->ref != VG_REF_NONE) {
				const char *r = (const char *)vg_store_rec(ms, en->ref);

				PREFETCH(r);
				PREFETCH(r + ms->live.rec_size - 1);
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
	if (pr->disabled)
		return 0;	/* a mirrored slice of an unloaded property */
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
	initial = state == 0 && vg_vars_initial(pr, vars);
	if (ref != VG_REF_NONE) {
		struct vg_rec *r = vg_store_rec(ms, ref);

		if (!(ref & VG_REF_TOMB) && !pr->viol[state] && !initial) {
			r->state = (uint16_t)state;
			memcpy(vg_rec_vars(ms, r), vars,
			       pr->nvars * sizeof(int64_t));
			if (pr->p->timed && pr->evaluate)
				vg_timer_copy(m, pr, mask, full, state, vars);
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
			pr->inconc_gone += !!(flags & VG_SF_INCONC);
			m->s.slices_freed++;
			return 0;
		}
	} else {
		if (initial)
			return 0;
		if (vg_full_up(m, pr)) {
			vg_refuse(m, pr);
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
	if (pr->p->timed && pr->evaluate && !pr->viol[state])
		vg_timer_copy(m, pr, mask, full, state, vars);
	return 0;
}

void vg_monitor_mark_inconclusive(struct vg_monitor *m, int prop)
{
	struct prop_rt *pr;

	if (prop < 0 || prop >= m->nprops)
		return;
	pr = &m->pr[prop];
	pr->inconclusive = true;
	/* called for each slice the kernel tier refuses: a walk of the
	 * whole table each time made a full table quadratic (2M
	 * allocations under double_free at the default bound: 32 s, 0.8 s
	 * with the walk made once) */
	for (uint32_t mk = 0; mk < pr->nmasks; mk++) {
		struct vg_mstore *ms = &pr->st.ms[mk];

		if (!ms->unmarked)
			continue;
		VG_STORE_FOREACH(ms, i, ref)
			vg_store_rec(ms, ref)->flags |= VG_SF_INCONC;
		ms->unmarked = 0;
	}
}

void vg_monitor_mark_blind(struct vg_monitor *m, int prop)
{
	if (prop >= 0 && prop < m->nprops)
		m->pr[prop].blind = true;
}

bool vg_monitor_mark_slice_inconclusive(struct vg_monitor *m, int prop,
					uint32_t mask, const uint64_t *params)
{
	uint64_t full[VG_MAX_PARAMS] = { 0 };
	struct prop_rt *pr;
	struct vg_mstore *ms;
	uint32_t ref;

	if (prop < 0 || prop >= m->nprops)
		return false;
	pr = &m->pr[prop];
	if (mask & ~(pr->nmasks - 1))
		return false;
	for (int i = 0; i < pr->k; i++)
		if (mask & (1u << i))
			full[i] = params[i];
	ms = &pr->st.ms[mask];
	ref = vg_store_find(ms, full, vg_store_hash(mask, full));
	if (ref == VG_REF_NONE)
		return false;
	vg_store_rec(ms, ref)->flags |= VG_SF_INCONC;
	return true;
}

uint64_t vg_monitor_inconclusive_gone(const struct vg_monitor *m, int prop)
{
	return prop >= 0 && prop < m->nprops ? m->pr[prop].inconc_gone : 0;
}

void vg_monitor_add_unknown(struct vg_monitor *m, int prop, uint64_t n,
			    uint64_t kept)
{
	if (!m || prop < 0 || prop >= m->nprops || !n)
		return;
	m->pr[prop].mem_unknown += n;
	m->pr[prop].inconc_gone += n - (kept < n ? kept : n);
	if (kept)
		vg_monitor_mark_inconclusive(m, prop);
}

uint64_t vg_monitor_mem_unknown(const struct vg_monitor *m, int prop)
{
	return prop >= 0 && prop < m->nprops ? m->pr[prop].mem_unknown : 0;
}

bool vg_monitor_prop_inconclusive(const struct vg_monitor *m, int prop)
{
	return prop >= 0 && prop < m->nprops &&
	       (m->pr[prop].inconclusive || m->pr[prop].blind);
}

void vg_monitor_foreach(struct vg_monitor *m,
			void (*cb)(void *ctx, const struct vg_slice_view *s),
			void *ctx)
{
	for (int p = 0; p < m->nprops; p++) {
		struct prop_rt *pr = &m->pr[p];

		if (pr->disabled)
			continue;
		for (uint32_t mk = 0; mk < pr->nmasks; mk++) {
			struct vg_mstore *ms = &pr->st.ms[mk];

			VG_STORE_FOREACH(ms, i, ref) {
				struct vg_rec *r = vg_store_rec(ms, ref);
				uint64_t params[VG_MAX_PARAMS];
				struct vg_slice_view v = {
					.prop = p, .mask = mk,
					.params = params, .state = r->state,
					.trans = -1,
					.vars = (ref & VG_REF_TOMB)
							? NULL
							: vg_rec_vars(ms, r),
					/* a refused slice leaves the whole
					 * property's end verdict open */
					.inconclusive =
						(r->flags & VG_SF_INCONC) ||
						pr->inconclusive ||
						(pr->blind &&
						 !pr->viol[r->state]),
				};

				vg_rec_expand(ms, vg_rec_params(ms, r, ref),
					      params);
				cb(ctx, &v);
			}
		}
		/* a property without parameters always has its one instance,
		 * even when it sits in the initial state (and is not stored) */
		if (!pr->k && !pr->st.ms[0].nlive && !pr->st.ms[0].ntomb) {
			static const uint64_t none[VG_MAX_PARAMS];
			struct vg_slice_view v = {
				.prop = p, .params = none, .state = 0,
				.trans = -1,
				.vars = pr->init_vars,
				.inconclusive = pr->inconclusive ||
						pr->blind,
			};

			cb(ctx, &v);
		}
	}
}

void vg_monitor_stats(const struct vg_monitor *m, struct vg_monitor_stats *st)
{
	*st = m->s;
	st->slices_live = st->tombstones = 0;
	st->bytes = m->capfin * sizeof(struct vg_fin) +
		    m->tm.cap * sizeof(struct vg_timer);
	st->timers = m->tm.n;
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

uint64_t vg_monitor_prop_live(const struct vg_monitor *m, int prop)
{
	uint64_t n = 0;

	if (prop < 0 || prop >= m->nprops)
		return 0;
	for (uint32_t mk = 0; mk < m->pr[prop].nmasks; mk++)
		n += m->pr[prop].st.ms[mk].nlive + m->pr[prop].st.ms[mk].ntomb;
	return n;
}

const int64_t *vg_monitor_globals(const struct vg_monitor *m, int prop)
{
	if (prop < 0 || prop >= m->nprops)
		return NULL;
	return m->pr[prop].globals;
}

void vg_monitor_note_timeout(struct vg_monitor *m)
{
	m->s.timeouts++;
}

int vg_monitor_set_global(struct vg_monitor *m, int prop, int idx,
			  int64_t value, struct vg_err *e)
{
	if (prop < 0 || prop >= m->nprops || idx < 0 ||
	    (uint32_t)idx >= m->pr[prop].nglobals)
		return vg_errf(e, "monitor: no global %d in property %d", idx,
			       prop);
	m->pr[prop].globals[idx] = value;
	return 0;
}

void vg_monitor_disable(struct vg_monitor *m, int prop)
{
	uint32_t needed[1 << VG_MAX_PARAMS] = { 0 };
	struct prop_rt *pr;

	if (prop < 0 || prop >= m->nprops || m->pr[prop].disabled)
		return;
	pr = &m->pr[prop];
	/* the store is made again empty, with the same indexes: every other
	 * function keeps finding a well-formed (empty) store */
	for (uint32_t mk = 0; mk < pr->nmasks; mk++)
		for (int k = 0; k < pr->st.ms[mk].nidx; k++)
			needed[mk] |= 1u << pr->st.ms[mk].idx_mask[k];
	m->s.slices_freed += pr->stored;
	vg_store_fini(&pr->st);
	vg_store_init(&pr->st, pr->k, pr->nvars, needed);
	pr->stored = 0;
	pr->evaluate = false;	/* no steps; its timers are stale (timers.c) */
	pr->disabled = true;
	m->timed = false;
	for (int i = 0; i < m->nprops; i++)
		m->timed |= m->pr[i].evaluate && m->pr[i].p->timed;
}

bool vg_monitor_prop_disabled(const struct vg_monitor *m, int prop)
{
	return prop >= 0 && prop < m->nprops && m->pr[prop].disabled;
}
