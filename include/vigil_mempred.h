/* The memory predicates the kernel tier asks of its object map
 * (VG_OP_MEM), one code for the BPF probes' step (bpf/kmem.bpf.h) and
 * the in-process agent's (inproc/kstep.c), as the user tier's
 * vg_objmap_pred (user/objmap/objmap.c) answers them. freeable(p) and
 * freed(p) are the map's own questions (vigil_objmap_heap.h), strlen_at
 * reads the memory, not the map. */
#ifndef VIGIL_MEMPRED_H
#define VIGIL_MEMPRED_H

#include "vigil_code.h"
#include "vigil_objmap.h"
#include "vigil_objmap_heap.h"

/* valid(p, n), valid_read(p, n), block_length(p), block_base(p) and
 * offset(p), from r and *o, the lookup of p (vg_om_lookup): 1 and *out,
 * or 0 where the map cannot say (unknown). A live object answers (a heap
 * block, a global); a freed block and the heap between blocks are in no
 * object; memory with no entry at all (a stack) is unknown, never "no
 * object". */
VG_OM_INLINE int vg_om_answer(__u32 pred, __u64 p, __u64 n, int r,
			      const struct vg_om_obj *o, __s64 *out)
{
	int live;

	if (r != VG_OM_FOUND)
		return 0;
	live = vg_om_is_object(o->kind);
	if (!live && o->kind != VG_OM_FREED && o->kind != VG_OM_ARENA)
		return 0;
	switch (pred) {
	case VG_MEM_VALID:
	case VG_MEM_VALID_READ:
		/* p is in o (the lookup's): [p, p + n) too? */
		*out = live && n <= o->base + o->len - p &&
		       (pred == VG_MEM_VALID_READ || o->kind != VG_OM_RODATA);
		return 1;
	case VG_MEM_BLOCK_LENGTH:
		*out = live ? (__s64)o->len : 0;
		return 1;
	case VG_MEM_BLOCK_BASE:
		*out = live ? (__s64)o->base : 0;
		return 1;
	case VG_MEM_OFFSET:
		*out = live ? (__s64)(p - o->base) : 0;
		return 1;
	}
	return 0;
}

#endif
