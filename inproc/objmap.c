/* The agent's object map (objmap.h). vigil made it (user/fast/
 * fast_objmap.c: sized, initialised, the program's globals filed); the
 * agent files what the allocator gives out and takes back, on the
 * target's threads, with the map's own lock-free code.
 *
 * Never a lie: a block the agent cannot measure (a strdup whose string it
 * cannot find the end of) widens the map's lost range instead of being
 * left out, since a pointer into the heap in no block is "no object". */
#include "objmap.h"
#include "event.h"
#include "omhint.h"
#include "vigil_objmap.h"

#define NR_brk 12
/* A block of the brk heap past what is filed starts at most this far
 * past it (the heap grows by what malloc asks of it, below the mmap
 * threshold, 32 MB at most): a block further away (a thread's arena,
 * an mmap'd block) costs no brk(0) each time */
#define HEAP_GROWTH_MAX (1ull << 30)
/* strdup's string, read to its end at most this far */
#define STRDUP_MAX (1u << 20)
/* granules looked through for the pool blocks of a heap block freed:
 * a 128 KB slab of 32-byte blocks */
#define POOL_SCAN_MAX 4096

static inline struct vg_objmap *om_of(struct vg_fast_shared *sh)
{
	return sh->objmap_off ? vg_at(sh, sh->objmap_off) : 0;
}

static inline __u64 at(const __u64 *slot, __u8 i)
{
	return i < VG_NSLOTS ? slot[i] : 0;
}

/* The brk heap, [heap_lo, the break), is filed as an arena as far as the
 * blocks seen reach: a block past what is filed asks the kernel for the
 * break (once each time the heap grows), and the arena is filed again
 * to it. An arena is what makes a pointer between blocks "no object"
 * (the map answers unknown elsewhere). */
static void heap_reach(struct vg_fast_shared *sh, struct vg_objmap *m,
		       __u64 base, __u64 end)
{
	__u64 lo = __atomic_load_n(&sh->heap_lo, __ATOMIC_RELAXED);
	__u64 hi = __atomic_load_n(&sh->heap_hi, __ATOMIC_RELAXED), brk;

	if (!lo || base < lo || end <= hi ||
	    (base > hi && base - hi > HEAP_GROWTH_MAX))
		return;
	brk = (__u64)vg_sys6(NR_brk, 0, 0, 0, 0, 0, 0);
	if (brk <= hi || end > brk || base >= brk)
		return;		/* not in the brk heap (an mmap'd block) */
	if (!__atomic_compare_exchange_n(&sh->heap_hi, &hi, brk, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;		/* another thread files it */
	vg_om_insert(m, lo, brk - lo, VG_OM_ARENA, 0);
	/* the smaller arena before, at a lower level (the same level was
	 * replaced): the remove finds it first */
	if (hi > lo && vg_om_level(hi - lo) != vg_om_level(brk - lo))
		vg_om_remove(m, lo, VG_OM_ARENA);
}

/* The pool blocks of one key (k, g) that start in [base, end) go */
static int drop_key(struct vg_objmap *m, __u32 mask, __u32 k, __u64 g,
		    __u64 base, __u64 end)
{
	__u32 home = vg_om_hash(k, g) & mask, over = 0;
	struct vg_om_snap s;

	for (__u32 j = 0; j < VG_OM_WINDOW && (!j || over); j++) {
		union vg_om_elem *el = VG_OM_BUCKET(m, mask, home + j);

		if (!j)
			over = VG_OM_LOAD(el->b.over);
		for (int w = 0, tries = 0; w < VG_OM_WAYS; w++) {
			__u32 kind;

			if (!vg_om_read(&el->b.e[w], &s)) {
				if (++tries > VG_OM_RETRIES)
					return -1;	/* unsure */
				w--;	/* being written: again */
				continue;
			}
			kind = (__u32)(s.lk >> VG_OM_LEN_BITS);
			if (kind == VG_OM_POOL && s.base >= base &&
			    s.base < end && s.base >> k == g &&
			    vg_om_level(s.lk & VG_OM_LEN_MASK) == k)
				vg_om_remove(m, s.base, VG_OM_POOL);
		}
	}
	return 0;
}

/* The heap block [base, base + len) was freed: the pool blocks carved
 * from it go with it, or they would answer for memory malloc gives out
 * again (a slab dropped whole, its blocks never released). Looked for by
 * their keys, granule by granule at each level pool blocks have; a block
 * with too many granules for that (or an entry being written) has its
 * range doubted instead: pool blocks there are not believed. */
static void drop_pools(struct vg_objmap *m, __u64 levels, __u64 base,
		       __u64 len)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);
	__u64 end = vg_om_end(base, len), budget = POOL_SCAN_MAX;
	__u32 mask = VG_OM_LOAD(h->h.mask);

	for (__u32 k = VG_OM_MIN_LEVEL; k <= VG_OM_MAX_LEVEL; k++) {
		__u64 g0 = base >> k, g1 = (end - 1) >> k;

		if (!(levels & (1ull << k)))
			continue;
		if (g1 - g0 >= budget)
			goto doubt;
		budget -= g1 - g0 + 1;
		for (__u64 g = g0; g <= g1; g++)
			if (drop_key(m, mask, k, g, base, end))
				goto doubt;
	}
	return;
doubt:
	vg_om_widen(&h->h.pool_doubt_lo, &h->h.pool_doubt_hi, base, end);
}

/* free(base), or realloc's old block */
static void heap_free(struct vg_objmap *m, __u64 base)
{
	__u64 levels = VG_OM_LOAD(VG_OM_ELEM(m, 0)->h.pools), len;
	struct vg_om_obj o;

	if (!levels) {		/* no pool block to take with it */
		vg_om_free_hinted(m, base, &len);
		return;
	}
	if (vg_om_lookup_as(m, base, &o, 1) != VG_OM_FOUND ||
	    o.kind != VG_OM_HEAP || o.base != base) {
		vg_om_free(m, base);
		return;
	}
	vg_om_free(m, base);
	drop_pools(m, levels, base, o.len);
}

static void file(struct vg_fast_shared *sh, struct vg_objmap *m, __u64 base,
		 __u64 len, __u32 event)
{
	if (!base)
		return;		/* the call failed */
	if (!vg_om_insert(m, base, len, VG_OM_HEAP, event))
		vg_om_hint(m, base, len);
	heap_reach(sh, m, base, base + (len ? len : 1));
}

/* strdup's block: its string's length + 1. The block was just given to
 * this thread, which wrote it: a plain read */
static void file_string(struct vg_fast_shared *sh, struct vg_objmap *m,
			__u64 p, __u32 event)
{
	const volatile char *s = (const volatile char *)p;
	__u64 n = 0;

	if (!p)
		return;
	while (n < STRDUP_MAX && s[n])
		n++;
	if (n == STRDUP_MAX) {
		vg_om_mark_lost(m, p, STRDUP_MAX);
		return;
	}
	file(sh, m, p, n + 1, event);
}

VG_HIDDEN void vg_om_event(struct vg_fast_shared *sh, __u32 event,
			   const __u64 *slot, int at_entry)
{
	struct vg_objmap *m = om_of(sh);
	const struct vg_fast_omev *o;
	__u64 len;

	if (!m || event >= VG_MAX_EVENTS)
		return;
	o = &sh->omev[event];
	switch (o->role) {
	case VG_OMEV_FREE:
		if (at_entry && at(slot, o->ptr))
			heap_free(m, at(slot, o->ptr));
		return;
	case VG_OMEV_POOL_FREE:
		if (at_entry && at(slot, o->ptr))
			vg_om_pool_free(m, at(slot, o->ptr));
		return;
	case VG_OMEV_POOL:
		/* not the brk heap's reach: a pool lies inside what malloc
		 * gave out, or in memory of the program's own */
		if (!at_entry && slot[VG_SLOT_RET])
			vg_om_insert(m, slot[VG_SLOT_RET], at(slot, o->size1),
				     VG_OM_POOL, event);
		return;
	case VG_OMEV_REALLOC:
		if (at_entry)
			return;
		/* failed (NULL for a size that is not 0): the old block is
		 * still the program's, freed at the entry */
		if (!slot[VG_SLOT_RET] && at(slot, o->size1) &&
		    at(slot, o->ptr)) {
			vg_om_del(m, at(slot, o->ptr), VG_OM_FREED,
				  VG_OM_HEAP);
			return;
		}
		__attribute__((fallthrough));	/* the new block */
	case VG_OMEV_ALLOC:
		if (at_entry)
			return;
		len = at(slot, o->size1);
		if (o->size2 != VG_OMEV_NOSLOT)
			len *= at(slot, o->size2);
		file(sh, m, slot[VG_SLOT_RET], len, event);
		return;
	case VG_OMEV_OUT:
		if (!at_entry && !slot[VG_SLOT_RET])
			file(sh, m, at(slot, o->ptr), at(slot, o->size1),
			     event);
		return;
	case VG_OMEV_STRDUP:
		if (!at_entry)
			file_string(sh, m, slot[VG_SLOT_RET], event);
		return;
	}
}

VG_HIDDEN void vg_om_entry(struct vg_fast_shared *sh,
			   const struct vg_fast_hook *hk,
			   const struct vg_fast_regs *r)
{
	struct vg_objmap *m = om_of(sh);

	if (!m)
		return;
	for (__u32 i = 0; i < hk->nret && i < VG_FAST_HOOK_EVENTS; i++) {
		__u32 ev = hk->ret_ev[i];
		__u64 slot[VG_NSLOTS];

		if (ev >= VG_MAX_EVENTS ||
		    sh->omev[ev].role != VG_OMEV_REALLOC)
			continue;
		vg_memset(slot, 0, sizeof(slot));
		vg_read_args(sh, r, (const struct vg_ev_conf *)
			     vg_at(sh, sh->evconf_off) + ev, slot);
		if (at(slot, sh->omev[ev].ptr))
			heap_free(m, at(slot, sh->omev[ev].ptr));
		return;		/* one block, whatever the events */
	}
}
