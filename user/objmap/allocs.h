/* The allocator's events of a spec: a call that returns a new block
 * (malloc ... operator new[], by the event's name), where its size is, the
 * block it releases (realloc's old one), and free; and the program's own
 * allocator, whose events a spec names by `$alloc` and `$release`
 * (docs/LANGUAGE.md, Parameters): its blocks are a pool's, which may lie
 * inside a block of malloc's (carved from a slab), and are followed as
 * such (`pool`). The object map
 * (objmap_run.c) and the names of pointers (symval/) follow the run's
 * blocks by them. */
#ifndef VIGIL_OBJMAP_ALLOCS_H
#define VIGIL_OBJMAP_ALLOCS_H

#include <stdbool.h>
#include <stdint.h>

#include "monitor/monitor.h"
#include "spec/spec.h"

struct vg_allocs;

/* the spec's events classified once; NULL: out of memory */
struct vg_allocs *vg_allocs_new(const struct vg_spec *spec);
void vg_allocs_free(struct vg_allocs *a);
/* does the spec have any such event? */
bool vg_allocs_any(const struct vg_allocs *a);

/* What event ev did to the heap */
enum vg_alloc_what { VG_ALLOC_NONE, VG_ALLOC_NEW, VG_ALLOC_FREE };
struct vg_alloc {
	uint64_t addr;		/* the new block (0: the call failed), or
				 * the block freed */
	uint64_t size;		/* its length, when size_known */
	bool size_known;	/* (strdup's is not in its arguments) */
	uint64_t old;		/* a block the call released first (a
				 * realloc's), 0: none */
	bool pool;		/* the program's own allocator's block */
};
enum vg_alloc_what vg_alloc_of(const struct vg_allocs *a,
			       const struct vg_mon_event *ev,
			       struct vg_alloc *out);

/* Where event ev's slots have what vg_alloc_of reads (for an agent that
 * reads the slots itself: user/fast/fast_objmap.c): NONE, FREE (the block
 * at slot ptr) or NEW (the return value, or with out_ptr the slot ptr
 * when the call returned 0; its size slot size1 times slot size2, -1:
 * none, size_known false when the spec's event does not read it; a
 * realloc's old block at slot old, -1: none; by_string: strdup, strndup,
 * whose size is the string's) */
struct vg_alloc_shape {
	enum vg_alloc_what what;
	int ptr, size1, size2, old;
	bool out_ptr, size_known, by_string;
	bool pool;		/* the program's own allocator's */
};
void vg_alloc_shape_of(const struct vg_allocs *a, int event,
		       struct vg_alloc_shape *out);

#endif
