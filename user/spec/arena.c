/* A bump allocator for everything that lives only while one spec loads
 * (tokens, the syntax tree). A failed load unwinds with longjmp from deep
 * inside the parser; with an arena there is nothing to free along the way. */
#include "spec_internal.h"

#include <stdlib.h>
#include <string.h>

struct vg_arena_blk {
	struct vg_arena_blk *next;
	size_t used, size;
	max_align_t data[];
};

#define BLK_MIN (64 * 1024)

void *vg_arena_alloc(struct vg_arena *a, size_t n)
{
	struct vg_arena_blk *b = a->head;
	size_t need = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	void *p;

	if (!b || b->size - b->used < need) {
		size_t size = need > BLK_MIN ? need : BLK_MIN;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += need;
	memset(p, 0, n);
	return p;
}

char *vg_arena_strndup(struct vg_arena *a, const char *s, size_t n)
{
	char *p = vg_arena_alloc(a, n + 1);

	if (p)
		memcpy(p, s, n);
	return p;
}

char *vg_arena_strdup(struct vg_arena *a, const char *s)
{
	return vg_arena_strndup(a, s, strlen(s));
}

void *vg_arena_grow(struct vg_arena *a, void *arr, int *cap, int need,
		    size_t sz)
{
	void *n;
	int ncap;

	if (need <= *cap)
		return arr;
	/* doubling wastes at most the sum of the old copies: as much again */
	ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	n = vg_arena_alloc(a, (size_t)ncap * sz);
	if (!n)
		return NULL;
	if (arr)
		memcpy(n, arr, (size_t)*cap * sz);
	*cap = ncap;
	return n;
}

void vg_arena_free(struct vg_arena *a)
{
	while (a->head) {
		struct vg_arena_blk *n = a->head->next;

		free(a->head);
		a->head = n;
	}
}
