/* Where a heap block's entry in the agent's object map likely is: the
 * level it was filed at, by its base.
 *
 * A free knows the block's base, not its length, so the map's own search
 * of an entry by its base (vg_om_has, vg_om_free) reads one key per level
 * in use, smallest first, a cache miss each, until it meets the block's:
 * free(p) asked it twice (bad_free's freeable(p), then the map's own
 * free), and allocs_bench under the memory specs spent two fifths of the
 * agent's time there. The agent files each heap block's level in a byte
 * hashed by its base (written at the allocation, shared by every thread,
 * after the buckets: hdr.hints bytes, user/fast/fast_objmap.c), and the
 * search reads that level's key first. A hint is a guess: an entry is
 * believed by its own base and kind, read consistently, and a hint that
 * is wrong, stale or overwritten by another block's costs the search it
 * would have cost anyway. Header-only: inproc/kstep.c is also built
 * hosted for its tests, without the agent's other files. */
#ifndef VG_INPROC_OMHINT_H
#define VG_INPROC_OMHINT_H

#include "vigil_objmap.h"

static inline __u8 *vg_om_hints(struct vg_objmap *m, __u64 *n)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);
	__u32 mask = VG_OM_LOAD(h->h.mask);

	*n = VG_OM_LOAD(h->h.hints);
	return *n ? (__u8 *)m + vg_om_size((__u64)mask + 1) : (__u8 *)0;
}

static inline __u64 vg_om_hint_at(__u64 base, __u64 n)
{
	return ((base >> 4) * 0x9e3779b97f4a7c15ull >> 24) & (n - 1);
}

/* a heap block of len bytes filed at base: its level hinted */
static inline void vg_om_hint(struct vg_objmap *m, __u64 base, __u64 len)
{
	__u64 n;
	__u8 *h = vg_om_hints(m, &n);

	if (h)
		__atomic_store_n(&h[vg_om_hint_at(base, n)],
				 (__u8)vg_om_level(len), __ATOMIC_RELAXED);
}

/* The entry of kind `want` at exactly base, in the window of the key its
 * hint names, and its snapshot *s; NULL when there is no hint or it is
 * not there (the caller searches every level) */
static inline struct vg_om_entry *vg_om_hinted(struct vg_objmap *m, __u64 base,
					       __u32 want, struct vg_om_snap *s)
{
	__u32 mask = VG_OM_LOAD(VG_OM_ELEM(m, 0)->h.mask), k, home, over = 0;
	__u64 n;
	__u8 *h = vg_om_hints(m, &n);

	if (!h)
		return 0;
	k = __atomic_load_n(&h[vg_om_hint_at(base, n)], __ATOMIC_RELAXED);
	if (k < VG_OM_MIN_LEVEL || k > VG_OM_MAX_LEVEL)
		return 0;
	home = vg_om_hash(k, base >> k) & mask;
	for (__u32 j = 0; j < VG_OM_WINDOW && (!j || over); j++) {
		union vg_om_elem *el = VG_OM_BUCKET(m, mask, home + j);

		if (!j)
			over = VG_OM_LOAD(el->b.over);
		for (int w = 0; w < VG_OM_WAYS; w++)
			if (vg_om_read(&el->b.e[w], s) && s->base == base &&
			    (__u32)(s->lk >> VG_OM_LEN_BITS) == want &&
			    vg_om_level(s->lk & VG_OM_LEN_MASK) == k)
				return &el->b.e[w];
	}
	return 0;
}

/* vg_om_has, the hinted key first (vigil_objmap_heap.h's VG_OM_HAS) */
static inline int vg_om_has_hinted(struct vg_objmap *m, __u64 base,
				   __u32 want)
{
	struct vg_om_snap s;

	if (vg_om_hinted(m, base, want, &s))
		return 1;
	return vg_om_has(m, base, want);
}

/* vg_om_free, the hinted key first: the live heap block at base becomes
 * a freed one in place (vg_om_del_write's `to`); its length in *len. 1,
 * or what vg_om_free says */
static inline int vg_om_free_hinted(struct vg_objmap *m, __u64 base,
				    __u64 *len)
{
	struct vg_om_snap s;
	struct vg_om_entry *e = vg_om_hinted(m, base, VG_OM_HEAP, &s);

	if (e && vg_om_take(e, s.seq)) {
		*len = s.lk & VG_OM_LEN_MASK;
		VG_OM_STORE(e->lk, *len | (__u64)VG_OM_FREED << VG_OM_LEN_BITS);
		vg_om_give(e, s.seq);
		return 1;
	}
	*len = 0;
	return vg_om_free(m, base);
}

#endif
