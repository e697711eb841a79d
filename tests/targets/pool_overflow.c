/* A program with a pool allocator of its own: my_alloc carves 32-byte
 * blocks from one malloc'd slab (a free list of released ones first),
 * my_free puts a block back on the list. malloc sees one block, the
 * slab; an overflow of a pool block into its neighbour stays inside it.
 * specs/lib/heap_overflow.vigil finds it only when told of the
 * allocator: -D alloc=my_alloc -D release=my_free.
 *
 *   pool_overflow              blocks given out, filled, released and
 *                              given out again, copies that fit: clean
 *   pool_overflow --overflow   memcpy of 40 bytes into the second pool
 *                              block (32 bytes), inside the slab
 *   pool_overflow --first      the same into the first one, at the slab's
 *                              own start
 *   pool_overflow --drop       blocks carved, then the slab freed whole
 *                              (none released) and malloc'd again: a
 *                              copy of 40 bytes where two pool blocks
 *                              were is inside the new block (clean)
 *   pool_overflow --drop-big   the same with a slab of 512 KB (in the brk
 *                              heap: too many granules to look through)
 * Each overflow prints "pool_overflow: survived FLAG" if the copy ran. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_BLOCK 32
#define POOL_BLOCKS 64

struct free_block {
	struct free_block *next;
};

static char *slab;
static size_t slab_blocks = POOL_BLOCKS;	/* blocks a slab holds */
static size_t carved;
static struct free_block *free_list;

__attribute__((noinline)) void *my_alloc(size_t size)
{
	struct free_block *b = free_list;

	if (size > POOL_BLOCK)
		return NULL;
	if (b) {
		free_list = b->next;
		return b;
	}
	if (!slab && !(slab = malloc(POOL_BLOCK * slab_blocks)))
		return NULL;
	if (carved == slab_blocks)
		return NULL;
	return slab + POOL_BLOCK * carved++;
}

__attribute__((noinline)) void my_free(void *p)
{
	struct free_block *b = p;

	if (!p)
		return;
	b->next = free_list;	/* the allocator's own use of the block */
	free_list = b;
}

/* a real call to memcpy (a constant length would be turned into moves) */
__attribute__((noinline)) static void copy(void *dst, const void *src,
					   size_t n)
{
	memcpy(dst, src, n);
}

static int overflow(int first)
{
	static char src[64];
	char *a = my_alloc(POOL_BLOCK), *b = my_alloc(POOL_BLOCK);
	char *c = my_alloc(POOL_BLOCK);

	if (!a || !b || !c)
		return 2;
	memset(src, 'y', sizeof(src));
	/* 40 bytes into a 32-byte block: 8 into the next one, all of it
	 * inside the slab malloc gave out */
	copy(first ? a : b, src, 40);
	printf("pool_overflow: survived %s\n", first ? "--first" : "--overflow");
	return 0;
}

static int drop(void)
{
	static char src[64];
	char *old, *m;

	if (!my_alloc(POOL_BLOCK) || !my_alloc(POOL_BLOCK) ||
	    !my_alloc(POOL_BLOCK))
		return 2;
	/* the pool dropped whole: its blocks never released */
	old = slab;
	free(slab);
	slab = NULL;
	carved = 0;
	free_list = NULL;
	if (!(m = malloc(POOL_BLOCK * slab_blocks)))
		return 2;
	if (m == old)
		printf("pool_overflow: slab reused\n");
	copy(m + POOL_BLOCK, src, 40);
	free(m);
	printf("pool_overflow: dropped done\n");
	return 0;
}

static int clean(void)
{
	char *v[8];
	static char src[POOL_BLOCK];

	memset(src, 'x', sizeof(src));
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 8; i++) {
			if (!(v[i] = my_alloc(POOL_BLOCK)))
				return 2;
			copy(v[i], src, POOL_BLOCK);
			v[i][POOL_BLOCK - 1] = 0;
			if (strlen(v[i]) != POOL_BLOCK - 1)
				return 3;
		}
		for (int i = 0; i < 8; i++)
			my_free(v[i]);
	}
	/* a malloc block beside the slab, used whole */
	char *m = malloc(100);

	if (!m)
		return 2;
	memset(m, 0, 100);
	free(m);
	printf("pool_overflow: clean done\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--overflow"))
		return overflow(0);
	if (argc > 1 && !strcmp(argv[1], "--first"))
		return overflow(1);
	if (argc > 1 && !strcmp(argv[1], "--drop"))
		return drop();
	if (argc > 1 && !strcmp(argv[1], "--drop-big")) {
		/* from the brk heap, so that malloc gives it out again */
		mallopt(M_MMAP_THRESHOLD, 1 << 21);
		slab_blocks = 16384;
		return drop();
	}
	return clean();
}
