/* The object map's code (layout and design: include/vigil_objmap.h, which
 * includes this). One definition for both tiers, as vigil_ops.h's
 * operators: BPF (clang -target bpf; the includer defines VG_OM_MAP, the
 * name of its BPF_F_MMAPABLE array, and has bpf_helpers.h) and user space
 * (the agent, freestanding: no libc here; tests and benchmarks).
 *
 * Each operation is a small state machine that visits one bucket a step,
 * driven by bpf_loop in BPF (the verifier checks one visit) and by a plain
 * loop elsewhere, with the same bound. */
#ifndef VIGIL_OBJMAP_CODE_H
#define VIGIL_OBJMAP_CODE_H

#include "vigil_objmap_pred.h"

#ifdef __bpf__
#ifndef VG_OM_MAP
#error "define VG_OM_MAP, the object map's name, before vigil_objmap.h"
#endif
#define VG_OM_INLINE static __attribute__((always_inline)) inline
#define VG_OM_ELEM(m, i) ({						\
	__u32 __vg_om_k = (i);						\
	(union vg_om_elem *)bpf_map_lookup_elem(&VG_OM_MAP, &__vg_om_k); \
})
#define VG_OM_LOOP(n, cb, ctx) bpf_loop((n), (cb), (ctx), 0)
/* a bucket's entries: straight code, no loop head for the verifier to
 * hold states at */
#define VG_OM_UNROLL _Pragma("unroll")
/* x86-64 (TSO): loads are not reordered with loads, nor stores with
 * stores, and the JIT keeps the program's order; the compiler must too */
#define VG_OM_BARRIER() asm volatile("" ::: "memory")
#define VG_OM_LOAD(x) (*(volatile __typeof__(x) *)&(x))
#define VG_OM_LOAD_ACQ(x) ({						\
	__typeof__(x) __vg_om_v = VG_OM_LOAD(x);			\
	VG_OM_BARRIER();						\
	__vg_om_v;							\
})
#define VG_OM_STORE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define VG_OM_STORE_REL(x, v) do {					\
	VG_OM_BARRIER();						\
	VG_OM_STORE(x, v);						\
} while (0)
#else
#define VG_OM_INLINE static inline
#define VG_OM_UNROLL
#define VG_OM_ELEM(m, i) ((union vg_om_elem *)(m) + (i))
#define VG_OM_LOOP(n, cb, ctx) do {					\
	for (__u32 __vg_om_i = 0; __vg_om_i < (__u32)(n); __vg_om_i++)	\
		if ((cb)(__vg_om_i, (ctx)))				\
			break;						\
} while (0)
#define VG_OM_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define VG_OM_LOAD_ACQ(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define VG_OM_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define VG_OM_STORE_REL(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#endif
/* both compilers: full barriers */
#define VG_OM_CAS(x, old, new) __sync_val_compare_and_swap(&(x), (old), (new))
#define VG_OM_ADD(x, v) __sync_fetch_and_add(&(x), (v))

/* --- arithmetic ----------------------------------------------------------
 * Without branches: BPF has no clz or ctz, and a binary search's branches
 * would hand the verifier a known level on each of its paths (a state of
 * its own each, in every later step); sums and shifts give it one unknown
 * value. */

VG_OM_INLINE __u32 vg_om_popcount(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (__u32)((x * 0x0101010101010101ull) >> 56);
}

/* bits needed for x: 0 for 0, else floor(log2 x) + 1 */
VG_OM_INLINE __u32 vg_om_width(__u64 x)
{
	x |= x >> 1;
	x |= x >> 2;
	x |= x >> 4;
	x |= x >> 8;
	x |= x >> 16;
	x |= x >> 32;
	return vg_om_popcount(x);
}

/* trailing zeros of x != 0 */
VG_OM_INLINE __u32 vg_om_ctz(__u64 x)
{
	return vg_om_popcount((x & -x) - 1);
}

/* the level of a block of len bytes: max(VG_OM_MIN_LEVEL, ceil(log2 len)) */
VG_OM_INLINE __u32 vg_om_level(__u64 len)
{
	/* len - 1, or 0 for len 0 (whose len - 1 alone has the top bit:
	 * lengths are below 2^56); then at least 4 bits */
	__u64 x = len - 1;

	x &= (x >> 63) - 1;
	return vg_om_width(x | ((1ull << VG_OM_MIN_LEVEL) - 1));
}

/* the home bucket of key (k, g): splitmix64's finalizer, so that the
 * granules of one heap, in arithmetic progression, spread */
VG_OM_INLINE __u32 vg_om_hash(__u32 k, __u64 g)
{
	__u64 h = (g * 0x9e3779b97f4a7c15ull) ^
		  ((__u64)(k + 1) * 0xd6e8feb86659fd93ull);

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return (__u32)((h ^ (h >> 31)) >> 32);
}

VG_OM_INLINE __u32 vg_om_home(__u64 base, __u64 len, __u32 mask)
{
	__u32 k = vg_om_level(len);

	return vg_om_hash(k, base >> k) & mask;
}

/* a block of length 0 (malloc(0)) holds its base only, so that it is
 * found, freeable, and valid for no byte */
VG_OM_INLINE int vg_om_holds(__u64 base, __u64 len, __u64 p)
{
	return p - base < len + ((len - 1) >> 63);	/* len, or 1 for 0 */
}

/* the element of bucket i (element 0 is the header) */
#define VG_OM_BUCKET(m, mask, i) VG_OM_ELEM(m, 1 + ((i) & (mask)))

/* --- entries ------------------------------------------------------------ */

struct vg_om_snap {
	__u32 seq, site;
	__u64 base, lk;
};

/* A consistent copy of e (the seqlock's read side): 1, or 0 when it is
 * being written or changed while read */
VG_OM_INLINE int vg_om_read(struct vg_om_entry *e, struct vg_om_snap *s)
{
	/* acquire loads: the second read of seq comes after the fields'
	 * (free on x86-64; a fence, the textbook's, ThreadSanitizer cannot
	 * follow) */
	s->seq = VG_OM_LOAD_ACQ(e->seq);
	s->site = VG_OM_LOAD_ACQ(e->site);
	s->base = VG_OM_LOAD_ACQ(e->base);
	s->lk = VG_OM_LOAD_ACQ(e->lk);
	return !(s->seq & 1) && VG_OM_LOAD(e->seq) == s->seq;
}

/* Take e if its sequence is still seq (nothing changed since it was read):
 * the writer's lock, one try; the callers' loops bound the retries */
VG_OM_INLINE int vg_om_take(struct vg_om_entry *e, __u32 seq)
{
	return VG_OM_CAS(e->seq, seq, seq + 1) == seq;
}

VG_OM_INLINE void vg_om_give(struct vg_om_entry *e, __u32 seq)
{
	VG_OM_STORE_REL(e->seq, seq + 2);
}

/* Widen a lost range [*lo, *hi) to hold [base, end): one compare-and-swap
 * each (BPF has no atomic min or max), and when another writer changed it
 * meanwhile, to everything, by an AND with 0 and an OR with all ones:
 * wider is never a lie, and losses are rare */
VG_OM_INLINE void vg_om_widen(__u64 *lo, __u64 *hi, __u64 base, __u64 end)
{
	__u64 c = VG_OM_LOAD(*lo);

	if (c > base && VG_OM_CAS(*lo, c, base) != c)
		__sync_fetch_and_and(lo, 0);
	c = VG_OM_LOAD(*hi);
	if (c < end && VG_OM_CAS(*hi, c, end) != c)
		__sync_fetch_and_or(hi, ~0ull);
}

VG_OM_INLINE __u64 vg_om_end(__u64 base, __u64 len)
{
	__u64 end = base + (len ? len : 1);

	return end < base ? ~0ull : end;
}

/* what the map could not hold: objects (freed 0) or freed blocks */
VG_OM_INLINE void vg_om_lost(struct vg_objmap *m, __u64 base, __u64 len,
			     int freed)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);

	if (!h)
		return;
	if (freed)
		vg_om_widen(&h->h.freed_lo, &h->h.freed_hi, base,
			    vg_om_end(base, len));
	else
		vg_om_widen(&h->h.live_lo, &h->h.live_hi, base,
			    vg_om_end(base, len));
}

VG_OM_INLINE void vg_om_count(struct vg_objmap *m, __u32 c)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);

	if (h && c < VG_OMC_N)
		VG_OM_ADD(h->h.cnt[c], 1);
}

VG_OM_INLINE int vg_om_in(__u64 lo, __u64 hi, __u64 p)
{
	return lo <= p && p < hi;
}

/* One past level k, the next level in use, or 0 when none */
VG_OM_INLINE __u32 vg_om_next_level(__u64 levels, __u32 k)
{
	__u64 x;

	if (k >= VG_OM_MAX_LEVEL)
		return 0;
	x = levels >> (k + 1);
	return x ? k + 1 + vg_om_ctz(x) : 0;
}

VG_OM_INLINE __u64 vg_om_levels(union vg_om_elem *h)
{
	/* only the levels an entry can have */
	return VG_OM_LOAD(h->h.levels) &
	       (((2ull << VG_OM_MAX_LEVEL) - 1) & ~((1ull << VG_OM_MIN_LEVEL) - 1));
}

/* --- lookup ------------------------------------------------------------ */

/* A lookup's cursor: level k, granule (p >> k) - d, bucket home + j. What
 * it found is kept as read (lk, not the kind tested from it): a kind the
 * verifier knew on each path would be a state of its own in every step. */
struct vg_om_find {
	struct vg_objmap *m;
	__u64 p, levels;
	__u32 mask, k, d, j, home, over;
	__u32 torn, done, visits;
	__u32 pools;		/* pool blocks may be inside objects */
	__u32 no_pool;		/* pool blocks are not looked for */
	__u32 site, alt_site;
	__u64 base, lk;		/* an object holding p (lk 0: none) */
	__u64 alt_base, alt_lk;	/* else: a freed block, else an arena */
};

/* on to the next bucket; 1 when there is none */
VG_OM_INLINE int vg_om_find_next(struct vg_om_find *f)
{
	if (f->over && f->j + 1 < VG_OM_WINDOW) {
		f->j++;
		return 0;
	}
	f->j = 0;
	if (!f->d && (f->p >> f->k)) {
		f->d = 1;
		return 0;
	}
	f->d = 0;
	/* an object met at this level, no pool block inside it here: a
	 * pool block inside it is of its level or below, seen by now */
	if (f->lk) {
		f->done = 1;
		return 1;
	}
	f->k = vg_om_next_level(f->levels, f->k);
	f->done = !f->k;
	return f->done;
}

VG_OM_INLINE void vg_om_fill(struct vg_om_obj *o, __u64 base, __u64 lk,
			     __u32 site)
{
	o->base = base;
	o->len = lk & VG_OM_LEN_MASK;
	o->kind = (__u32)(lk >> VG_OM_LEN_BITS);
	o->site = site;
}

/* One bucket: an object holding p ends the lookup (objects do not
 * overlap: it is the one); a freed block or an arena is remembered.
 * Once the map has pool blocks, an object that is not one is kept and
 * its level read to its end: a pool block there holding p is inside it
 * (levels are read smallest first, and a block inside another is of its
 * level or below), and is the answer: the innermost object */
static int vg_om_find_step(__u32 i __attribute__((unused)), void *ctx)
{
#ifdef VG_OM_FIND_SCRATCH
	struct vg_om_find *f = *(struct vg_om_find **)ctx;
#else
	struct vg_om_find *f = ctx;
#endif
	union vg_om_elem *el;
	struct vg_om_snap s;
	int torn = 0;

	if (!f->j)
		f->home = vg_om_hash(f->k, (f->p >> f->k) - f->d) & f->mask;
	el = VG_OM_BUCKET(f->m, f->mask, f->home + f->j);
	if (!el) {
		f->torn = 1;
		return 1;
	}
	if (!f->j)
		f->over = VG_OM_LOAD(el->b.over);
	f->visits++;
	VG_OM_UNROLL
	for (int w = 0; w < VG_OM_WAYS; w++) {
		__u32 kind;

		if (!vg_om_read(&el->b.e[w], &s)) {
			torn = 1;
			continue;
		}
		kind = (__u32)(s.lk >> VG_OM_LEN_BITS);
		if (!kind || !vg_om_holds(s.base, s.lk & VG_OM_LEN_MASK, f->p))
			continue;
		if (kind == VG_OM_POOL && f->no_pool)
			continue;
		if (vg_om_is_object(kind)) {
			f->base = s.base;
			f->lk = s.lk;
			f->site = s.site;
			if (kind == VG_OM_POOL || !f->pools) {
				f->done = 1;
				return 1;
			}
			continue;
		}
		if (kind == VG_OM_FREED || !f->alt_lk) {
			f->alt_base = s.base;
			f->alt_lk = s.lk;
			f->alt_site = s.site;
		}
	}
	/* being written: read it again, as long as the loop's steps last
	 * (VG_OM_RETRIES more than a lookup needs); a lookup that runs out
	 * answers unknown. No counter of its own: the verifier would tell
	 * each of its values apart (bpf_loop callbacks are checked until
	 * their states converge) */
	if (torn)
		return 0;
	return vg_om_find_next(f);
}

/* (In BPF the includer may keep the cursor in a per-CPU map rather than
 * on a deep call chain's stack, which Linux 6.1 counts whole against 512
 * bytes: VG_OM_FIND_SCRATCH(), its struct vg_om_find, or NULL; the loop's
 * context is then a pointer to it, on the stack as bpf_loop wants.)
 *
 * The object holding p: VG_OM_FOUND and *out (an object, the innermost
 * one: a pool block before the block it was carved from; else a freed
 * block, else an arena), VG_OM_NONE, or VG_OM_UNKNOWN (p is where the map
 * lost an object, or an entry could not be read: absence proves nothing).
 * out->flags has VG_OM_MAYBE_FREED when p is not known to be in a freed
 * block but may be; out->visits counts the buckets read. With no_pool,
 * as if no pool block were filed (free(p) asks of malloc's blocks). */
VG_OM_INLINE int vg_om_lookup_as(struct vg_objmap *m, __u64 p,
				 struct vg_om_obj *out, __u32 no_pool)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);
	struct vg_om_find *f;
	__u64 lo, hi;
#ifdef VG_OM_FIND_SCRATCH
	void *lctx = &f;
#else
	struct vg_om_find fs = {};
	void *lctx = f = &fs;
#endif

	out->base = out->len = 0;
	out->kind = out->site = out->flags = out->visits = 0;
	if (!h || VG_OM_LOAD_ACQ(h->h.magic) != VG_OM_MAGIC)
		return VG_OM_UNKNOWN;
#ifdef VG_OM_FIND_SCRATCH
	if (!(f = VG_OM_FIND_SCRATCH()))
		return VG_OM_UNKNOWN;
	__builtin_memset(f, 0, sizeof(*f));
#endif
	f->m = m;
	f->p = p;
	/* a pool block where a freed heap block's were not all taken out
	 * may be one of those: not believed */
	f->no_pool = no_pool || vg_om_in(VG_OM_LOAD(h->h.pool_doubt_lo),
					 VG_OM_LOAD(h->h.pool_doubt_hi), p);
	f->pools = !f->no_pool && VG_OM_LOAD(h->h.pools);
	f->mask = VG_OM_LOAD(h->h.mask);
	f->levels = vg_om_levels(h);
	if (f->levels) {
		f->k = vg_om_ctz(f->levels);
		VG_OM_LOOP(VG_OM_FIND_STEPS, vg_om_find_step, lctx);
	} else {
		f->done = 1;
	}
	out->visits = f->visits;
	if (f->lk) {
		vg_om_fill(out, f->base, f->lk, f->site);
		return VG_OM_FOUND;
	}
	if (!f->done)
		f->torn = 1;
	if (f->torn)
		vg_om_count(m, VG_OMC_TORN);
	/* after the entries: an eviction widens the range first */
	lo = VG_OM_LOAD(h->h.live_lo);
	hi = VG_OM_LOAD(h->h.live_hi);
	if (f->torn || vg_om_in(lo, hi, p))
		return VG_OM_UNKNOWN;
	if (f->alt_lk)
		vg_om_fill(out, f->alt_base, f->alt_lk, f->alt_site);
	lo = VG_OM_LOAD(h->h.freed_lo);
	hi = VG_OM_LOAD(h->h.freed_hi);
	if (out->kind != VG_OM_FREED && vg_om_in(lo, hi, p))
		out->flags |= VG_OM_MAYBE_FREED;
	return out->kind ? VG_OM_FOUND : VG_OM_NONE;
}

VG_OM_INLINE int vg_om_lookup(struct vg_objmap *m, __u64 p,
			      struct vg_om_obj *out)
{
	return vg_om_lookup_as(m, p, out, 0);
}

/* --- insert ------------------------------------------------------------ */

/* An insert: three passes over its window, each for one class of slot
 * (vg_om_class), best first, taking the first slot of its class where it
 * finds it: the entry and its index stay constants of the unrolled code,
 * not values the verifier would tell apart in every later step. */
struct vg_om_put {
	struct vg_objmap *m;
	__u64 base, len, lk;
	__u32 site, kind, mask, home, j, over;
	__u32 want;		/* the pass: the class it looks for, 3 to 1 */
	int res;
};

/* 3: an entry at this base (the block given out again; not the live
 * object a pool block is carved from at its start); 2: an empty slot,
 * or a freed block the new object covers; 1: a freed block to evict */
VG_OM_INLINE __u32 vg_om_class(struct vg_om_put *u, struct vg_om_snap *s)
{
	__u32 kind = (__u32)(s->lk >> VG_OM_LEN_BITS);
	__u64 len = s->lk & VG_OM_LEN_MASK;

	if (!kind)
		return 2;
	if (s->base == u->base &&
	    (kind == VG_OM_ARENA) == (u->kind == VG_OM_ARENA) &&
	    !(u->kind == VG_OM_POOL && kind != VG_OM_POOL &&
	      vg_om_is_object(kind)))
		return 3;
	if (kind != VG_OM_FREED)
		return 0;
	if (vg_om_is_object(u->kind) && s->base >= u->base &&
	    vg_om_end(s->base, len) <= vg_om_end(u->base, u->len))
		return 2;
	return 1;
}

/* Write the entry into slot e of bucket `at`, taken (its lock held),
 * over what was there (s) */
VG_OM_INLINE void vg_om_put_write(struct vg_om_put *u, struct vg_om_entry *e,
				  struct vg_om_snap *s, __u32 at)
{
	__u32 kind = (__u32)(s->lk >> VG_OM_LEN_BITS), oh;
	__u64 len = s->lk & VG_OM_LEN_MASK;

	/* what goes is freed memory the new entry does not cover (or a
	 * live block whose free was never seen): say so before it goes */
	if ((kind == VG_OM_FREED || vg_om_is_object(kind)) &&
	    !(vg_om_is_object(u->kind) && s->base >= u->base &&
	      vg_om_end(s->base, len) <= vg_om_end(u->base, u->len)))
		vg_om_lost(u->m, s->base, len, 1);
	if (u->want == 1)
		vg_om_count(u->m, VG_OMC_EVICTED);
	if (vg_om_is_object(kind))
		vg_om_count(u->m, VG_OMC_STALE);
	if (at != u->home) {
		/* away from home: the home says so before it is seen */
		union vg_om_elem *hb = VG_OM_BUCKET(u->m, u->mask, u->home);

		if (hb)
			VG_OM_ADD(hb->b.over, 1);
	}
	VG_OM_STORE(e->base, u->base);
	VG_OM_STORE(e->site, u->site);
	VG_OM_STORE(e->lk, u->lk);
	vg_om_give(e, s->seq);
	if (kind) {
		/* the entry replaced no longer sits away from its home */
		oh = vg_om_home(s->base, len, u->mask);
		if (oh != at) {
			union vg_om_elem *ob = VG_OM_BUCKET(u->m, u->mask, oh);

			if (ob)
				VG_OM_ADD(ob->b.over, (__u32)-1);
		}
	}
}

static int vg_om_put_step(__u32 i __attribute__((unused)), void *ctx)
{
	struct vg_om_put *u = ctx;
	union vg_om_elem *el;
	struct vg_om_snap s;
	__u32 at = (u->home + u->j) & u->mask;

	el = VG_OM_BUCKET(u->m, u->mask, at);
	if (!el) {
		u->res = VG_OM_ENOROOM;
		return 1;
	}
	if (!u->j && u->want == 3)
		u->over = VG_OM_LOAD(el->b.over);
	VG_OM_UNROLL
	for (int w = 0; w < VG_OM_WAYS; w++) {
		if (!vg_om_read(&el->b.e[w], &s))
			continue;	/* another writer's: not for us */
		if (vg_om_class(u, &s) != u->want)
			continue;
		if (!vg_om_take(&el->b.e[w], s.seq)) {
			/* written since read: all passes again, as long as
			 * the loop's steps last (then VG_OM_EBUSY) */
			u->j = 0;
			u->want = 3;
			return 0;
		}
		vg_om_put_write(u, &el->b.e[w], &s, at);
		u->res = 0;
		return 1;
	}
	/* an entry at this base is in the home bucket or, if the home sent
	 * entries on, in the window; room and freed blocks anywhere in it */
	if (u->j + 1 < VG_OM_WINDOW && (u->want < 3 || u->over)) {
		u->j++;
		return 0;
	}
	u->j = 0;
	if (!--u->want) {
		u->res = VG_OM_ENOROOM;
		return 1;
	}
	return 0;
}

/* File [base, base + len) of kind (enum vg_om_kind) from site: 0, or
 * VG_OM_ENOROOM / VG_OM_EBUSY (counted; the map's lost range now holds
 * it), VG_OM_EINIT. An entry at the same base is replaced. */
VG_OM_INLINE int vg_om_insert(struct vg_objmap *m, __u64 base, __u64 len,
			      __u32 kind, __u32 site)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);
	struct vg_om_put u = {};
	__u32 k;

	if (!h || VG_OM_LOAD_ACQ(h->h.magic) != VG_OM_MAGIC || !kind ||
	    kind >= VG_OM_NKINDS)
		return VG_OM_EINIT;
	u.res = VG_OM_EBUSY;
	if (len > VG_OM_LEN_MASK) {
		u.res = VG_OM_ENOROOM;
		goto lost;
	}
	k = vg_om_level(len);
	if (!(VG_OM_LOAD(h->h.levels) & (1ull << k)))
		__sync_fetch_and_or(&h->h.levels, 1ull << k);
	/* before the entry is published, as levels */
	if (kind == VG_OM_POOL && !(VG_OM_LOAD(h->h.pools) & (1ull << k)))
		__sync_fetch_and_or(&h->h.pools, 1ull << k);
	u.m = m;
	u.base = base;
	u.len = len;
	u.lk = len | (__u64)kind << VG_OM_LEN_BITS;
	u.site = site;
	u.kind = kind;
	u.mask = VG_OM_LOAD(h->h.mask);
	u.home = vg_om_hash(k, base >> k) & u.mask;
	u.want = 3;
	VG_OM_LOOP(VG_OM_PUT_STEPS, vg_om_put_step, &u);
	if (!u.res)
		return 0;
lost:
	vg_om_count(m, u.res == VG_OM_ENOROOM ? VG_OMC_LOST : VG_OMC_BUSY);
	vg_om_lost(m, base, len, kind == VG_OM_FREED);
	return u.res;
}

/* --- free and remove --------------------------------------------------- */

/* The search of an entry by its base: one key (k, base >> k) a level */
struct vg_om_del {
	struct vg_objmap *m;
	__u64 base, levels;
	__u32 mask, k, j, home, over, want, to;
	__u32 dry;	/* only find it (vg_om_has) */
	int res;
};

VG_OM_INLINE int vg_om_del_next(struct vg_om_del *d)
{
	if (d->over && d->j + 1 < VG_OM_WINDOW) {
		d->j++;
		return 0;
	}
	d->j = 0;
	d->k = vg_om_next_level(d->levels, d->k);
	if (!d->k)
		d->res = 0;	/* in no level: not here */
	return !d->k;
}

/* The entry found, taken: turned into kind `to`, or emptied (to 0) */
VG_OM_INLINE void vg_om_del_write(struct vg_om_del *d, struct vg_om_entry *e,
				  struct vg_om_snap *s)
{
	__u64 len = s->lk & VG_OM_LEN_MASK;
	__u32 oh;

	if (d->to) {
		VG_OM_STORE(e->lk, len | (__u64)d->to << VG_OM_LEN_BITS);
		vg_om_give(e, s->seq);
		return;
	}
	VG_OM_STORE(e->lk, 0);
	VG_OM_STORE(e->base, 0);
	VG_OM_STORE(e->site, 0);
	vg_om_give(e, s->seq);
	/* gone: its home no longer sends a lookup here for it */
	oh = vg_om_home(s->base, len, d->mask);
	if (oh != ((d->home + d->j) & d->mask)) {
		union vg_om_elem *ob = VG_OM_BUCKET(d->m, d->mask, oh);

		if (ob)
			VG_OM_ADD(ob->b.over, (__u32)-1);
	}
}

static int vg_om_del_step(__u32 i __attribute__((unused)), void *ctx)
{
	struct vg_om_del *d = ctx;
	union vg_om_elem *el;
	struct vg_om_snap s;

	if (!d->j)
		d->home = vg_om_hash(d->k, d->base >> d->k) & d->mask;
	el = VG_OM_BUCKET(d->m, d->mask, d->home + d->j);
	if (!el)
		return 1;
	if (!d->j)
		d->over = VG_OM_LOAD(el->b.over);
	VG_OM_UNROLL
	for (int w = 0; w < VG_OM_WAYS; w++) {
		__u32 kind;

		/* an entry being written is not this one: only an operation
		 * at this same base would write it */
		if (!vg_om_read(&el->b.e[w], &s))
			continue;
		kind = (__u32)(s.lk >> VG_OM_LEN_BITS);
		if (!kind || s.base != d->base || (d->want && kind != d->want))
			continue;
		if (d->dry) {
			d->res = 1;
			return 1;
		}
		if (!vg_om_take(&el->b.e[w], s.seq))
			return 0;	/* changed under us: this bucket again */
		vg_om_del_write(d, &el->b.e[w], &s);
		d->res = 1;
		return 1;
	}
	return vg_om_del_next(d);
}

VG_OM_INLINE int vg_om_del_as(struct vg_objmap *m, __u64 base, __u32 want,
			      __u32 to, __u32 dry)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);
	struct vg_om_del d = {};

	if (!h || VG_OM_LOAD_ACQ(h->h.magic) != VG_OM_MAGIC)
		return VG_OM_EINIT;
	d.m = m;
	d.base = base;
	d.want = want;
	d.to = to;
	d.dry = dry;
	d.mask = VG_OM_LOAD(h->h.mask);
	d.levels = vg_om_levels(h);
	if (!d.levels)
		return 0;
	d.k = vg_om_ctz(d.levels);
	d.res = VG_OM_EBUSY;	/* until found or not found */
	VG_OM_LOOP(VG_OM_DEL_STEPS, vg_om_del_step, &d);
	if (d.res == VG_OM_EBUSY && !dry)
		vg_om_count(m, VG_OMC_BUSY);
	return d.res;
}

VG_OM_INLINE int vg_om_del(struct vg_objmap *m, __u64 base, __u32 want,
			   __u32 to)
{
	return vg_om_del_as(m, base, want, to, 0);
}

/* Is an entry of kind want at exactly base? 1; else 0 or another code
 * (an entry being written is not seen: ask vg_om_lookup then). One key
 * a level, as a free's removal reads them, where a lookup of an interior
 * pointer reads two: the question free(p) asks first. */
VG_OM_INLINE int vg_om_has(struct vg_objmap *m, __u64 base, __u32 want)
{
	return vg_om_del_as(m, base, want, 0, 1);
}

/* free(base): the live heap block there becomes a freed one, in place
 * (never short of room). 1, 0 when there is none (an invalid free, or a
 * block the map lost: vg_om_lookup says which), VG_OM_EBUSY (counted:
 * cannot happen but for two frees of one block at once) */
VG_OM_INLINE int vg_om_free(struct vg_objmap *m, __u64 base)
{
	return vg_om_del(m, base, VG_OM_HEAP, VG_OM_FREED);
}

/* The program's own allocator took back the pool block at base: a freed
 * block, as vg_om_free's (where the block it was carved from is live,
 * that block answers for its bytes again) */
VG_OM_INLINE int vg_om_pool_free(struct vg_objmap *m, __u64 base)
{
	return vg_om_del(m, base, VG_OM_POOL, VG_OM_FREED);
}

/* The entry of kind (0: any) at base goes: a library's globals when it is
 * unloaded, an arena given back, a freed block reused. 1, 0, VG_OM_EBUSY */
VG_OM_INLINE int vg_om_remove(struct vg_objmap *m, __u64 base, __u32 kind)
{
	return vg_om_del(m, base, kind, 0);
}

/* What the map never saw (a process attached to after it allocated):
 * lookups in [base, base + len) that find no object answer unknown */
VG_OM_INLINE void vg_om_mark_lost(struct vg_objmap *m, __u64 base,
				  __u64 len)
{
	vg_om_lost(m, base, len, 0);
}

#ifndef __bpf__
/* The map's bytes for nbuckets buckets (its max_entries: nbuckets + 1) */
static inline __u64 vg_om_size(__u64 nbuckets)
{
	return (nbuckets + 1) * sizeof(union vg_om_elem);
}

/* Set up a zeroed map of nbuckets buckets (a power of two, at least 2)
 * before any program uses it: 0, or -1 for a bad count */
static inline int vg_om_init(struct vg_objmap *m, __u64 nbuckets)
{
	struct vg_om_hdr *h = &m->hdr.h;

	if (nbuckets < 2 || (nbuckets & (nbuckets - 1)) ||
	    nbuckets > (1ull << 31))
		return -1;
	h->mask = (__u32)(nbuckets - 1);
	h->levels = 0;
	h->pools = 0;
	h->pool_doubt_lo = ~0ull;
	h->pool_doubt_hi = 0;
	h->live_lo = h->freed_lo = ~0ull;
	h->live_hi = h->freed_hi = 0;
	for (int i = 0; i < VG_OMC_N; i++)
		h->cnt[i] = 0;
	h->complete = 0;
	h->hints = 0;
	/* last: the map is used once this is seen */
	__atomic_store_n(&h->magic, VG_OM_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

/* The map saw (on: 1) every allocation of its process from its start,
 * or not (0: the default); vigil says so before the agent runs */
static inline void vg_om_set_complete(struct vg_objmap *m, int on)
{
	__atomic_store_n(&m->hdr.h.complete, on ? 1 : 0, __ATOMIC_RELEASE);
}
#endif

#endif
