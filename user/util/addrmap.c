/* A treap (addrmap.h): a binary search tree by key whose nodes also obey
 * a heap order on random priorities, which keeps its depth O(log n)
 * whatever order the keys come in (allocators hand out rising addresses,
 * the worst order for a plain tree). Nodes are indices into one pool;
 * free ones are chained through their left link. */
#include "addrmap.h"

#include <stdlib.h>
#include <string.h>

#define NIL (-1)

struct node {
	uint64_t key;
	uint32_t prio;
	int32_t l, r;
};

struct vg_addrmap {
	struct node *n;
	unsigned char *vals;	/* cap * val_size */
	size_t cap, val_size, count;
	int32_t root, free;
	uint64_t rng;
};

struct vg_addrmap *vg_addrmap_new(size_t cap, size_t val_size)
{
	struct vg_addrmap *m = calloc(1, sizeof(*m));

	if (!m || !cap || cap > INT32_MAX)
		goto fail;
	m->n = malloc(cap * sizeof(*m->n));
	m->vals = malloc(cap * (val_size ? val_size : 1));
	if (!m->n || !m->vals)
		goto fail;
	m->cap = cap;
	m->val_size = val_size;
	m->root = NIL;
	for (size_t i = 0; i < cap; i++)
		m->n[i].l = i + 1 < cap ? (int32_t)(i + 1) : NIL;
	m->free = 0;
	m->rng = 0x9E3779B97F4A7C15ull;
	return m;
fail:
	vg_addrmap_free(m);
	return NULL;
}

void vg_addrmap_free(struct vg_addrmap *m)
{
	if (!m)
		return;
	free(m->n);
	free(m->vals);
	free(m);
}

static void *val_of(const struct vg_addrmap *m, int32_t i)
{
	return m->vals + (size_t)i * m->val_size;
}

/* xorshift64: the priorities need only be independent of the keys */
static uint32_t next_prio(struct vg_addrmap *m)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return (uint32_t)(m->rng >> 32);
}

static int32_t rot_right(struct vg_addrmap *m, int32_t t)
{
	int32_t l = m->n[t].l;

	m->n[t].l = m->n[l].r;
	m->n[l].r = t;
	return l;
}

static int32_t rot_left(struct vg_addrmap *m, int32_t t)
{
	int32_t r = m->n[t].r;

	m->n[t].r = m->n[r].l;
	m->n[r].l = t;
	return r;
}

/* x (a new node) into the subtree t; its new root */
static int32_t insert(struct vg_addrmap *m, int32_t t, int32_t x)
{
	if (t == NIL)
		return x;
	if (m->n[x].key < m->n[t].key) {
		m->n[t].l = insert(m, m->n[t].l, x);
		if (m->n[m->n[t].l].prio > m->n[t].prio)
			t = rot_right(m, t);
	} else {
		m->n[t].r = insert(m, m->n[t].r, x);
		if (m->n[m->n[t].r].prio > m->n[t].prio)
			t = rot_left(m, t);
	}
	return t;
}

static int32_t find(const struct vg_addrmap *m, uint64_t key)
{
	int32_t t = m->root;

	while (t != NIL && m->n[t].key != key)
		t = key < m->n[t].key ? m->n[t].l : m->n[t].r;
	return t;
}

int vg_addrmap_put(struct vg_addrmap *m, uint64_t key, const void *val)
{
	int32_t x = find(m, key);

	if (x == NIL) {
		if (m->free == NIL)
			return -1;
		x = m->free;
		m->free = m->n[x].l;
		m->n[x] = (struct node){ key, next_prio(m), NIL, NIL };
		m->root = insert(m, m->root, x);
		m->count++;
	}
	memcpy(val_of(m, x), val, m->val_size);
	return 0;
}

/* the subtree t without key: the node sinks by rotations to where it has
 * one child at most, and is cut out there */
static int32_t delete(struct vg_addrmap *m, int32_t t, uint64_t key,
		      int32_t *gone)
{
	struct node *n;

	if (t == NIL)
		return NIL;
	n = &m->n[t];
	if (key < n->key) {
		n->l = delete(m, n->l, key, gone);
		return t;
	}
	if (key > n->key) {
		n->r = delete(m, n->r, key, gone);
		return t;
	}
	if (n->l == NIL || n->r == NIL) {
		*gone = t;
		return n->l == NIL ? n->r : n->l;
	}
	if (m->n[n->l].prio > m->n[n->r].prio) {
		t = rot_right(m, t);
		m->n[t].r = delete(m, m->n[t].r, key, gone);
	} else {
		t = rot_left(m, t);
		m->n[t].l = delete(m, m->n[t].l, key, gone);
	}
	return t;
}

bool vg_addrmap_del(struct vg_addrmap *m, uint64_t key)
{
	int32_t gone = NIL;

	m->root = delete(m, m->root, key, &gone);
	if (gone == NIL)
		return false;
	m->n[gone].l = m->free;
	m->free = gone;
	m->count--;
	return true;
}

void *vg_addrmap_get(const struct vg_addrmap *m, uint64_t key)
{
	int32_t t = find(m, key);

	return t == NIL ? NULL : val_of(m, t);
}

void *vg_addrmap_floor(const struct vg_addrmap *m, uint64_t k,
		       uint64_t *key)
{
	int32_t t = m->root, best = NIL;

	while (t != NIL) {
		if (m->n[t].key <= k) {
			best = t;
			t = m->n[t].r;
		} else {
			t = m->n[t].l;
		}
	}
	if (best == NIL)
		return NULL;
	if (key)
		*key = m->n[best].key;
	return val_of(m, best);
}

size_t vg_addrmap_count(const struct vg_addrmap *m)
{
	return m->count;
}
