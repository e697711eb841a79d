/* freeable(p) and freed(p) from what an object map knows of p: one
 * definition for the two maps, the user tier's (user/objmap/objmap.c,
 * vigil's own) and the in-process agent's (include/vigil_objmap_code.h's
 * vg_om_freeable and vg_om_freed, which inproc/kstep.c asks), so that
 * both tiers give one answer. No map here: each map says what its lookup
 * found in these terms, and whether it is complete.
 *
 * Both are statements about heap blocks only: p is the start of a live
 * one; p is in a freed one. Where a lookup found something, that decides
 * it. Where it found nothing, p is memory the map has no entry for (a
 * stack, a mapping of mmap's, a pointer into nothing), and it is in no
 * heap block only if the map saw every allocation of the process there:
 * the map is complete (vigil started the process and followed its
 * allocator from its start, so a block it did not file was never given
 * out) and p is not where it lost one (the lookup answers unknown
 * there), nor, for freed(p), where it forgot a freed block. Otherwise
 * (vigil attached to the process: blocks from before unseen) it is
 * unknown. */
#ifndef VIGIL_OBJMAP_PRED_H
#define VIGIL_OBJMAP_PRED_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* What a lookup of p found */
enum vg_om_at {
	VG_OM_AT_UNKNOWN,	/* the map cannot say (p where it lost an
				 * object, an entry it could not read) */
	VG_OM_AT_NOTHING,	/* no entry holds p */
	VG_OM_AT_BLOCK,		/* a live heap block, at base */
	VG_OM_AT_OBJECT,	/* a global or static */
	VG_OM_AT_FREED,		/* a freed heap block */
	VG_OM_AT_NONE,		/* the heap, between blocks */
};

/* 1: p is a live heap block's start; 0: it is not; -1: unknown.
 * complete: the map saw every allocation of the process but where its
 * lookup says unknown */
static inline int vg_om_freeable_at(enum vg_om_at at, __u64 base, __u64 p,
				    int complete)
{
	switch (at) {
	case VG_OM_AT_BLOCK:
		return p == base;
	case VG_OM_AT_OBJECT:
	case VG_OM_AT_FREED:
	case VG_OM_AT_NONE:
		return 0;
	case VG_OM_AT_NOTHING:
		return complete ? 0 : -1;
	default:
		return -1;
	}
}

/* 1: p is in a freed heap block; 0: it is not; -1: unknown. forgot: the
 * map dropped a freed block that may have held p */
static inline int vg_om_freed_at(enum vg_om_at at, int forgot, int complete)
{
	switch (at) {
	case VG_OM_AT_BLOCK:
	case VG_OM_AT_OBJECT:
		return 0;
	case VG_OM_AT_FREED:
		return 1;
	case VG_OM_AT_NONE:
		return forgot ? -1 : 0;
	case VG_OM_AT_NOTHING:
		return complete && !forgot ? 0 : -1;
	default:
		return -1;
	}
}

#endif
