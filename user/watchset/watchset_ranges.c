/* Watched blocks by address, for accesses through calls (callacc.h).
 *
 * For each property and per-slice watch event (`access *p @ size`), the
 * ranges of the slices in a state that consumes the event (the freed
 * blocks), kept in a treap ordered by start address: a call's buffer is
 * checked in O(log n) against every such block, watched by a debug
 * register or not. The ranges of one (property, event) never overlap:
 * memory the allocator hands out again is no longer the freed block it
 * was part of, so a slice that enters a consuming state, or a state
 * that does not (an allocation: `live`), first drops every range its own
 * block overlaps (a freed block glibc merged into a larger one and gave
 * out at another address). A slice maps to its node through a hash
 * table (chained through the nodes), for the transition that takes it
 * out: a lookup at every transition of every watching slice, where a
 * tsearch tree's walk of compares was a quarter of the treap's cost. */
#include "watchset_internal.h"

#include <stdlib.h>
#include <string.h>

#include "callacc.h"
#include "monitor/monitor.h"

struct rnode {
	uint64_t start, end;
	uint32_t prio;
	struct rnode *l, *r;
	/* the slice */
	struct vg_monitor *m;
	int prop, event;
	uint32_t mask;
	uint64_t params[VG_MAX_PARAMS];
	bool repeat;	/* a violation's block (watchset_repeat.c) */
	struct rnode *hnext;	/* in its by_slice bucket */
};

struct vg_ws_ranges {
	struct rnode **root;	/* [nprops * nevents] */
	struct rnode **by_slice;	/* [nbuckets], by slice_hash */
	size_t nbuckets;
	uint32_t seed;
	uint64_t nodes, checked, found;
};

static int slice_cmp(const struct rnode *x, const struct rnode *y)
{
	if (x->m != y->m)
		return x->m < y->m ? -1 : 1;
	if (x->prop != y->prop)
		return x->prop - y->prop;
	if (x->event != y->event)
		return x->event - y->event;
	if (x->mask != y->mask)
		return x->mask < y->mask ? -1 : 1;
	for (int j = 0; j < VG_MAX_PARAMS; j++)
		if (x->mask >> j & 1 && x->params[j] != y->params[j])
			return x->params[j] < y->params[j] ? -1 : 1;
	return 0;
}

static uint64_t slice_hash(const struct rnode *x)
{
	uint64_t h = (uint64_t)(uintptr_t)x->m * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)x->prop << 40) ^ ((uint64_t)x->event << 20) ^ x->mask;
	for (int j = 0; j < VG_MAX_PARAMS; j++)
		if (x->mask >> j & 1)
			h = (h ^ x->params[j]) * 0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

static struct rnode **bucket_of(struct vg_ws_ranges *rg,
				const struct rnode *x)
{
	return &rg->by_slice[slice_hash(x) & (rg->nbuckets - 1)];
}

static struct rnode **slice_find(struct vg_ws_ranges *rg,
				 const struct rnode *key)
{
	struct rnode **pp;

	if (!rg->nbuckets)
		return NULL;
	for (pp = bucket_of(rg, key); *pp; pp = &(*pp)->hnext)
		if (!slice_cmp(*pp, key))
			return pp;
	return NULL;
}

/* x filed by its slice (which has no node yet); the buckets doubled as
 * the nodes outgrow them. false: no memory, x not filed */
static bool slice_add(struct vg_ws_ranges *rg, struct rnode *x)
{
	struct rnode **b;

	if (rg->nodes >= rg->nbuckets) {
		size_t n = rg->nbuckets ? rg->nbuckets * 2 : 1024;
		struct rnode **nb = calloc(n, sizeof(*nb)), **old = rg->by_slice;
		size_t on = rg->nbuckets;

		if (!nb)
			return false;
		rg->by_slice = nb;
		rg->nbuckets = n;
		for (size_t i = 0; i < on; i++)
			for (struct rnode *y = old[i], *nx; y; y = nx) {
				nx = y->hnext;
				b = bucket_of(rg, y);
				y->hnext = *b;
				*b = y;
			}
		free(old);
	}
	b = bucket_of(rg, x);
	x->hnext = *b;
	*b = x;
	return true;
}

static void slice_del(struct vg_ws_ranges *rg, struct rnode *x)
{
	for (struct rnode **pp = bucket_of(rg, x); *pp; pp = &(*pp)->hnext)
		if (*pp == x) {
			*pp = x->hnext;
			return;
		}
}

/* ---- the treap, by start --------------------------------------------- */

static void split(struct rnode *t, uint64_t key, struct rnode **l,
		  struct rnode **r)
{
	if (!t) {
		*l = *r = NULL;
	} else if (t->start < key) {
		split(t->r, key, &t->r, r);
		*l = t;
	} else {
		split(t->l, key, l, &t->l);
		*r = t;
	}
}

static struct rnode *merge(struct rnode *l, struct rnode *r)
{
	if (!l || !r)
		return l ? l : r;
	if (l->prio > r->prio) {
		l->r = merge(l->r, r);
		return l;
	}
	r->l = merge(l, r->l);
	return r;
}

/* x into t: down to where its priority puts it, and only the subtree
 * there split around it (one walk from the root, where a split of the
 * whole tree and two merges were three: each node a cache miss) */
static struct rnode *insert(struct rnode *t, struct rnode *x)
{
	if (!t)
		return x;
	if (x->prio > t->prio) {
		split(t, x->start, &x->l, &x->r);
		return x;
	}
	if (x->start <= t->start)
		t->l = insert(t->l, x);
	else
		t->r = insert(t->r, x);
	return t;
}

/* x out of t, where it is: its two subtrees merged in its place (ranges
 * of 0 bytes may share a start: then x may be on either side) */
static struct rnode *erase(struct rnode *t, const struct rnode *x)
{
	if (!t)
		return NULL;
	if (t == x)
		return merge(t->l, t->r);
	if (x->start <= t->start)
		t->l = erase(t->l, x);
	if (x->start >= t->start)
		t->r = erase(t->r, x);
	return t;
}

/* the nodes overlapping [a, b), at most max, into out */
static void overlaps(struct rnode *t, uint64_t a, uint64_t b,
		     struct rnode **out, int *n, int max)
{
	if (!t || *n >= max)
		return;
	/* disjoint ranges: those left of t end by t->start */
	if (a < t->start)
		overlaps(t->l, a, b, out, n, max);
	if (t->start < b && t->end > a && *n < max)
		out[(*n)++] = t;
	if (b > t->start)
		overlaps(t->r, a, b, out, n, max);
}

/* The probes' page filter (bpf/callacc.bpf.h): each page of a watched
 * block is counted while the block is watched, and uncounted when it no
 * longer is (the same pages: a node's range does not change). A block
 * past MAX_PAGES pages (4 MiB: glibc maps those apart, and unmaps them at
 * free) turns the filter off rather than counting a thousand pages. */
#define MAX_PAGES 1024

static void pages_count(struct vg_watchset *ws, uint64_t start, uint64_t end,
			int delta)
{
	uint64_t first = start >> 12, last = (end - 1) >> 12;

	/* no register fires: the filter is off from the start
	 * (watchset_plan.c), and nothing reads the counts */
	if (ws->no_regs)
		return;
	if (last - first >= MAX_PAGES) {
		if (delta > 0)
			vg_probe_pages_all(ws->probe);
		return;
	}
	for (uint64_t pg = first; pg <= last; pg++)
		vg_probe_page_count(ws->probe, pg, delta);
}

static void pages_on(struct vg_watchset *ws, const struct rnode *x)
{
	pages_count(ws, x->start, x->end, 1);
}

static void pages_off(struct vg_watchset *ws, uint64_t start, uint64_t end)
{
	pages_count(ws, start, end, -1);
}

static void unlink_node(struct vg_watchset *ws, struct rnode **root,
			struct rnode *x)
{
	struct vg_ws_ranges *rg = ws->ranges;
	uint64_t start = x->start, end = x->end;

	*root = erase(*root, x);
	slice_del(rg, x);
	free(x);
	rg->nodes--;
	pages_off(ws, start, end);
}

static void free_tree(struct rnode *t)
{
	if (!t)
		return;
	free_tree(t->l);
	free_tree(t->r);
	free(t);
}

void vg_ws_ranges_free(struct vg_watchset *ws)
{
	struct vg_ws_ranges *rg = ws->ranges;

	if (!rg)
		return;
	free(rg->by_slice);	/* the nodes are the treaps' */
	for (int i = 0; i < ws->spec->nprops * ws->spec->nevents; i++)
		free_tree(rg->root[i]);
	free(rg->root);
	free(rg);
	ws->ranges = NULL;
}

static struct vg_ws_ranges *ranges_of(struct vg_watchset *ws)
{
	struct vg_ws_ranges *rg = ws->ranges;

	if (rg)
		return rg;
	rg = calloc(1, sizeof(*rg));
	if (!rg)
		return NULL;
	rg->root = calloc((size_t)ws->spec->nprops * ws->spec->nevents + 1,
			  sizeof(*rg->root));
	if (!rg->root) {
		free(rg);
		return NULL;
	}
	rg->seed = 2463534242u;
	return ws->ranges = rg;
}

/* drop the ranges of (prop, ev) that [a, b) overlaps */
static void drop_overlaps(struct vg_watchset *ws, struct rnode **root,
			  uint64_t a, uint64_t b)
{
	struct rnode *hit[64];
	int n;

	do {
		n = 0;
		overlaps(*root, a, b, hit, &n, 64);
		for (int i = 0; i < n; i++)
			unlink_node(ws, root, hit[i]);
	} while (n == 64);
}

void vg_ws_ranges_transition(struct vg_watchset *ws, struct vg_monitor *m,
			     const struct vg_slice_view *s, int to)
{
	const struct vg_property *p = &ws->spec->props[s->prop];
	struct vg_ws_ranges *rg;
	const int *evs;
	int nev = vg_ws_slice_events(ws, s->prop, &evs);

	for (int i = 0; i < nev; i++) {
		int ev = evs[i];
		struct plan *pl = vg_ws_plan(ws, s->prop, ev);
		struct rnode key = { .m = m, .prop = s->prop, .event = ev,
				     .mask = s->mask }, **old, *x, **root;
		uint64_t addr, len;
		const char *why;
		bool consumes;

		if (!(rg = ranges_of(ws)))
			continue;
		root = &rg->root[s->prop * ws->spec->nevents + ev];
		memcpy(key.params, s->params, sizeof(key.params));
		if ((old = slice_find(rg, &key)))
			unlink_node(ws, root, *old);
		consumes = vg_ws_consumes(ws, s->prop, to, ev);
		/* a violation is the end of the slice's life, not memory
		 * handed out: what overlaps it stays (and the slice's own
		 * block stays watched when the run goes on past it:
		 * watchset_repeat.c) */
		if ((p->states[to].kind == VG_STATE_VIOLATION && !consumes) ||
		    (!s->vars && pl->loc[0].base_var) ||
		    !vg_ws_where(ws, &pl->loc[0], s, &addr, &len, &why) ||
		    len > UINT64_MAX - addr)
			continue;
		if (p->states[to].kind != VG_STATE_VIOLATION)
			drop_overlaps(ws, root, addr, addr + len);
		/* a block freed: memcheck makes it unaddressable again */
		if (consumes && p->states[to].kind != VG_STATE_VIOLATION)
			vg_ws_quiet_freed(ws, m, addr, addr + len);
		if (!consumes || !(x = calloc(1, sizeof(*x))))
			continue;
		*x = key;
		x->repeat = p->states[to].kind == VG_STATE_VIOLATION;
		x->start = addr;
		x->end = addr + len;
		rg->seed ^= rg->seed << 13;
		rg->seed ^= rg->seed >> 17;
		rg->seed ^= rg->seed << 5;
		x->prio = rg->seed;
		if (!slice_add(rg, x)) {
			free(x);
			continue;
		}
		*root = insert(*root, x);
		rg->nodes++;
		pages_on(ws, x);
	}
}

static bool kind_takes(enum vg_event_kind k, bool write)
{
	return k == VG_EV_ACCESS || (k == VG_EV_WRITE) == write;
}

int vg_watchset_call(struct vg_watchset *ws, struct vg_monitor *m,
		     const struct vg_mon_event *ev, struct vg_err *e)
{
	struct vg_callacc_range r[VG_CALLACC_RANGES];
	struct vg_mon_event out[16];
	struct vg_monitor *mon[16];
	int prop[16], n = 0, nr;
	struct rnode rep[16];	/* a violation's block: its slice */
	bool is_rep[16];
	uint64_t key;
	int served;
	struct vg_ws_ranges *rg = ws ? ws->ranges : NULL;

	if (!rg)
		return 0;
	served = ws->spec->events[ev->event].access_for - 1;
	nr = vg_callacc_ranges(ws->spec, ev, r);
	rg->checked++;
	for (int p = 0; p < ws->spec->nprops; p++) {
		struct rnode *root = rg->root[p * ws->spec->nevents + served];

		for (int k = 0; k < nr && root; k++) {
			struct rnode *hit[16];
			int nh = 0;

			if (!kind_takes(ws->spec->events[served].kind,
					r[k].write))
				continue;
			overlaps(root, r[k].addr, r[k].addr + r[k].len, hit,
				 &nh, 16);
			for (int i = 0; i < nh && n < 16; i++) {
				struct vg_mon_event *o = &out[n];
				uint64_t at = r[k].addr > hit[i]->start
					      ? r[k].addr : hit[i]->start;

				if (hit[i]->m != m)
					continue;	/* another process's */
				/* the bytes the program silenced are no
				 * access (watchset_quiet.c): the first
				 * that is not */
				if (ws->quiet &&
				    vg_ws_quiet_call(ws, m, ev, at,
						     r[k].addr + r[k].len <
						     hit[i]->end
						     ? r[k].addr + r[k].len
						     : hit[i]->end, &at))
					continue;
				*o = *ev;
				memset(o->slot, 0, sizeof(o->slot));
				o->event = served;
				o->slot[VG_WSLOT_ADDR] = at;
				for (int j = 0; j < VG_MAX_PARAMS; j++)
					o->slot[VG_WSLOT_PARAM0 + j] =
						hit[i]->params[j];
				mon[n] = hit[i]->m;
				is_rep[n] = hit[i]->repeat;
				rep[n] = *hit[i];
				prop[n++] = hit[i]->prop;
			}
		}
	}
	/* collected first: feeding one moves slices and their ranges */
	key = vg_ws_repeat_key(ws->spec, ev);
	for (int i = 0; i < n; i++) {
		int rc;

		rg->found++;
		if (is_rep[i]) {
			vg_ws_repeat_hit(ws, mon[i], prop[i], rep[i].mask,
					 rep[i].params, &out[i], key);
			continue;
		}
		ws->have_key = true;
		ws->cur_key = key;
		rc = vg_monitor_event_prop(mon[i], prop[i], &out[i], e);
		ws->have_key = false;
		if (rc)
			return -1;
	}
	return 0;
}
