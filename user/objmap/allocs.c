/* The allocator's events of a spec (allocs.h) */
#include "allocs.h"

#include <stdlib.h>
#include <string.h>

struct allocator {
	const char *name;
	int size1, size2, old;	/* argument positions, -1: none */
	bool out_ptr;		/* the block is at *argument 0, the call
				 * returns 0 for success (posix_memalign) */
};

static const struct allocator allocators[] = {
	{ "malloc", 0, -1, -1, false },	{ "calloc", 0, 1, -1, false },
	{ "realloc", 1, -1, 0, false },	{ "reallocarray", 1, 2, 0, false },
	{ "aligned_alloc", 1, -1, -1, false },
	{ "memalign", 1, -1, -1, false },
	{ "valloc", 0, -1, -1, false },	{ "pvalloc", 0, -1, -1, false },
	{ "posix_memalign", 2, -1, -1, true },
	{ "strdup", -1, -1, -1, false }, { "strndup", -1, -1, -1, false },
	{ "operator new", 0, -1, -1, false },
	{ "operator new[]", 0, -1, -1, false },
};

/* `after $alloc(size) returns p`: the program's own allocator, whatever
 * -D names (spec.h, heap_role), when it is none of libc's above */
static const struct allocator own = { "$alloc", 0, -1, -1, false };

struct vg_allocs {
	const struct vg_spec *spec;
	const struct allocator **alloc;	/* per event, NULL: none */
	bool *frees;			/* per event: before free(p) */
	bool *pool;			/* per event: the program's own
					 * allocator's (own, $release) */
	int *out_cap;			/* per event: posix_memalign's `*p`
					 * capture slot, -1 */
	bool any;
};

static const struct allocator *allocator_of(const struct vg_event *e)
{
	if (e->kind != VG_EV_AFTER)
		return NULL;
	for (size_t k = 0; k < sizeof(allocators) / sizeof(allocators[0]); k++)
		if (!strcmp(e->name, allocators[k].name))
			return &allocators[k];
	return e->heap_role == VG_HEAP_ALLOC ? &own : NULL;
}

/* free(p), or the program's own release ($release, not free) */
static bool frees_of(const struct vg_event *e, bool *pool)
{
	*pool = false;
	if (e->kind != VG_EV_BEFORE || e->nfields < 1)
		return false;
	if (!strcmp(e->name, "free"))
		return true;
	*pool = e->heap_role == VG_HEAP_RELEASE;
	return *pool;
}

struct vg_allocs *vg_allocs_new(const struct vg_spec *spec)
{
	struct vg_allocs *a = calloc(1, sizeof(*a));
	int ne = spec->nevents + 1;

	if (!a)
		return NULL;
	a->spec = spec;
	a->alloc = calloc(ne, sizeof(*a->alloc));
	a->frees = calloc(ne, sizeof(*a->frees));
	a->out_cap = calloc(ne, sizeof(*a->out_cap));
	a->pool = calloc(ne, sizeof(*a->pool));
	if (!a->alloc || !a->frees || !a->out_cap || !a->pool) {
		vg_allocs_free(a);
		return NULL;
	}
	for (int i = 0; i < spec->nevents; i++) {
		const struct vg_event *e = &spec->events[i];

		a->out_cap[i] = -1;
		a->frees[i] = frees_of(e, &a->pool[i]);
		a->alloc[i] = allocator_of(e);
		if (a->alloc[i] == &own)
			a->pool[i] = true;
		for (int k = 0; a->alloc[i] && a->alloc[i]->out_ptr &&
		     k < e->ncaps; k++)
			if (e->caps[k].src == 0 && !e->caps[k].path[0] &&
			    !e->caps[k].is_str)
				a->out_cap[i] = VG_SLOT_CAP0 + k;
		if (a->alloc[i] && a->alloc[i]->out_ptr && a->out_cap[i] < 0)
			a->alloc[i] = NULL;	/* where the block is, unread */
		a->any |= a->frees[i] || a->alloc[i];
	}
	return a;
}

void vg_allocs_free(struct vg_allocs *a)
{
	if (!a)
		return;
	free(a->alloc);
	free(a->frees);
	free(a->out_cap);
	free(a->pool);
	free(a);
}

bool vg_allocs_any(const struct vg_allocs *a)
{
	return a && a->any;
}

static uint64_t field(const struct vg_mon_event *ev, const struct vg_event *e,
		      int i)
{
	return i >= 0 && i < e->nfields ? ev->slot[i] : 0;
}

enum vg_alloc_what vg_alloc_of(const struct vg_allocs *a,
			       const struct vg_mon_event *ev,
			       struct vg_alloc *out)
{
	const struct allocator *al;
	const struct vg_event *e;

	memset(out, 0, sizeof(*out));
	if (!a || ev->event < 0 || ev->event >= a->spec->nevents)
		return VG_ALLOC_NONE;
	e = &a->spec->events[ev->event];
	out->pool = a->pool[ev->event];
	if (a->frees[ev->event]) {
		out->addr = ev->slot[0];
		return VG_ALLOC_FREE;
	}
	if (!(al = a->alloc[ev->event]))
		return VG_ALLOC_NONE;
	out->old = al->old >= 0 ? field(ev, e, al->old) : 0;
	if (al->out_ptr)	/* failed: rc != 0 */
		out->addr = ev->slot[VG_SLOT_RET] ? 0
			    : ev->slot[a->out_cap[ev->event]];
	else
		out->addr = ev->slot[VG_SLOT_RET];
	out->size_known = al->size1 >= 0 && al->size1 < e->nfields &&
			  (al->size2 < 0 || al->size2 < e->nfields);
	if (out->size_known)
		out->size = field(ev, e, al->size1) *
			    (al->size2 >= 0 ? field(ev, e, al->size2) : 1);
	return VG_ALLOC_NEW;
}

void vg_alloc_shape_of(const struct vg_allocs *a, int event,
		       struct vg_alloc_shape *out)
{
	const struct allocator *al;
	const struct vg_event *e;

	memset(out, 0, sizeof(*out));
	out->ptr = out->size1 = out->size2 = out->old = -1;
	if (!a || event < 0 || event >= a->spec->nevents)
		return;
	e = &a->spec->events[event];
	out->pool = a->pool[event];
	if (a->frees[event]) {
		out->what = VG_ALLOC_FREE;
		out->ptr = 0;
		return;
	}
	if (!(al = a->alloc[event])) {
		/* posix_memalign whose `*p` is not read (a capture is made
		 * only where a guard or update uses it): a block given out
		 * where the event does not say */
		if (allocator_of(e)) {
			out->what = VG_ALLOC_NEW;
			out->out_ptr = true;
		}
		return;
	}
	out->what = VG_ALLOC_NEW;
	out->out_ptr = al->out_ptr;
	if (al->out_ptr)
		out->ptr = a->out_cap[event];
	out->old = al->old >= 0 && al->old < e->nfields ? al->old : -1;
	out->by_string = al->size1 < 0;
	out->size_known = al->size1 >= 0 && al->size1 < e->nfields &&
			  (al->size2 < 0 || al->size2 < e->nfields);
	if (out->size_known) {
		out->size1 = al->size1;
		out->size2 = al->size2;
	}
}
