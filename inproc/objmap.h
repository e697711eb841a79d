/* The object map in the agent (objmap.c): the heap's blocks filed at the
 * allocation events, for the memory predicates inproc/kstep.c answers.
 * The map's code is include/vigil_objmap_code.h's, the same the tests
 * run (tests/unit/test_objmap_probe.c). */
#ifndef VG_INPROC_OBJMAP_H
#define VG_INPROC_OBJMAP_H

#include "agent.h"

/* event's part in the map (sh->omev[event]), its slots as read: a free
 * at an entry, a block filed at a return */
void vg_om_event(struct vg_fast_shared *sh, __u32 event, const __u64 *slot,
		 int at_entry);
/* A hook's entry: realloc's old block freed before the call runs (its
 * return event's arguments, read here) */
void vg_om_entry(struct vg_fast_shared *sh, const struct vg_fast_hook *hk,
		 const struct vg_fast_regs *r);

#endif
