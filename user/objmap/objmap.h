/* The object map of a run: every live heap block vigil saw allocated,
 * recently freed blocks, the globals and statics of the program and its
 * libraries (ELF symbols with their sizes, .symtab's local ones too; the
 * variables DWARF places, for an object without .symtab), and the heap's
 * own ranges, so that the memory predicates of the language (valid(p, n),
 * block_length(p), ...: include/vigil_code.h, docs/LANGUAGE.md) can ask
 * which object a pointer is in. Three answers: an object, no object (a pointer into the heap
 * between blocks, or into a block freed since: a definite bad pointer),
 * or unknown (vigil does not know that memory: a stack, a mapping of its
 * own, a block allocated before vigil attached).
 *
 * The blocks come from the events the run's specs already probe and that
 * reach user space: `after malloc(size) returns p`, calloc, realloc,
 * reallocarray, memalign, aligned_alloc, valloc, pvalloc,
 * posix_memalign(*p, ...), strdup, strndup, operator new and new[];
 * `before free(p)` and the realloc that moves a block forget it; and the
 * program's own allocator, `$alloc` and `$release` (allocs.h), whose
 * pool blocks may lie inside a heap block and answer before it. No probe
 * is added for this (specs/lib/heap_overflow.vigil has those events).
 *
 * Bounded: at most max_objects live blocks and a fixed number of freed
 * ones. Never a lie: once a block could not be held, a pointer into the
 * heap in no block the map holds is unknown, not "no object" (the block
 * not held may be there); a freed block forgotten makes freed() unknown
 * there the same way.
 *
 * The session makes one per part whose properties use a predicate
 * (vg_objmap_wanted), feeds it every user-tier event before the monitor,
 * and gives the monitor its oracle. It sees the session as a struct
 * vg_run (its pid, its program), never more. */
#ifndef VIGIL_OBJMAP_H
#define VIGIL_OBJMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/monitor.h"

struct vg_objmap;
struct vg_run;
struct vg_spec;

#define VG_OBJMAP_DEFAULT_MAX 262144	/* live blocks, --max-objects */

enum vg_obj_kind {
	VG_OBJ_UNKNOWN,		/* vigil does not know that memory */
	VG_OBJ_NONE,		/* in the heap, in no live block */
	VG_OBJ_FREED,		/* in a block freed since */
	VG_OBJ_BLOCK,		/* in a live heap block */
	VG_OBJ_GLOBAL,		/* in a global or static */
};

struct vg_obj {
	enum vg_obj_kind kind;
	uint64_t base, size;	/* size 0 with size_known false: a block
				 * whose allocator did not say (strdup) */
	bool size_known;
	bool writable;
	int event;		/* a block's allocation event, -1 */
	bool pool;		/* a block of the program's own allocator */
	char name[64];		/* a global's symbol */
};

/* Does a property of spec use a memory predicate? */
bool vg_objmap_wanted(const struct vg_spec *spec);

/* ---- the map alone (objmap.c): what the unit tests drive -------------- */

/* Room for max_objects live blocks (0: the default); NULL without
 * memory. */
struct vg_objmap *vg_objmap_new(size_t max_objects);
void vg_objmap_free(struct vg_objmap *m);
/* A block of size bytes at addr (size_known false: a size the allocator
 * did not give), allocated by event (-1: none). */
void vg_objmap_alloc(struct vg_objmap *m, uint64_t addr, uint64_t size,
		     bool size_known, int event);
/* The block at addr is freed (nothing when the map does not hold it).
 * The pool blocks inside it go with it. */
void vg_objmap_release(struct vg_objmap *m, uint64_t addr);
/* A block of the program's own allocator (`$alloc`, docs/LANGUAGE.md):
 * a pool's, maybe carved from a heap block. Where it lies it is the
 * object, not the block around it; released, it is a freed block where
 * no live object holds its bytes, and the slab's again where one does
 * (the allocator's own code writes its free lists there). */
void vg_objmap_pool_alloc(struct vg_objmap *m, uint64_t addr, uint64_t size,
			  int event);
void vg_objmap_pool_release(struct vg_objmap *m, uint64_t addr);
/* A global or static of size bytes at addr, named name. */
void vg_objmap_global(struct vg_objmap *m, uint64_t addr, uint64_t size,
		      bool writable, const char *name);
/* The map saw every allocation of the process (it started under vigil)
 * or not: with it (and no block refused), a pointer in the heap in no
 * block is no object, and one with no entry at all (a stack) is no heap
 * block: freeable(p) false (include/vigil_objmap_pred.h) */
void vg_objmap_complete(struct vg_objmap *m, bool complete);
/* [lo, hi) holds blocks the map may not have seen (allocated before
 * its events began: the in-process tier's start at the program's entry):
 * a pointer there in no block it holds is unknown, not "no object" */
void vg_objmap_unseen(struct vg_objmap *m, uint64_t lo, uint64_t hi);
/* The heap's range [lo, hi) (the process's [heap]); complete: as
 * vg_objmap_complete. */
void vg_objmap_heap(struct vg_objmap *m, uint64_t lo, uint64_t hi,
		    bool complete);
/* What the map knows of p (without asking the process). */
void vg_objmap_lookup(const struct vg_objmap *m, uint64_t p,
		      struct vg_obj *out);
/* The predicate pred (enum vg_mem_pred) of p and n over what the map
 * knows: true with *out, false when unknown. strlen_at is the process's
 * (vg_objmap_oracle): here always unknown. */
bool vg_objmap_pred(const struct vg_objmap *m, int pred, uint64_t p,
		    uint64_t n, int64_t *out);
/* How many blocks it could not hold, and holds */
uint64_t vg_objmap_refused(const struct vg_objmap *m);
size_t vg_objmap_count(const struct vg_objmap *m);
/* "block of 50 bytes from malloc at 0x...", "global table[64]",
 * "freed block of 50 bytes", "no object (heap)", "unknown" */
void vg_objmap_describe(const struct vg_obj *o, const char *alloc_name,
			char *buf, size_t len);

/* ---- the map of a run (objmap_run.c) ---------------------------------- */

/* Attach a map to run (its process, read through vg_run_pid): spec's
 * allocation events feed it; attached: vigil attached to a running
 * process (its earlier blocks unknown). */
int vg_objmap_bind(struct vg_objmap *m, struct vg_run *run,
		   const struct vg_spec *spec, bool attached);
/* Does the map follow event (an allocation or a free)? */
bool vg_objmap_follows(const struct vg_objmap *m, int event);
/* The process's heap now is unseen (vg_objmap_unseen): its allocation
 * events come from here on only (m NULL: nothing) */
void vg_objmap_unseen_now(struct vg_objmap *m);
/* The process exec'd: its objects are gone, its new heap and globals
 * are read again (m NULL: nothing). */
void vg_objmap_exec(struct vg_objmap *m);
/* Every user-tier event, before the monitor sees it (a block given out
 * is filed), and after (a block freed goes: `before free(p) when
 * !freeable(p)` asks about the block as it is before the call). */
void vg_objmap_event(struct vg_objmap *m, const struct vg_mon_event *ev);
void vg_objmap_event_done(struct vg_objmap *m, const struct vg_mon_event *ev);
/* The oracle to give the monitor (vg_monitor_set_mem): the map, then the
 * process (its mappings, its globals, strings read from its memory). */
const struct vg_mem_oracle *vg_objmap_oracle(struct vg_objmap *m);

#endif
