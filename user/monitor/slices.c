/* The slice store: where the slices of one property live and how they are
 * found. See monitor_internal.h for the layout.
 *
 * Why this shape: the monitor must sustain ~10^7 events/s with 10^6 live
 * slices and hold memory flat under churn. So records come from chunked
 * pools with free lists (a dead slice's record is reused by the next one;
 * chunks never move, so references stay valid while tables grow), tables
 * are open-addressing with 8-byte entries (32-bit reference + 32-bit hash,
 * so probing rarely touches a record that is not the one wanted) and
 * deletion shifts entries back instead of leaving deleted markers, which
 * would otherwise fill a table that sees only inserts and deletes.
 *
 * Per mask m of bound parameters there is one exact table (binding ->
 * slice) and, for each submask s that some event can bind on its own
 * (vg_store_init's `needed`), an index: the values of s -> a doubly linked
 * list, threaded through the records, of the live slices that extend them.
 * That lets an event binding s reach every slice above it without a scan,
 * and lets a slice leave every list in O(1). Tombstones are only in the
 * exact table: nothing ever needs to enumerate them by a sub-binding.
 *
 * Inline masks (monitor_internal.h) put the records in the table slots.
 * Their references are slot numbers, so slots must not move while the
 * monitor holds references -- during one event, between step C and step
 * F. Hence removal leaves a HOLE (turned back into EMPTY when the run
 * after it is empty, which under churn is most of the time), a violation
 * becomes a tombstone in place, and only an insertion rebuilds the table
 * (to grow, or to sweep the holes out). Insertions happen in steps A and
 * D, into masks no held reference points into, and in step F after the
 * references of that mask have been used. */
#include "monitor_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MIN_CAP 8u
#define HUGE_PAGE (2u << 20)

/* Big tables are probed at random: on 4 KiB pages nearly every probe of a
 * million-entry table also misses the TLB, which under virtualisation
 * costs more than the cache miss. Ask for transparent huge pages. */
static void *table_alloc(size_t n)
{
	void *p;

	if (n < HUGE_PAGE)
		return malloc(n);
	p = aligned_alloc(HUGE_PAGE, (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1));
	if (p)
		madvise(p, n, MADV_HUGEPAGE);
	return p;
}

/* ---- pools ----------------------------------------------------------- */

static void pool_init(struct vg_pool *p, uint32_t rec_size)
{
	memset(p, 0, sizeof(*p));
	p->rec_size = rec_size;
	p->next_fresh = VG_CHUNK_RECS;
	p->free_head = VG_REF_NONE;
}

static void pool_fini(struct vg_pool *p)
{
	for (uint32_t i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	memset(p, 0, sizeof(*p));
}

#define pool_rec vg_pool_rec

static uint32_t pool_alloc(struct vg_pool *p)
{
	uint32_t id;

	if (p->free_head != VG_REF_NONE) {
		id = p->free_head;
		p->free_head = pool_rec(p, id)->aux;
		return id;
	}
	if (p->next_fresh == VG_CHUNK_RECS) {
		char *c;

		if (((uint64_t)p->nchunks + 1) << VG_CHUNK_SHIFT >= VG_REF_TOMB)
			return VG_REF_NONE;
		if (p->nchunks == p->cap_chunks) {
			uint32_t nc = p->cap_chunks ? 2 * p->cap_chunks : 4;
			char **n = realloc(p->chunks, nc * sizeof(*n));

			if (!n)
				return VG_REF_NONE;
			p->bytes += (uint64_t)(nc - p->cap_chunks) * sizeof(*n);
			p->chunks = n;
			p->cap_chunks = nc;
		}
		c = malloc((size_t)VG_CHUNK_RECS * p->rec_size);
		if (!c)
			return VG_REF_NONE;
		p->bytes += (uint64_t)VG_CHUNK_RECS * p->rec_size;
		p->chunks[p->nchunks++] = c;
		p->next_fresh = 0;
	}
	return ((p->nchunks - 1) << VG_CHUNK_SHIFT) | p->next_fresh++;
}

static void pool_free(struct vg_pool *p, uint32_t id)
{
	pool_rec(p, id)->aux = p->free_head;
	p->free_head = id;
}

/* ---- hashing --------------------------------------------------------- */

/* vg_store_hash: monitor_internal.h */

#define h32 vg_h32

/* ---- tables ---------------------------------------------------------- */

static int htab_grow(struct vg_htab *t)
{
	uint32_t ncap = t->cap ? 2 * t->cap : MIN_CAP;
	struct vg_htab_ent *n;

	if (ncap == 0)
		return -1;
	n = table_alloc((size_t)ncap * sizeof(*n));
	if (!n)
		return -1;
	for (uint32_t i = 0; i < ncap; i++)
		n[i].ref = VG_REF_NONE;
	for (uint32_t i = 0; i < t->cap; i++) {
		uint32_t j;

		if (t->ent[i].ref == VG_REF_NONE)
			continue;
		j = t->ent[i].hash & (ncap - 1);
		while (n[j].ref != VG_REF_NONE)
			j = (j + 1) & (ncap - 1);
		n[j] = t->ent[i];
	}
	free(t->ent);
	t->ent = n;
	t->cap = ncap;
	return 0;
}

static int htab_put(struct vg_htab *t, uint32_t ref, uint32_t hash)
{
	uint32_t j;

	/* load stays under 3/4: probe sequences stay short */
	if ((uint64_t)(t->count + 1) * 4 > (uint64_t)t->cap * 3 &&
	    htab_grow(t))
		return -1;
	j = hash & (t->cap - 1);
	while (t->ent[j].ref != VG_REF_NONE)
		j = (j + 1) & (t->cap - 1);
	t->ent[j].ref = ref;
	t->ent[j].hash = hash;
	t->count++;
	return 0;
}

/* Slot holding ref, which must be present. */
static uint32_t htab_slot_of(const struct vg_htab *t, uint32_t ref,
			     uint32_t hash)
{
	uint32_t j = hash & (t->cap - 1);

	while (t->ent[j].ref != ref)
		j = (j + 1) & (t->cap - 1);
	return j;
}

static void htab_del_slot(struct vg_htab *t, uint32_t i)
{
	uint32_t m = t->cap - 1, j = i;

	/* backward shift: move up every later entry of the run whose home
	 * slot is not between the hole and itself */
	for (;;) {
		uint32_t k;

		j = (j + 1) & m;
		if (t->ent[j].ref == VG_REF_NONE)
			break;
		k = t->ent[j].hash & m;
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->ent[i] = t->ent[j];
		i = j;
	}
	t->ent[i].ref = VG_REF_NONE;
	t->count--;
}

/* ---- inline tables ---------------------------------------------------- */

static inline struct vg_rec *islot(const struct vg_mstore *ms, uint32_t i)
{
	return (struct vg_rec *)(ms->itab + (size_t)i * ms->esize);
}

static inline uint32_t iref(const struct vg_rec *r, uint32_t i)
{
	return r->kind == VG_SLOT_TOMB ? i | VG_REF_TOMB : i;
}

static int itab_rebuild(struct vg_mstore *ms, uint64_t ncap)
{
	size_t bytes = (size_t)ncap * ms->esize;
	char *n;

	if (ncap > VG_REF_TOMB)		/* slot numbers must stay below it */
		return -1;
	n = table_alloc(bytes);
	if (!n)
		return -1;
	memset(n, 0, bytes);		/* every slot VG_SLOT_EMPTY */
	for (uint32_t i = 0; i < ms->icap; i++) {
		struct vg_rec *r = islot(ms, i);
		uint32_t j;

		if (r->kind != VG_SLOT_LIVE && r->kind != VG_SLOT_TOMB)
			continue;
		j = r->aux & (uint32_t)(ncap - 1);
		while (((struct vg_rec *)(n + (size_t)j * ms->esize))->kind)
			j = (j + 1) & (uint32_t)(ncap - 1);
		memcpy(n + (size_t)j * ms->esize, r, ms->esize);
	}
	free(ms->itab);
	ms->itab = n;
	ms->icap = (uint32_t)ncap;
	ms->iholes = 0;
	return 0;
}


static uint32_t itab_put(struct vg_mstore *ms, const uint64_t *full,
			 uint32_t hv, uint8_t kind, int state, uint8_t flags,
			 const int64_t *vars)
{
	uint64_t n = ms->nlive + ms->ntomb;
	struct vg_rec *r;
	uint32_t j;

	/* Grow past 3/4 live (so a fresh table is at least 3/8 full: the
	 * memory per slice stays bounded), sweep holes out past 7/8 used
	 * (so probes always end at an empty slot, and stay short). */
	if ((n + 1) * 4 > (uint64_t)ms->icap * 3) {
		uint64_t ncap = ms->icap ? 2ull * ms->icap : MIN_CAP;

		if (itab_rebuild(ms, ncap))
			return VG_REF_NONE;
	} else if ((n + ms->iholes + 1) * 8 > (uint64_t)ms->icap * 7) {
		if (itab_rebuild(ms, ms->icap))
			return VG_REF_NONE;
	}
	for (j = hv & (ms->icap - 1);; j = (j + 1) & (ms->icap - 1)) {
		r = islot(ms, j);
		if (r->kind == VG_SLOT_EMPTY)
			break;
		if (r->kind == VG_SLOT_HOLE) {	/* binding known absent */
			ms->iholes--;
			break;
		}
	}
	r->kind = kind;
	r->state = (uint16_t)state;
	r->flags = flags;
	ms->unmarked += !(flags & VG_SF_INCONC);
	r->aux = hv;
	for (int i = 0; i < ms->npar; i++)
		((uint64_t *)(r + 1))[i] = full[ms->par[i]];
	if (kind == VG_SLOT_LIVE) {
		if (ms->nvars)
			memcpy(vg_rec_vars(ms, r), vars,
			       ms->nvars * sizeof(int64_t));
		ms->nlive++;
	} else {
		ms->ntomb++;
	}
	return iref(r, j);
}

static void itab_del(struct vg_mstore *ms, uint32_t ref)
{
	uint32_t m = ms->icap - 1, i = ref & ~VG_REF_TOMB;
	struct vg_rec *r = islot(ms, i);

	if (r->kind == VG_SLOT_LIVE)
		ms->nlive--;
	else
		ms->ntomb--;
	if (islot(ms, (i + 1) & m)->kind != VG_SLOT_EMPTY) {
		r->kind = VG_SLOT_HOLE;
		ms->iholes++;
		return;
	}
	/* no probe goes past an empty slot: this one and the holes just
	 * before it can be empty too */
	r->kind = VG_SLOT_EMPTY;
	for (i = (i - 1) & m; islot(ms, i)->kind == VG_SLOT_HOLE;
	     i = (i - 1) & m) {
		islot(ms, i)->kind = VG_SLOT_EMPTY;
		ms->iholes--;
	}
}

/* ---- records --------------------------------------------------------- */

static inline uint32_t *rec_links(struct vg_rec *r)
{
	return (uint32_t *)(r + 1);
}

void vg_rec_expand(const struct vg_mstore *ms, const uint64_t *compact,
		   uint64_t *full)
{
	for (int i = 0; i < VG_MAX_PARAMS; i++)
		full[i] = 0;
	for (int j = 0; j < ms->npar; j++)
		full[ms->par[j]] = compact[j];
}

/* Do the record's parameters in `sub` (a submask of ms->mask) equal full? */
static inline bool rec_match(const struct vg_mstore *ms, struct vg_rec *r,
			     uint32_t ref, uint32_t sub, const uint64_t *full)
{
	const uint64_t *p = vg_rec_params(ms, r, ref);

	for (int j = 0; j < ms->npar; j++)
		if ((sub & (1u << ms->par[j])) && p[j] != full[ms->par[j]])
			return false;
	return true;
}

uint32_t vg_store_find(const struct vg_mstore *ms, const uint64_t *full,
		       uint64_t h)
{
	const struct vg_htab *t = &ms->tab;
	uint32_t hv = h32(h), j;

	if (ms->inl)
		return vg_itab_find(ms, full, hv);
	if (!t->count)
		return VG_REF_NONE;
	for (j = hv & (t->cap - 1); t->ent[j].ref != VG_REF_NONE;
	     j = (j + 1) & (t->cap - 1)) {
		uint32_t ref = t->ent[j].ref;

		if (t->ent[j].hash == hv &&
		    rec_match(ms, vg_store_rec(ms, ref), ref, ms->mask, full))
			return ref;
	}
	return VG_REF_NONE;
}

/* Index entry slot for the values of `sub` in full, or UINT32_MAX. */
static uint32_t idx_slot(const struct vg_mstore *ms, int k,
			 const uint64_t *full, uint32_t hv)
{
	const struct vg_htab *t = &ms->idx[k];
	uint32_t j;

	if (!t->count)
		return UINT32_MAX;
	for (j = hv & (t->cap - 1); t->ent[j].ref != VG_REF_NONE;
	     j = (j + 1) & (t->cap - 1)) {
		uint32_t ref = t->ent[j].ref;

		if (t->ent[j].hash == hv &&
		    rec_match(ms, vg_store_rec(ms, ref), ref, ms->idx_mask[k],
			      full))
			return j;
	}
	return UINT32_MAX;
}

static inline int idx_of(const struct vg_mstore *ms, uint32_t sub)
{
	return ms->idx_k[sub & ((1u << VG_MAX_PARAMS) - 1)];
}

uint32_t vg_store_idx_head(const struct vg_mstore *ms, uint32_t sub,
			   const uint64_t *full)
{
	int k = idx_of(ms, sub);
	uint32_t j;

	if (k < 0)
		return VG_REF_NONE;
	j = idx_slot(ms, k, full, h32(vg_store_hash(sub, full)));
	return j == UINT32_MAX ? VG_REF_NONE : ms->idx[k].ent[j].ref;
}

uint32_t vg_store_next(const struct vg_mstore *ms, uint32_t ref, uint32_t sub)
{
	int k = idx_of(ms, sub);

	return rec_links(vg_store_rec(ms, ref))[2 * k + 1];
}

/* ---- insert / remove ------------------------------------------------- */

static void idx_unlink(struct vg_mstore *ms, uint32_t ref,
		       const uint64_t *full, int n);

/* Link a new record into every index of its mask; on failure (no memory
 * to grow a table) unlink it from those done so far. */
static int idx_link(struct vg_mstore *ms, uint32_t ref, const uint64_t *full)
{
	uint32_t *l = rec_links(vg_store_rec(ms, ref));

	for (int k = 0; k < ms->nidx; k++) {
		uint32_t hv = h32(vg_store_hash(ms->idx_mask[k], full));
		uint32_t j = idx_slot(ms, k, full, hv);

		l[2 * k] = VG_REF_NONE;
		if (j == UINT32_MAX) {
			l[2 * k + 1] = VG_REF_NONE;
			if (htab_put(&ms->idx[k], ref, hv)) {
				idx_unlink(ms, ref, full, k);
				return -1;
			}
			continue;
		}
		/* push at the head: the entry names the newest slice */
		l[2 * k + 1] = ms->idx[k].ent[j].ref;
		rec_links(vg_store_rec(ms, l[2 * k + 1]))[2 * k] = ref;
		ms->idx[k].ent[j].ref = ref;
	}
	return 0;
}

static void idx_unlink(struct vg_mstore *ms, uint32_t ref,
		       const uint64_t *full, int n)
{
	uint32_t *l = rec_links(vg_store_rec(ms, ref));

	for (int k = 0; k < n; k++) {
		uint32_t prev = l[2 * k], next = l[2 * k + 1];

		if (prev != VG_REF_NONE) {
			rec_links(vg_store_rec(ms, prev))[2 * k + 1] = next;
		} else {
			struct vg_htab *t = &ms->idx[k];
			uint32_t hv = h32(vg_store_hash(ms->idx_mask[k], full));
			uint32_t j = htab_slot_of(t, ref, hv);

			if (next == VG_REF_NONE)
				htab_del_slot(t, j);
			else
				t->ent[j].ref = next;
		}
		if (next != VG_REF_NONE)
			rec_links(vg_store_rec(ms, next))[2 * k] = prev;
	}
}

static void store_params(const struct vg_mstore *ms, uint64_t *dst,
			 const uint64_t *full)
{
	for (int j = 0; j < ms->npar; j++)
		dst[j] = full[ms->par[j]];
}

uint32_t vg_store_add_live(struct vg_mstore *ms, const uint64_t *full,
			   uint64_t h, int state, uint8_t flags,
			   const int64_t *vars)
{
	uint32_t ref;
	struct vg_rec *r;

	if (ms->inl)
		return itab_put(ms, full, h32(h), VG_SLOT_LIVE, state, flags,
				vars);
	ref = pool_alloc(&ms->live);
	if (ref == VG_REF_NONE)
		return VG_REF_NONE;
	r = vg_store_rec(ms, ref);
	r->state = (uint16_t)state;
	r->flags = flags;
	ms->unmarked += !(flags & VG_SF_INCONC);
	r->kind = 0;
	r->aux = 0;
	store_params(ms, vg_rec_params(ms, r, ref), full);
	if (ms->nvars)
		memcpy(vg_rec_vars(ms, r), vars, ms->nvars * sizeof(int64_t));
	if (htab_put(&ms->tab, ref, h32(h))) {
		pool_free(&ms->live, ref);
		return VG_REF_NONE;
	}
	if (idx_link(ms, ref, full)) {
		htab_del_slot(&ms->tab, htab_slot_of(&ms->tab, ref, h32(h)));
		pool_free(&ms->live, ref);
		return VG_REF_NONE;
	}
	ms->nlive++;
	return ref;
}

uint32_t vg_store_add_tomb(struct vg_mstore *ms, const uint64_t *full,
			   uint64_t h, int state, uint8_t flags)
{
	uint32_t id, ref;
	struct vg_rec *r;

	if (ms->inl)
		return itab_put(ms, full, h32(h), VG_SLOT_TOMB, state, flags,
				NULL);
	id = pool_alloc(&ms->tomb);
	if (id == VG_REF_NONE)
		return VG_REF_NONE;
	ref = id | VG_REF_TOMB;
	r = vg_store_rec(ms, ref);
	r->state = (uint16_t)state;
	r->flags = flags;
	ms->unmarked += !(flags & VG_SF_INCONC);
	r->kind = 0;
	r->aux = 0;
	store_params(ms, vg_rec_params(ms, r, ref), full);
	if (htab_put(&ms->tab, ref, h32(h))) {
		pool_free(&ms->tomb, id);
		return VG_REF_NONE;
	}
	ms->ntomb++;
	return ref;
}

void vg_store_remove(struct vg_mstore *ms, uint32_t ref)
{
	struct vg_rec *r = vg_store_rec(ms, ref);
	uint64_t full[VG_MAX_PARAMS];
	uint64_t h;

	if (ms->inl) {
		itab_del(ms, ref);
		return;
	}
	vg_rec_expand(ms, vg_rec_params(ms, r, ref), full);
	h = vg_store_hash(ms->mask, full);
	htab_del_slot(&ms->tab, htab_slot_of(&ms->tab, ref, h32(h)));
	if (ref & VG_REF_TOMB) {
		pool_free(&ms->tomb, ref & ~VG_REF_TOMB);
		ms->ntomb--;
		return;
	}
	idx_unlink(ms, ref, full, ms->nidx);
	pool_free(&ms->live, ref);
	ms->nlive--;
}

uint32_t vg_store_to_tomb(struct vg_mstore *ms, uint32_t ref, int state)
{
	struct vg_rec *r = vg_store_rec(ms, ref);
	uint64_t full[VG_MAX_PARAMS];
	uint8_t flags = r->flags;

	if (ms->inl) {			/* in place: no slot moves */
		r->kind = VG_SLOT_TOMB;
		r->state = (uint16_t)state;
		ms->nlive--;
		ms->ntomb++;
		return ref | VG_REF_TOMB;
	}
	vg_rec_expand(ms, vg_rec_params(ms, r, ref), full);
	vg_store_remove(ms, ref);
	return vg_store_add_tomb(ms, full, vg_store_hash(ms->mask, full), state,
				 flags);
}

/* ---- setup ----------------------------------------------------------- */

int vg_store_init(struct vg_store *st, int nparams, uint32_t nvars,
		  const uint32_t *needed)
{
	memset(st, 0, sizeof(*st));
	st->nparams = nparams;
	st->nmasks = 1u << nparams;
	for (uint32_t m = 0; m < st->nmasks; m++) {
		struct vg_mstore *ms = &st->ms[m];

		ms->mask = m;
		for (int i = 0; i < nparams; i++)
			if (m & (1u << i))
				ms->par[ms->npar++] = (uint8_t)i;
		memset(ms->idx_k, -1, sizeof(ms->idx_k));
		for (uint32_t s = 1; s < m; s++)
			if ((s & m) == s && (needed[m] & (1u << s))) {
				ms->idx_k[s] = (int8_t)ms->nidx;
				ms->idx_mask[ms->nidx++] = s;
			}
		ms->nvars = nvars;
		ms->off_params = sizeof(struct vg_rec) + 8u * ms->nidx;
		ms->off_vars = ms->off_params + 8u * ms->npar;
		pool_init(&ms->live, ms->off_vars + 8u * nvars);
		ms->esize = ms->off_vars + 8u * nvars;
		ms->inl = !ms->nidx && ms->esize <= VG_INLINE_MAX;
		pool_init(&ms->tomb, sizeof(struct vg_rec) + 8u * ms->npar);
	}
	return 0;
}

void vg_store_fini(struct vg_store *st)
{
	for (uint32_t m = 0; m < st->nmasks; m++) {
		struct vg_mstore *ms = &st->ms[m];

		pool_fini(&ms->live);
		pool_fini(&ms->tomb);
		free(ms->tab.ent);
		free(ms->itab);
		for (int k = 0; k < ms->nidx; k++)
			free(ms->idx[k].ent);
	}
	memset(st, 0, sizeof(*st));
}

uint64_t vg_store_bytes(const struct vg_store *st)
{
	uint64_t b = 0;

	for (uint32_t m = 0; m < st->nmasks; m++) {
		const struct vg_mstore *ms = &st->ms[m];

		b += ms->live.bytes + ms->tomb.bytes;
		b += (uint64_t)ms->icap * ms->esize;
		b += (uint64_t)ms->tab.cap * sizeof(struct vg_htab_ent);
		for (int k = 0; k < ms->nidx; k++)
			b += (uint64_t)ms->idx[k].cap *
			     sizeof(struct vg_htab_ent);
	}
	return b;
}
