/* The live block holding a pointer, for the names a report gives it
 * (vg_probe_block, probe.h): in the in-process agent's object map, then
 * in the kernel tier's.
 *
 * A lookup that finds nothing reads two buckets of every level in use, a
 * cache miss each: ~1.4 µs. The final report names every verdict's
 * pointer, and by then most are freed blocks (allocs_bench under the
 * memory specs: 70,000 such misses, a tenth of a second after the
 * program is gone). Once the maps stop changing (vg_probe_blocks_freeze:
 * the target exited or its agent was taken back), the names copy each
 * map's live blocks out, sorted, and every name after is a binary
 * search; a map of 262,144 objects is 16 MB read once in order. Not for
 * the first COPY_AFTER names: the read faults in every page of the map
 * the program never touched, ~12 ms at the end of a run that names two
 * blocks, where COPY_AFTER lookups cost 3 ms at most. */
#include "probe_internal.h"

#include <stdlib.h>

#include "vigil_objmap.h"

#define COPY_AFTER 2048

/* a live block, as the names want it */
struct nblock {
	uint64_t base, len;
	int event;
};

struct blocks {
	struct nblock *v;
	size_t n, cap;
};

/* one map's live blocks: the heap's and the pools' (a pool block may lie
 * inside a heap block or a global: the innermost answers, as in a
 * lookup) */
struct map_names {
	struct blocks heap, pool;
	uint64_t doubt_lo, doubt_hi;	/* pool blocks not believed here */
};

struct vg_block_names {
	struct map_names m[2];	/* the agent's map, the kernel tier's */
	int nm;
};

static int push(struct blocks *b, const struct vg_om_obj *o)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct nblock *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -1;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = (struct nblock){ o->base, o->len, (int)o->site };
	return 0;
}

static int by_base(const void *a, const void *b)
{
	uint64_t x = ((const struct nblock *)a)->base;
	uint64_t y = ((const struct nblock *)b)->base;

	return x < y ? -1 : x > y;
}

static void sort(struct blocks *b)
{
	if (b->n > 1)	/* (none: no array, which qsort may not be given) */
		qsort(b->v, b->n, sizeof(*b->v), by_base);
}

/* Every entry of m, in table order: nothing writes it any more, but an
 * entry a writer left odd is passed over as a lookup would */
static int collect(struct map_names *mn, struct vg_objmap *m)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);
	uint32_t mask;

	if (VG_OM_LOAD_ACQ(h->h.magic) != VG_OM_MAGIC)
		return 0;
	mask = VG_OM_LOAD(h->h.mask);
	mn->doubt_lo = VG_OM_LOAD(h->h.pool_doubt_lo);
	mn->doubt_hi = VG_OM_LOAD(h->h.pool_doubt_hi);
	for (uint64_t i = 0; i <= mask; i++) {
		union vg_om_elem *el = VG_OM_BUCKET(m, mask, i);

		for (int w = 0; w < VG_OM_WAYS; w++) {
			struct vg_om_snap s;
			struct vg_om_obj o;

			if (!vg_om_read(&el->b.e[w], &s) || !s.lk)
				continue;
			vg_om_fill(&o, s.base, s.lk, s.site);
			if ((o.kind == VG_OM_HEAP && push(&mn->heap, &o)) ||
			    (o.kind == VG_OM_POOL && push(&mn->pool, &o)))
				return -1;
		}
	}
	sort(&mn->heap);
	sort(&mn->pool);
	return 0;
}

static void names_free(struct vg_block_names *bn)
{
	if (!bn)
		return;
	for (int i = 0; i < bn->nm; i++) {
		free(bn->m[i].heap.v);
		free(bn->m[i].pool.v);
	}
	free(bn);
}

/* NULL when out of memory: the lookups go on */
static struct vg_block_names *names_of(struct vg_objmap *const *maps, int n)
{
	struct vg_block_names *bn = calloc(1, sizeof(*bn));

	if (!bn)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!maps[i])
			continue;
		if (collect(&bn->m[bn->nm++], maps[i])) {
			names_free(bn);
			return NULL;
		}
	}
	return bn;
}

/* the block of b holding v: blocks of one kind do not overlap, so it is
 * the last one starting at or before v, if that one reaches v */
static const struct nblock *holding(const struct blocks *b, uint64_t v)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->v[mid].base <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	return vg_om_holds(b->v[lo - 1].base, b->v[lo - 1].len, v)
		? &b->v[lo - 1] : NULL;
}

static bool frozen_block(const struct vg_block_names *bn, uint64_t v,
			 struct vg_probe_block *out)
{
	for (int i = 0; i < bn->nm; i++) {
		const struct map_names *mn = &bn->m[i];
		const struct nblock *b = NULL;

		if (!vg_om_in(mn->doubt_lo, mn->doubt_hi, v))
			b = holding(&mn->pool, v);
		if (!b)
			b = holding(&mn->heap, v);
		if (b) {
			*out = (struct vg_probe_block){ b->base, b->len,
							 b->event };
			return true;
		}
	}
	return false;
}

static bool lookup_block(struct vg_objmap *m, uint64_t v,
			 struct vg_probe_block *out)
{
	struct vg_om_obj o;

	if (!m || vg_om_lookup(m, v, &o) != VG_OM_FOUND ||
	    (o.kind != VG_OM_HEAP && o.kind != VG_OM_POOL))
		return false;
	*out = (struct vg_probe_block){ o.base, o.len, (int)o.site };
	return true;
}

static void maps_of(const struct vg_probe *p, struct vg_objmap *maps[2])
{
	maps[0] = p->src.objmap ? p->src.objmap(p->src.ctx) : NULL;
	maps[1] = p->om_mem;
}

bool vg_probe_block(struct vg_probe *p, uint64_t v,
		    struct vg_probe_block *out)
{
	struct vg_objmap *maps[2];

	if (!p)
		return false;
	maps_of(p, maps);
	/* (no memory for the copy: the lookups, as before the freeze) */
	if (p->names_frozen && !p->names &&
	    ++p->names_asked > COPY_AFTER &&
	    !(p->names = names_of(maps, 2)))
		p->names_frozen = false;
	if (p->names)
		return frozen_block(p->names, v, out);
	return lookup_block(maps[0], v, out) || lookup_block(maps[1], v, out);
}

bool vg_probe_files_blocks(const struct vg_probe *p, int event)
{
	if (!p || event < 0 || event >= VG_MAX_EVENTS)
		return false;
	if (p->src.files && p->src.files(p->src.ctx, event))
		return true;
	return p->om_mem && (p->om_files[event / 64] >> (event % 64) & 1);
}

void vg_probe_blocks_freeze(struct vg_probe *p)
{
	if (p)
		p->names_frozen = true;
}

void vg_probe_blocks_free(struct vg_probe *p)
{
	names_free(p->names);
	p->names = NULL;
}
