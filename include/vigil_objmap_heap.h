/* freeable(p) and freed(p) from the object map (vigil_objmap.h, whose
 * lookups they ask): what a lookup found, in the terms of
 * vigil_objmap_pred.h, whose rule the user tier's map follows too, and
 * the two questions about heap blocks. For the kernel tier's steps
 * (vigil_mempred.h) and the tests of the map. */
#ifndef VIGIL_OBJMAP_HEAP_H
#define VIGIL_OBJMAP_HEAP_H

#include "vigil_objmap.h"

/* What a lookup of p found (vg_om_at: the lookup too), in the terms of
 * vigil_objmap_pred.h (the user tier's map answers by the same rules),
 * with *o; *complete: the map saw every allocation of its process
 * (hdr.complete); as_free: as free() sees p (vg_om_lookup_as: a pool
 * block at a slab's start is not what free(p) frees) */
VG_OM_INLINE enum vg_om_at vg_om_at_of(int r, const struct vg_om_obj *o)
{
	if (r == VG_OM_NONE)
		return VG_OM_AT_NOTHING;
	if (r != VG_OM_FOUND)
		return VG_OM_AT_UNKNOWN;
	if (o->kind == VG_OM_HEAP)
		return VG_OM_AT_BLOCK;
	if (o->kind == VG_OM_FREED)
		return VG_OM_AT_FREED;
	return o->kind == VG_OM_ARENA ? VG_OM_AT_NONE : VG_OM_AT_OBJECT;
}

/* did the map see every allocation of its process (hdr.complete)? */
VG_OM_INLINE int vg_om_complete(struct vg_objmap *m)
{
	union vg_om_elem *h = VG_OM_ELEM(m, 0);

	return h && VG_OM_LOAD(h->h.complete) == 1;
}

VG_OM_INLINE enum vg_om_at vg_om_at(struct vg_objmap *m, __u64 p,
				    struct vg_om_obj *o, int *complete,
				    int as_free)
{
	int r = vg_om_lookup_as(m, p, o, as_free);

	*complete = vg_om_complete(m);
	return vg_om_at_of(r, o);
}

/* The question freeable(p) asks first, of an entry at exactly p: an
 * includer may give its own, which must answer as vg_om_has (the agent's
 * looks where its hints say first: inproc/omhint.h) */
#ifndef VG_OM_HAS
#define VG_OM_HAS vg_om_has
#endif

/* freeable(p): 1 when p is the start of a live heap block, 0 when it is
 * not, VG_OM_UNKNOWN: memory the map has no entry for is no block only
 * in a complete map, and where it lost an object the lookup is unknown
 * already */
VG_OM_INLINE int vg_om_freeable(struct vg_objmap *m, __u64 p)
{
	struct vg_om_obj o;
	int complete, r;
	enum vg_om_at at;

	/* the common case, a free of a live block's start: a key a level */
	if (VG_OM_HAS(m, p, VG_OM_HEAP) == 1)
		return 1;
	at = vg_om_at(m, p, &o, &complete, 1);
	r = vg_om_freeable_at(at, o.base, p, complete);
	return r < 0 ? VG_OM_UNKNOWN : r;
}

/* freed(p): 1 when p is in a freed heap block, 0 when it is not,
 * VG_OM_UNKNOWN (where the map dropped a freed block, or as freeable) */
VG_OM_INLINE int vg_om_freed(struct vg_objmap *m, __u64 p)
{
	struct vg_om_obj o;
	int complete, r;
	enum vg_om_at at = vg_om_at(m, p, &o, &complete, 0);

	r = vg_om_freed_at(at, !!(o.flags & VG_OM_MAYBE_FREED), complete);
	return r < 0 ? VG_OM_UNKNOWN : r;
}

#endif
