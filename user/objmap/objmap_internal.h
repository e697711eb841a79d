/* What objmap.c and objmap_run.c share: the map's state. Not for other
 * folders. */
#ifndef VIGIL_OBJMAP_INTERNAL_H
#define VIGIL_OBJMAP_INTERNAL_H

#include <sys/types.h>

#include "objmap.h"

#define OBJMAP_FREED_MAX 4096	/* recently freed blocks kept */
#define OBJMAP_GLOBALS_MAX 4096	/* globals looked up, kept */
#define OBJMAP_HEAPS 8

struct objmap_block {
	uint64_t size;
	bool size_known;
	int event;
};

struct objmap_global {
	uint64_t size;
	bool writable;
	char name[64];
};

struct objmap_run;

struct vg_objmap {
	size_t max_objects;
	struct vg_addrmap *blocks;	/* struct objmap_block by address */
	/* the program's own allocator's blocks (a pool's), which may lie
	 * inside a block of blocks (carved from a malloc'd slab): a lookup
	 * asks them first, the innermost object answering */
	struct vg_addrmap *pools;
	struct vg_addrmap *freed;	/* struct objmap_block by address */
	uint64_t freed_ring[OBJMAP_FREED_MAX];	/* oldest first, to evict */
	size_t freed_head, freed_n;
	struct vg_addrmap *globals;	/* struct objmap_global by address */
	uint64_t refused;		/* blocks not held: map full */
	uint64_t freed_evicted;		/* freed blocks forgotten */
	struct { uint64_t lo, hi; } heap[OBJMAP_HEAPS];
	int nheap;
	bool complete;			/* saw every allocation */
	/* [lo, hi): the heap as it was when the map began to see its
	 * allocations, when that was not the process's start (the in-process
	 * tier's, at the program's entry): blocks there may be unseen */
	struct { uint64_t lo, hi; } unseen;
	struct vg_mem_oracle oracle;
	struct objmap_run *run;		/* objmap_run.c's, NULL alone */
};

void vg_objmap_run_free(struct objmap_run *r);
/* every object forgotten (an exec): 0, -1 out of memory (the map then
 * holds nothing, and knows it: every block refused) */
int vg_objmap_clear(struct vg_objmap *m);

#endif
