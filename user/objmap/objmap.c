/* The object map alone (objmap.h): blocks, freed blocks, globals, the
 * heap's ranges, and the predicates over them. Nothing here reads the
 * process: objmap_run.c does, and feeds this. */
#include "objmap_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "util/addrmap.h"
#include "vigil_objmap_pred.h"

bool vg_objmap_wanted(const struct vg_spec *spec)
{
	for (int i = 0; i < spec->nprops; i++)
		if (vg_property_mem_pred(&spec->props[i], NULL) >= 0)
			return true;
	return false;
}

struct vg_objmap *vg_objmap_new(size_t max_objects)
{
	struct vg_objmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->max_objects = max_objects ? max_objects : VG_OBJMAP_DEFAULT_MAX;
	if (vg_objmap_clear(m)) {
		vg_objmap_free(m);
		return NULL;
	}
	return m;
}

int vg_objmap_clear(struct vg_objmap *m)
{
	vg_addrmap_free(m->blocks);
	vg_addrmap_free(m->pools);
	vg_addrmap_free(m->freed);
	vg_addrmap_free(m->globals);
	m->blocks = vg_addrmap_new(m->max_objects,
				   sizeof(struct objmap_block));
	m->pools = NULL;	/* made at the first pool block */
	m->freed = vg_addrmap_new(OBJMAP_FREED_MAX,
				  sizeof(struct objmap_block));
	m->globals = vg_addrmap_new(OBJMAP_GLOBALS_MAX,
				    sizeof(struct objmap_global));
	m->freed_head = m->freed_n = 0;
	m->refused = m->freed_evicted = 0;
	m->nheap = 0;
	if (m->blocks && m->freed && m->globals)
		return 0;
	m->refused = 1;		/* unknown rather than wrong */
	return -1;
}

void vg_objmap_free(struct vg_objmap *m)
{
	if (!m)
		return;
	vg_objmap_run_free(m->run);
	vg_addrmap_free(m->blocks);
	vg_addrmap_free(m->pools);
	vg_addrmap_free(m->freed);
	vg_addrmap_free(m->globals);
	free(m);
}

/* its maps are there (an exec's clear out of memory leaves them not:
 * then it knows nothing, and every answer is unknown) */
static bool whole(const struct vg_objmap *m)
{
	return m->blocks && m->freed && m->globals;
}

/* [addr, addr+size) is a live block again: the freed blocks it covers
 * are not freed memory any more (their ring entries go stale, and are
 * skipped when their turn comes) */
static void unfree_range(struct vg_objmap *m, uint64_t addr, uint64_t size)
{
	uint64_t key;
	const struct objmap_block *f;

	if (size == 0)
		size = 1;
	while ((f = vg_addrmap_floor(m->freed, addr + size - 1, &key)) &&
	       key + (f->size ? f->size : 1) > addr)
		vg_addrmap_del(m->freed, key);
}

/* The pool blocks in [addr, addr+size) go: the heap block they were
 * carved from was freed, or is given out again (its free unseen) */
static void drop_pools(struct vg_objmap *m, uint64_t addr, uint64_t size)
{
	uint64_t key;

	if (!m->pools || !vg_addrmap_count(m->pools))
		return;
	if (size == 0)
		size = 1;
	while (vg_addrmap_floor(m->pools, addr + size - 1, &key) &&
	       key >= addr)
		vg_addrmap_del(m->pools, key);
}

void vg_objmap_alloc(struct vg_objmap *m, uint64_t addr, uint64_t size,
		     bool size_known, int event)
{
	struct objmap_block b = { size, size_known, event };
	const struct objmap_block *old;

	if (!whole(m))
		return;
	old = vg_addrmap_get(m->blocks, addr);

	/* strdup's block, seen first as malloc's with its size */
	if (old && old->size_known && !size_known)
		return;
	unfree_range(m, addr, size);
	if (size_known)
		drop_pools(m, addr, size);
	if (vg_addrmap_put(m->blocks, addr, &b))
		m->refused++;
}

static void remember_freed(struct vg_objmap *m, uint64_t addr,
			   const struct objmap_block *b)
{
	if (m->freed_n == OBJMAP_FREED_MAX) {
		uint64_t old = m->freed_ring[m->freed_head];

		m->freed_head = (m->freed_head + 1) % OBJMAP_FREED_MAX;
		m->freed_n--;
		m->freed_evicted += vg_addrmap_del(m->freed, old);
	}
	if (vg_addrmap_put(m->freed, addr, b))
		return;
	m->freed_ring[(m->freed_head + m->freed_n) % OBJMAP_FREED_MAX] = addr;
	m->freed_n++;
}

void vg_objmap_release(struct vg_objmap *m, uint64_t addr)
{
	struct objmap_block *b, copy;

	if (!whole(m) || !(b = vg_addrmap_get(m->blocks, addr)))
		return;
	copy = *b;
	vg_addrmap_del(m->blocks, addr);
	if (copy.size_known)
		drop_pools(m, addr, copy.size);
	remember_freed(m, addr, &copy);
}

void vg_objmap_pool_alloc(struct vg_objmap *m, uint64_t addr, uint64_t size,
			  int event)
{
	struct objmap_block b = { size, true, event };

	if (!whole(m))
		return;
	/* made here: a run without an allocator of its own pays nothing */
	if (!m->pools && !(m->pools = vg_addrmap_new(
				   m->max_objects, sizeof(struct objmap_block)))) {
		m->refused++;
		return;
	}
	unfree_range(m, addr, size);
	if (vg_addrmap_put(m->pools, addr, &b))
		m->refused++;
}

void vg_objmap_pool_release(struct vg_objmap *m, uint64_t addr)
{
	struct objmap_block *b, copy;

	if (!whole(m) || !m->pools || !(b = vg_addrmap_get(m->pools, addr)))
		return;
	copy = *b;
	vg_addrmap_del(m->pools, addr);
	remember_freed(m, addr, &copy);
}

void vg_objmap_global(struct vg_objmap *m, uint64_t addr, uint64_t size,
		      bool writable, const char *name)
{
	struct objmap_global g = { .size = size, .writable = writable };

	if (!whole(m))
		return;
	snprintf(g.name, sizeof(g.name), "%s", name);
	(void)vg_addrmap_put(m->globals, addr, &g);	/* a cache */
}

void vg_objmap_complete(struct vg_objmap *m, bool complete)
{
	m->complete = complete;
}

void vg_objmap_unseen(struct vg_objmap *m, uint64_t lo, uint64_t hi)
{
	m->unseen.lo = lo;
	m->unseen.hi = hi;
}

static bool in_unseen(const struct vg_objmap *m, uint64_t p)
{
	return p >= m->unseen.lo && p < m->unseen.hi;
}

void vg_objmap_heap(struct vg_objmap *m, uint64_t lo, uint64_t hi,
		    bool complete)
{
	m->complete = complete;
	for (int i = 0; i < m->nheap; i++)
		if (m->heap[i].lo == lo) {
			m->heap[i].hi = hi;	/* the heap grew (brk) */
			return;
		}
	if (m->nheap < OBJMAP_HEAPS) {
		m->heap[m->nheap].lo = lo;
		m->heap[m->nheap++].hi = hi;
	}
}

static bool in_heap(const struct vg_objmap *m, uint64_t p)
{
	for (int i = 0; i < m->nheap; i++)
		if (p >= m->heap[i].lo && p < m->heap[i].hi)
			return true;
	return false;
}

/* the entry of map at or below p that holds p (a block of unknown size:
 * only its first byte) */
static const struct objmap_block *holding(const struct vg_addrmap *map,
					  uint64_t p, uint64_t *base)
{
	const struct objmap_block *b = vg_addrmap_floor(map, p, base);

	if (!b)
		return NULL;
	if (p == *base || (b->size_known && p - *base < b->size))
		return b;
	return NULL;
}

/* A pool block holding p: the innermost object there. Pool blocks do not
 * overlap one another (a new one at an address replaces the old); the
 * one at or below p holds it or none does. */
static void as_block(struct vg_obj *o, const struct objmap_block *b,
		     uint64_t base)
{
	o->kind = VG_OBJ_BLOCK;
	o->base = base;
	o->size = b->size;
	o->size_known = b->size_known;
	o->writable = true;
	o->event = b->event;
}

static bool pool_holding(const struct vg_objmap *m, uint64_t p,
			 struct vg_obj *o)
{
	const struct objmap_block *b;
	uint64_t base;

	if (!m->pools || !vg_addrmap_count(m->pools) ||
	    !(b = holding(m->pools, p, &base)))
		return false;
	as_block(o, b, base);
	o->pool = true;
	return true;
}

/* What the map knows of p; with pools false, as if the program's own
 * allocator had given out nothing (free(p) is malloc's business) */
static void lookup(const struct vg_objmap *m, uint64_t p, bool pools,
		   struct vg_obj *o)
{
	const struct objmap_block *b;
	const struct objmap_global *g;
	uint64_t base;

	memset(o, 0, sizeof(*o));
	o->event = -1;
	if (!whole(m))
		return;
	if (pools && pool_holding(m, p, o))
		return;
	if ((b = holding(m->blocks, p, &base))) {
		as_block(o, b, base);
		return;
	}
	g = vg_addrmap_floor(m->globals, p, &base);
	if (g && p - base < g->size) {
		o->kind = VG_OBJ_GLOBAL;
		o->base = base;
		o->size = g->size;
		o->size_known = true;
		o->writable = g->writable;
		snprintf(o->name, sizeof(o->name), "%s", g->name);
		return;
	}
	if ((b = holding(m->freed, p, &base))) {
		o->kind = VG_OBJ_FREED;
		o->base = base;
		o->size = b->size;
		o->size_known = b->size_known;
		o->event = b->event;
		return;
	}
	/* between blocks: no object, if every block there is known */
	if (in_heap(m, p) && m->complete && !m->refused && !in_unseen(m, p))
		o->kind = VG_OBJ_NONE;
}

void vg_objmap_lookup(const struct vg_objmap *m, uint64_t p,
		      struct vg_obj *o)
{
	lookup(m, p, true, o);
}

/* [p, p+n) inside o (n 0: p inside it or at its end) */
static bool inside(const struct vg_obj *o, uint64_t p, uint64_t n)
{
	uint64_t room = o->base + o->size - p;

	return p >= o->base && p <= o->base + o->size && n <= room;
}

/* What the lookup found, in the terms of vigil_objmap_pred.h: the rules
 * of freeable(p) and freed(p) the agent's map follows too */
static enum vg_om_at at_of(const struct vg_objmap *m, const struct vg_obj *o,
			   uint64_t p)
{
	switch (o->kind) {
	case VG_OBJ_BLOCK:
		return VG_OM_AT_BLOCK;
	case VG_OBJ_GLOBAL:
		return VG_OM_AT_OBJECT;
	case VG_OBJ_FREED:
		return VG_OM_AT_FREED;
	case VG_OBJ_NONE:
		return VG_OM_AT_NONE;
	default:
		return whole(m) && !in_unseen(m, p) ? VG_OM_AT_NOTHING
						     : VG_OM_AT_UNKNOWN;
	}
}

/* freeable(p), freed(p): memory with no entry (a stack) is in no heap
 * block when the map saw every allocation and held every block */
static bool heap_pred(const struct vg_objmap *m, int pred,
		      const struct vg_obj *o, uint64_t p, int64_t *out)
{
	bool complete = m->complete && !m->refused;
	int r = pred == VG_MEM_FREED
			? vg_om_freed_at(at_of(m, o, p), m->freed_evicted != 0,
					 complete)
			: vg_om_freeable_at(at_of(m, o, p), o->base, p,
					    complete);

	if (r < 0)
		return false;
	*out = r;
	return true;
}

bool vg_objmap_pred(const struct vg_objmap *m, int pred, uint64_t p,
		    uint64_t n, int64_t *out)
{
	struct vg_obj o;
	bool live;

	/* an empty range is valid wherever it is (E-ACSL's \valid of an
	 * empty range): memset(end, 0, 0) at a block's end touches nothing,
	 * as memcheck and ASan see it */
	if ((pred == VG_MEM_VALID || pred == VG_MEM_VALID_READ) && !n) {
		*out = 1;
		return true;
	}
	/* (free(p) is malloc's business: a pool block at a slab's start is
	 * not what it frees) */
	lookup(m, p, pred != VG_MEM_FREEABLE, &o);
	if (pred == VG_MEM_FREEABLE || pred == VG_MEM_FREED)
		return heap_pred(m, pred, &o, p, out);
	if (o.kind == VG_OBJ_UNKNOWN)
		return false;
	live = o.kind == VG_OBJ_BLOCK || o.kind == VG_OBJ_GLOBAL;
	switch (pred) {
	case VG_MEM_VALID:
	case VG_MEM_VALID_READ:
		if (!live) {
			*out = 0;
			return true;
		}
		if (!o.size_known)
			return n == 0 ? (*out = 1, true) : false;
		*out = inside(&o, p, n) &&
		       (pred == VG_MEM_VALID_READ || o.writable);
		return true;
	case VG_MEM_BLOCK_LENGTH:
		if (live && !o.size_known)
			return false;
		*out = live ? (int64_t)o.size : 0;
		return true;
	case VG_MEM_BLOCK_BASE:
		*out = live ? (int64_t)o.base : 0;
		return true;
	case VG_MEM_OFFSET:
		*out = live ? (int64_t)(p - o.base) : 0;
		return true;
	default:
		return false;	/* strlen_at reads the process */
	}
}

uint64_t vg_objmap_refused(const struct vg_objmap *m)
{
	return m->refused;
}

size_t vg_objmap_count(const struct vg_objmap *m)
{
	return whole(m) ? vg_addrmap_count(m->blocks) : 0;
}

void vg_objmap_describe(const struct vg_obj *o, const char *alloc_name,
			char *buf, size_t len)
{
	const char *by = alloc_name && alloc_name[0] ? alloc_name : "";

	switch (o->kind) {
	case VG_OBJ_BLOCK:
	case VG_OBJ_FREED:
		if (o->size_known)
			snprintf(buf, len, "%sblock of %llu bytes at 0x%llx%s%s",
				 o->kind == VG_OBJ_FREED ? "freed " : "",
				 (unsigned long long)o->size,
				 (unsigned long long)o->base,
				 by[0] ? " allocated by " : "", by);
		else
			snprintf(buf, len, "%sblock of unknown size at 0x%llx%s%s",
				 o->kind == VG_OBJ_FREED ? "freed " : "",
				 (unsigned long long)o->base,
				 by[0] ? " allocated by " : "", by);
		break;
	case VG_OBJ_GLOBAL:
		snprintf(buf, len, "global %s[%llu]", o->name,
			 (unsigned long long)o->size);
		break;
	case VG_OBJ_NONE:
		snprintf(buf, len, "no object (in the heap, between blocks)");
		break;
	default:
		snprintf(buf, len, "unknown");
		break;
	}
}
