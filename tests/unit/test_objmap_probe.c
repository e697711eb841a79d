/* The object map (include/vigil_objmap.h), its user-space build, against a
 * reference that keeps every block in plain arrays: random allocations of
 * 1 byte to 1 GB, frees, blocks given out again at a freed base, globals,
 * an arena; lookups of interior pointers, ends and neighbours. With room,
 * the answers must be the reference's exactly; with a map too small,
 * every answer must still be true (an object found is the object, "none"
 * is none) and "unknown" only where the map says it lost something. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <pthread.h>

#include <cmocka.h>

#include "vigil_objmap.h"
#include "vigil_objmap_heap.h"

#define MAXB 4096

struct blk {
	uint64_t base, len;
	uint32_t kind, site;
};

struct ref {
	struct blk live[MAXB];		/* objects and arenas */
	int nlive;
	struct blk freed[MAXB];		/* every block freed, oldest first */
	int nfreed;
};

static uint64_t rnd_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static struct vg_objmap *map_new(uint64_t nbuckets)
{
	struct vg_objmap *m = calloc(1, vg_om_size(nbuckets));

	assert_non_null(m);
	assert_int_equal(vg_om_init(m, nbuckets), 0);
	return m;
}

static int holds(const struct blk *b, uint64_t p)
{
	return p - b->base < (b->len ? b->len : 1);
}

/* the object of the reference holding p (objects do not overlap) */
static const struct blk *ref_object(const struct ref *r, uint64_t p)
{
	for (int i = 0; i < r->nlive; i++)
		if (vg_om_is_object(r->live[i].kind) && holds(&r->live[i], p))
			return &r->live[i];
	return NULL;
}

static int ref_overlaps(const struct ref *r, uint64_t base, uint64_t len)
{
	for (int i = 0; i < r->nlive; i++) {
		const struct blk *b = &r->live[i];
		uint64_t bl = b->len ? b->len : 1, l = len ? len : 1;

		if (vg_om_is_object(b->kind) && base < b->base + bl &&
		    b->base < base + l)
			return 1;
	}
	return 0;
}

static int ref_freed_has(const struct ref *r, uint64_t base, uint64_t len,
			 uint64_t p)
{
	for (int i = 0; i < r->nfreed; i++)
		if (r->freed[i].base == base && r->freed[i].len == len &&
		    holds(&r->freed[i], p))
			return 1;
	return 0;
}

static int ref_in_freed(const struct ref *r, uint64_t p)
{
	for (int i = 0; i < r->nfreed; i++)
		if (holds(&r->freed[i], p))
			return 1;
	return 0;
}

static int ref_in_arena(const struct ref *r, uint64_t p)
{
	for (int i = 0; i < r->nlive; i++)
		if (r->live[i].kind == VG_OM_ARENA && holds(&r->live[i], p))
			return 1;
	return 0;
}

/* Every answer true; exact (no unknown, no maybe) when the map lost
 * nothing. Returns the answer. */
static int check(struct vg_objmap *m, const struct ref *r, uint64_t p,
		 int exact)
{
	const struct vg_om_hdr *h = &m->hdr.h;
	const struct blk *o = ref_object(r, p);
	struct vg_om_obj got;
	int res = vg_om_lookup(m, p, &got);

	assert_true(got.visits <= VG_OM_FIND_STEPS);
	if (res == VG_OM_FOUND && vg_om_is_object(got.kind)) {
		assert_non_null(o);
		assert_int_equal(got.base, o->base);
		assert_int_equal(got.len, o->len);
		assert_int_equal(got.kind, o->kind);
		assert_int_equal(got.site, o->site);
		return res;
	}
	if (res == VG_OM_UNKNOWN) {
		/* only where an object was lost */
		assert_false(exact);
		assert_true(h->live_lo <= p && p < h->live_hi);
		return res;
	}
	/* no object: the reference must have none either */
	if (o)
		fail_msg("%#lx is in [%#lx, +%lu) but the map says %d kind %u",
			 (unsigned long)p, (unsigned long)o->base,
			 (unsigned long)o->len, res, got.kind);
	if (res == VG_OM_FOUND && got.kind == VG_OM_FREED) {
		assert_true(ref_freed_has(r, got.base, got.len, p));
		return res;
	}
	if (res == VG_OM_FOUND)
		assert_int_equal(got.kind, VG_OM_ARENA);
	if (res == VG_OM_FOUND)
		assert_true(ref_in_arena(r, p));
	else
		assert_false(exact && ref_in_arena(r, p));
	/* in a freed block the map does not know of: it must say so */
	if (ref_in_freed(r, p))
		assert_true(got.flags & VG_OM_MAYBE_FREED);
	return res;
}

/* `over` of each bucket is the count of its entries elsewhere */
static void check_over(struct vg_objmap *m)
{
	uint32_t mask = m->hdr.h.mask;
	uint32_t *want = calloc(mask + 1, sizeof(*want));

	for (uint32_t b = 0; b <= mask; b++)
		for (int w = 0; w < VG_OM_WAYS; w++) {
			struct vg_om_entry *e = &m->b[b].b.e[w];
			uint32_t home;

			if (!e->lk)
				continue;
			assert_int_equal(e->seq & 1, 0);
			home = vg_om_home(e->base, e->lk & VG_OM_LEN_MASK, mask);
			assert_true(((b - home) & mask) < VG_OM_WINDOW);
			if (home != b)
				want[home]++;
		}
	for (uint32_t b = 0; b <= mask; b++)
		assert_int_equal(m->b[b].b.over, want[b]);
	free(want);
}

static void test_levels(void **state)
{
	(void)state;
	assert_int_equal(vg_om_level(0), 4);
	assert_int_equal(vg_om_level(1), 4);
	assert_int_equal(vg_om_level(16), 4);
	assert_int_equal(vg_om_level(17), 5);
	assert_int_equal(vg_om_level(32), 5);
	assert_int_equal(vg_om_level(33), 6);
	assert_int_equal(vg_om_level(1ull << 30), 30);
	assert_int_equal(vg_om_level((1ull << 30) + 1), 31);
	assert_int_equal(vg_om_level(VG_OM_LEN_MASK), 56);
	assert_int_equal(vg_om_ctz(1), 0);
	assert_int_equal(vg_om_ctz(1ull << 63), 63);
	assert_int_equal(vg_om_ctz(0x50), 4);
	assert_int_equal(vg_om_width(0), 0);
	assert_int_equal(vg_om_width(~0ull), 64);
	assert_int_equal(vg_om_nbuckets(1000), 512);
	{
		struct vg_objmap *m = map_new(2);

		assert_int_equal(vg_om_init(m, 3), -1);
		free(m);
	}
}

static void test_basic(void **state)
{
	struct vg_objmap *m = map_new(64);
	struct vg_om_obj o;

	(void)state;
	assert_int_equal(vg_om_lookup(m, 0x1000, &o), VG_OM_NONE);
	assert_int_equal(vg_om_insert(m, 0x1000, 40, VG_OM_HEAP, 7), 0);
	assert_int_equal(vg_om_insert(m, 0x2000, 0, VG_OM_HEAP, 8), 0);
	assert_int_equal(vg_om_insert(m, 0x10000000, 1ull << 30, VG_OM_HEAP, 9), 0);
	assert_int_equal(vg_om_insert(m, 0x3001, 1, VG_OM_RODATA, 10), 0);
	/* interior, last byte, one past, one before */
	assert_int_equal(vg_om_lookup(m, 0x1013, &o), VG_OM_FOUND);
	assert_int_equal(o.base, 0x1000);
	assert_int_equal(o.len, 40);
	assert_int_equal(o.site, 7);
	assert_int_equal(vg_om_lookup(m, 0x1027, &o), VG_OM_FOUND);
	assert_int_equal(vg_om_lookup(m, 0x1028, &o), VG_OM_NONE);
	assert_int_equal(vg_om_lookup(m, 0xfff, &o), VG_OM_NONE);
	/* malloc(0): its base only */
	assert_int_equal(vg_om_lookup(m, 0x2000, &o), VG_OM_FOUND);
	assert_int_equal(o.len, 0);
	assert_int_equal(vg_om_lookup(m, 0x2001, &o), VG_OM_NONE);
	/* a gigabyte, deep inside: another granule than its base's */
	assert_int_equal(vg_om_lookup(m, 0x10000000 + (3ull << 28) + 5, &o),
			 VG_OM_FOUND);
	assert_int_equal(o.base, 0x10000000);
	assert_int_equal(vg_om_lookup(m, 0x3001, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_RODATA);
	assert_int_equal(vg_om_lookup(m, 0x3002, &o), VG_OM_NONE);
	/* free: freed, in place; a second free finds no live block */
	assert_int_equal(vg_om_free(m, 0x1000), 1);
	assert_int_equal(vg_om_free(m, 0x1000), 0);
	assert_int_equal(vg_om_free(m, 0x3001), 0);	/* not heap */
	assert_int_equal(vg_om_lookup(m, 0x1010, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_FREED);
	/* given out again, shorter (another level): the object, and the
	 * freed block's rest still freed */
	assert_int_equal(vg_om_insert(m, 0x1000, 16, VG_OM_HEAP, 11), 0);
	assert_int_equal(vg_om_lookup(m, 0x1008, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_HEAP);
	assert_int_equal(o.site, 11);
	assert_int_equal(vg_om_lookup(m, 0x1020, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_FREED);
	assert_int_equal(o.base, 0x1000);
	/* at the same level the entry is replaced: the rest is "maybe
	 * freed", and far from it nothing is */
	assert_int_equal(vg_om_insert(m, 0x4000, 64, VG_OM_HEAP, 12), 0);
	assert_int_equal(vg_om_free(m, 0x4000), 1);
	assert_int_equal(vg_om_insert(m, 0x4000, 33, VG_OM_HEAP, 13), 0);
	assert_int_equal(vg_om_lookup(m, 0x4030, &o), VG_OM_NONE);
	assert_true(o.flags & VG_OM_MAYBE_FREED);
	assert_int_equal(vg_om_lookup(m, 0x8000, &o), VG_OM_NONE);
	assert_false(o.flags & VG_OM_MAYBE_FREED);
	assert_int_equal(vg_om_remove(m, 0x3001, VG_OM_HEAP), 0);
	assert_int_equal(vg_om_remove(m, 0x3001, VG_OM_RODATA), 1);
	assert_int_equal(vg_om_lookup(m, 0x3001, &o), VG_OM_NONE);
	assert_int_equal(vg_om_insert(m, 1, VG_OM_LEN_MASK + 1, VG_OM_HEAP, 0),
			 VG_OM_ENOROOM);
	assert_int_equal(vg_om_insert(m, 1, 1, 0, 0), VG_OM_EINIT);
	check_over(m);
	free(m);
}

/* Pool blocks (VG_OM_POOL) carved from a heap block: the innermost
 * object answers, whatever order a bucket holds them in; a pool block at
 * the slab's base does not replace it; released, the slab answers */
static void test_pools(void **state)
{
	struct vg_objmap *m = map_new(64);
	struct vg_om_obj o;

	(void)state;
	assert_int_equal(vg_om_insert(m, 0x10000, 2048, VG_OM_HEAP, 1), 0);
	assert_int_equal(m->hdr.h.pools, 0);
	assert_int_equal(vg_om_insert(m, 0x10000, 32, VG_OM_POOL, 5), 0);
	assert_int_not_equal(m->hdr.h.pools, 0);
	assert_int_equal(vg_om_insert(m, 0x10020, 32, VG_OM_POOL, 5), 0);
	assert_int_equal(vg_om_lookup(m, 0x10010, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_POOL);
	assert_int_equal(o.base, 0x10000);
	assert_int_equal(o.len, 32);
	assert_int_equal(vg_om_lookup(m, 0x10030, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_POOL);
	assert_int_equal(o.base, 0x10020);
	assert_int_equal(vg_om_lookup(m, 0x10100, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_HEAP);
	assert_int_equal(o.len, 2048);
	/* the slab is still there at its base, for free(p) */
	assert_int_equal(vg_om_lookup_as(m, 0x10000, &o, 1), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_HEAP);
	assert_int_equal(o.len, 2048);
	/* one level for both, one key, one bucket, the slab in the earlier
	 * slot: the pool block still answers */
	assert_int_equal(vg_om_insert(m, 0x20000, 60, VG_OM_HEAP, 2), 0);
	assert_int_equal(vg_om_insert(m, 0x20004, 40, VG_OM_POOL, 6), 0);
	assert_int_equal(vg_om_lookup(m, 0x20010, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_POOL);
	assert_int_equal(o.base, 0x20004);
	assert_int_equal(vg_om_lookup(m, 0x20002, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_HEAP);
	assert_int_equal(vg_om_lookup(m, 0x20030, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_HEAP);
	/* released: the slab's bytes again; once only; free() does not
	 * take a pool block */
	assert_int_equal(vg_om_free(m, 0x10020), 0);
	assert_int_equal(vg_om_pool_free(m, 0x10020), 1);
	assert_int_equal(vg_om_pool_free(m, 0x10020), 0);
	assert_int_equal(vg_om_lookup(m, 0x10030, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_HEAP);
	assert_int_equal(o.base, 0x10000);
	/* given out again at that base: the pool block again */
	assert_int_equal(vg_om_insert(m, 0x10020, 32, VG_OM_POOL, 5), 0);
	assert_int_equal(vg_om_lookup(m, 0x10030, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_POOL);
	/* a range doubted (a slab freed whose blocks could not all be
	 * taken out): its pool blocks are not believed, elsewhere they are */
	vg_om_widen(&m->hdr.h.pool_doubt_lo, &m->hdr.h.pool_doubt_hi,
		    0x10000, 0x10800);
	assert_int_equal(vg_om_lookup(m, 0x10030, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_HEAP);
	assert_int_equal(o.len, 2048);
	assert_int_equal(vg_om_lookup(m, 0x20010, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_POOL);
	check_over(m);
	free(m);
}

#define HEAP_LO 0x10000000000ull
#define GLOB_LO 0x400000ull

/* a length from 1 byte to 1 GB, most of them small */
static uint64_t rnd_len(void)
{
	uint64_t bits = rnd() % 100 < 90 ? rnd() % 13 : rnd() % 31;

	return 1 + rnd() % (1ull << bits);
}

static void ref_add(struct ref *r, uint64_t base, uint64_t len, uint32_t kind,
		    uint32_t site)
{
	assert_true(r->nlive < MAXB);
	r->live[r->nlive++] = (struct blk){ base, len, kind, site };
}

/* One random operation on map and reference; *bump is the heap's top */
static void step(struct vg_objmap *m, struct ref *r, uint64_t *bump,
		 int exact, uint32_t *site)
{
	uint64_t roll = rnd() % 100, base, len;
	int res;

	if (roll < 35 && r->nlive < MAXB - 2) {
		/* malloc: at the top of the heap, or at a freed block's base */
		len = rnd_len();
		if (r->nfreed && rnd() % 3 == 0)
			base = r->freed[rnd() % r->nfreed].base;
		else
			base = *bump + (rnd() % 4) * 16;
		if (ref_overlaps(r, base, len))
			return;
		if (base + len > *bump)
			*bump = (base + len + 15) & ~15ull;
		res = vg_om_insert(m, base, len, VG_OM_HEAP, ++*site);
		if (exact)
			assert_int_equal(res, 0);
		/* lost: the reference has it all the same (and the map must
		 * then answer unknown there) */
		ref_add(r, base, len, VG_OM_HEAP, *site);
	} else if (roll < 60 && r->nlive && r->nfreed < MAXB - 2) {
		int i = (int)(rnd() % r->nlive);
		struct blk b = r->live[i];

		if (b.kind != VG_OM_HEAP)
			return;
		res = vg_om_free(m, b.base);
		if (exact)
			assert_int_equal(res, 1);
		r->live[i] = r->live[--r->nlive];
		r->freed[r->nfreed++] = b;
	} else {
		/* lookups: an object's inside, ends and neighbours, a freed
		 * block, anywhere in the heap */
		uint64_t p;

		if (r->nlive) {
			const struct blk *b = &r->live[rnd() % r->nlive];

			check(m, r, b->base, exact);
			check(m, r, b->base + (b->len ? rnd() % b->len : 0), exact);
			check(m, r, b->base + b->len - 1, exact);
			check(m, r, b->base + b->len, exact);
			check(m, r, b->base - 1, exact);
		}
		if (r->nfreed) {
			const struct blk *b = &r->freed[rnd() % r->nfreed];

			check(m, r, b->base + (b->len ? rnd() % b->len : 0), exact);
		}
		p = HEAP_LO + rnd() % (*bump - HEAP_LO + 64);
		check(m, r, p, exact);
	}
}

static void globals(struct vg_objmap *m, struct ref *r)
{
	static const uint64_t sizes[] = { 1, 1, 2, 4, 4, 8, 13, 16, 24, 4096 };
	uint64_t at = GLOB_LO;

	for (int i = 0; i < 40; i++) {
		uint64_t len = sizes[i % 10];
		uint32_t kind = i % 3 ? VG_OM_GLOBAL : VG_OM_RODATA;

		assert_int_equal(vg_om_insert(m, at, len, kind, 1000 + i), 0);
		ref_add(r, at, len, kind, 1000 + i);
		at += len;
	}
	for (uint64_t p = GLOB_LO - 2; p < at + 2; p++)
		check(m, r, p, 1);
}

static void test_random_exact(void **state)
{
	struct ref *r = calloc(1, sizeof(*r));
	/* room for everything at no more than half load */
	struct vg_objmap *m = map_new(vg_om_nbuckets(2 * MAXB));
	uint64_t bump = HEAP_LO;
	uint32_t site = 0;

	(void)state;
	rnd_state = 0x9e3779b97f4a7c15ull;
	globals(m, r);
	/* the heap's own range: a lookup between blocks finds it */
	assert_int_equal(vg_om_insert(m, HEAP_LO, 1ull << 40, VG_OM_ARENA, 0), 0);
	ref_add(r, HEAP_LO, 1ull << 40, VG_OM_ARENA, 0);
	for (int i = 0; i < 20000; i++)
		step(m, r, &bump, 1, &site);
	assert_int_equal(m->hdr.h.cnt[VG_OMC_LOST], 0);
	assert_int_equal(m->hdr.h.cnt[VG_OMC_BUSY], 0);
	assert_int_equal(m->hdr.h.cnt[VG_OMC_TORN], 0);
	check_over(m);
	free(m);
	free(r);
}

/* A map far too small: inserts fail, freed blocks are evicted, and no
 * answer lies */
static void test_random_small(void **state)
{
	struct ref *r = calloc(1, sizeof(*r));
	struct vg_objmap *m = map_new(16);
	uint64_t bump = HEAP_LO;
	uint32_t site = 0;
	int unknown = 0;

	(void)state;
	rnd_state = 0x5851f42d4c957f2dull;
	for (int i = 0; i < 20000; i++) {
		step(m, r, &bump, 0, &site);
		if (r->nlive && check(m, r, r->live[rnd() % r->nlive].base, 0) ==
				VG_OM_UNKNOWN)
			unknown++;
	}
	assert_true(m->hdr.h.cnt[VG_OMC_LOST] > 0);
	assert_true(m->hdr.h.cnt[VG_OMC_EVICTED] > 0);
	assert_true(unknown > 0);
	check_over(m);
	free(m);
	free(r);
}

/* Full: what fits is found, what did not is unknown, what is outside
 * every lost block's range is none */
static void test_full(void **state)
{
	struct vg_objmap *m = map_new(2);	/* 10 entries */
	struct vg_om_obj o;
	int ok[200], nok = 0;

	(void)state;
	for (int i = 0; i < 200; i++) {
		ok[i] = vg_om_insert(m, HEAP_LO + 64 * (uint64_t)i, 48,
				     VG_OM_HEAP, (uint32_t)i) == 0;
		nok += ok[i];
	}
	assert_true(nok >= 10 && nok < 200);
	assert_int_equal(m->hdr.h.cnt[VG_OMC_LOST], 200 - nok);
	for (int i = 0; i < 200; i++) {
		uint64_t b = HEAP_LO + 64 * (uint64_t)i;

		if (ok[i]) {
			assert_int_equal(vg_om_lookup(m, b + 47, &o), VG_OM_FOUND);
			assert_int_equal(o.base, b);
		} else {
			assert_int_equal(vg_om_lookup(m, b + 47, &o),
					 VG_OM_UNKNOWN);
		}
	}
	assert_int_equal(vg_om_lookup(m, HEAP_LO - 1, &o), VG_OM_NONE);
	assert_int_equal(vg_om_lookup(m, HEAP_LO + 64 * 200, &o), VG_OM_NONE);
	/* a process attached to late: its heap unknown until seen */
	vg_om_mark_lost(m, 0x5000, 0x1000);
	assert_int_equal(vg_om_lookup(m, 0x5fff, &o), VG_OM_UNKNOWN);
	assert_int_equal(vg_om_lookup(m, 0x4fff, &o), VG_OM_NONE);
	check_over(m);
	free(m);
}

/* Writers on two threads, a reader on a third: the reader's blocks,
 * filed before, are always found, whatever the writers do around them */
struct race {
	struct vg_objmap *m;
	uint64_t lo;
	int rounds;
	int wrong;
};

static void *writer(void *arg)
{
	struct race *a = arg;

	for (int i = 0; i < a->rounds; i++) {
		uint64_t b = a->lo + 32 * (uint64_t)(i % 512);

		vg_om_insert(a->m, b, 24, VG_OM_HEAP, 1);
		vg_om_free(a->m, b);
		if (i % 7 == 0)
			vg_om_remove(a->m, b, VG_OM_FREED);
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct race *a = arg;
	struct vg_om_obj o;

	for (int i = 0; i < a->rounds; i++) {
		uint64_t b = a->lo + 48 * (uint64_t)(i % 256);
		int res = vg_om_lookup(a->m, b + 40, &o);

		if (res == VG_OM_NONE || (res == VG_OM_FOUND && o.base != b))
			a->wrong++;
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct vg_objmap *m = map_new(256);
	struct race w1 = { m, HEAP_LO, 200000, 0 };
	struct race w2 = { m, HEAP_LO + 0x4000, 200000, 0 };
	struct race rd = { m, HEAP_LO + 0x8000, 200000, 0 };
	pthread_t t[3];

	(void)state;
	for (int i = 0; i < 256; i++)
		assert_int_equal(vg_om_insert(m, rd.lo + 48 * (uint64_t)i, 44,
					      VG_OM_GLOBAL, 2), 0);
	pthread_create(&t[0], NULL, writer, &w1);
	pthread_create(&t[1], NULL, writer, &w2);
	pthread_create(&t[2], NULL, reader, &rd);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(rd.wrong, 0);
	check_over(m);
	free(m);
}

/* freeable(p) and freed(p) (vg_om_freeable, vg_om_freed): about heap
 * blocks only, so memory with no entry (a stack) is in none once the map
 * says it saw every allocation (hdr.complete), and unknown before it
 * says so, where it lost an object, and (freed) where it dropped a freed
 * block */
static void test_complete(void **state)
{
	struct vg_objmap *m = map_new(64);
	uint64_t stack = 0x7ffd00001000ull;

	(void)state;
	assert_int_equal(vg_om_insert(m, 0x10000, 50, VG_OM_HEAP, 1), 0);
	assert_int_equal(vg_om_insert(m, 0x30000, 64, VG_OM_GLOBAL, 0), 0);
	assert_int_equal(vg_om_insert(m, 0x40000, 64, VG_OM_HEAP, 1), 0);
	assert_int_equal(vg_om_free(m, 0x40000), 1);
	/* what an entry says, complete or not */
	for (int c = 0; c < 2; c++) {
		vg_om_set_complete(m, c);
		assert_int_equal(vg_om_freeable(m, 0x10000), 1);
		assert_int_equal(vg_om_freeable(m, 0x10008), 0);
		assert_int_equal(vg_om_freed(m, 0x10008), 0);
		assert_int_equal(vg_om_freeable(m, 0x30000), 0);
		assert_int_equal(vg_om_freed(m, 0x30000), 0);
		/* a freed block's start: not freeable, freed */
		assert_int_equal(vg_om_freeable(m, 0x40000), 0);
		assert_int_equal(vg_om_freed(m, 0x40000), 1);
	}
	/* no entry: unknown until the map is complete (an attached
	 * process's earlier blocks may be there) */
	vg_om_set_complete(m, 0);
	assert_int_equal(vg_om_freeable(m, stack), VG_OM_UNKNOWN);
	assert_int_equal(vg_om_freed(m, stack), VG_OM_UNKNOWN);
	vg_om_set_complete(m, 1);
	assert_int_equal(vg_om_freeable(m, stack), 0);
	assert_int_equal(vg_om_freed(m, stack), 0);
	/* where the map lost an object: unknown all the same */
	vg_om_mark_lost(m, stack - 0x100, 0x1000);
	assert_int_equal(vg_om_freeable(m, stack), VG_OM_UNKNOWN);
	assert_int_equal(vg_om_freed(m, stack), VG_OM_UNKNOWN);
	assert_int_equal(vg_om_freeable(m, 0x10008), 0);
	/* where it dropped a freed block: freed unknown, freeable not */
	vg_om_lost(m, 0x60000, 0x100, 1);
	assert_int_equal(vg_om_freeable(m, 0x60010), 0);
	assert_int_equal(vg_om_freed(m, 0x60010), VG_OM_UNKNOWN);
	/* a new map is not complete */
	assert_int_equal(vg_om_init(m, 64), 0);
	assert_int_equal(vg_om_freeable(m, 0x60010), VG_OM_UNKNOWN);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_random_exact),
		cmocka_unit_test(test_random_small),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_complete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
