/* The heap of tests/unit/test_inproc_kstep_diff_mem.c: which blocks of
 * its lanes are live, which freed, where the next one may go. After
 * cmocka.h. */
#ifndef VIGIL_TESTS_HEAP_REF_H
#define VIGIL_TESTS_HEAP_REF_H

#include <stdbool.h>
#include <stdint.h>

#define LANES 48		/* blocks stay in a lane of their own */
#define LANE 256

struct blk {
	uint64_t base, len;
};

struct heap_ref {
	char *lanes;			/* LANES lanes of LANE bytes */
	struct blk live[LANES * 4];
	int nlive;
	/* freed blocks no block given out since overlaps */
	struct blk freed[LANES * 8];
	int nfreed;
	/* a block was freed at this base, (base - lanes) / 16, ever */
	bool freed_once[LANES * LANE / 16];
};

static uint64_t rnd_state = 0x853c49e6748fea9bull;

static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

static int live_at(struct heap_ref *h, uint64_t base)
{
	for (int i = 0; i < h->nlive; i++)
		if (h->live[i].base == base)
			return i;
	return -1;
}

static bool overlap(const struct blk *b, uint64_t base, uint64_t len)
{
	return base < b->base + (b->len ? b->len : 1) &&
	       b->base < base + (len ? len : 1);
}

/* [base, base + len) holds all of b (a block of 0 bytes: its base) */
static bool covers(const struct blk *b, uint64_t base, uint64_t len)
{
	return b->base >= base &&
	       b->base + (b->len ? b->len : 1) <= base + (len ? len : 1);
}

/* The block at base is freed */
static void forget(struct heap_ref *h, uint64_t base)
{
	int i = live_at(h, base);

	if (i < 0)
		return;
	assert_true(h->nfreed < LANES * 8);
	h->freed_once[(base - (uintptr_t)h->lanes) / 16] = true;
	h->freed[h->nfreed++] = h->live[i];
	h->live[i] = h->live[--h->nlive];
}

/* Can a block of len bytes be given out at base? Not over a live one;
 * over a freed one, all of it or none of it. The tiers part there: a
 * block that covers a freed one in part leaves the rest of it freed in
 * the agent's map, while the user tier's forgets the freed one whole
 * (user/objmap/objmap.c, unfree_range): freed(p) past the new block's
 * end is true in one, false in the other. Not compared here. */
static bool fits(struct heap_ref *h, uint64_t base, uint64_t len)
{
	if ((base & (LANE - 1)) + len > LANE - 1)
		return false;
	for (int i = 0; i < h->nlive; i++)
		if (overlap(&h->live[i], base, len))
			return false;
	for (int i = 0; i < h->nfreed; i++)
		if (overlap(&h->freed[i], base, len) &&
		    !covers(&h->freed[i], base, len))
			return false;
	return true;
}

/* A block given out at base: live, and the freed ones it covers are
 * freed no more */
static void given(struct heap_ref *h, uint64_t base, uint64_t len)
{
	for (int i = 0; i < h->nfreed; i++)
		if (overlap(&h->freed[i], base, len))
			h->freed[i--] = h->freed[--h->nfreed];
	h->live[h->nlive++] = (struct blk){ base, len };
	assert_true(h->nlive < LANES * 4);
}

/* a place for a block of len bytes; 0 when none found */
static uint64_t place(struct heap_ref *h, uint64_t len)
{
	for (int tries = 0; tries < 8; tries++) {
		uint64_t at = (uintptr_t)h->lanes + rnd(LANES) * LANE +
			      16 * rnd(8);

		if (fits(h, at, len))
			return at;
	}
	return 0;
}

#endif
