/* Symbolized values in reports: a pointer that is the address of a global
 * prints as (&A), or (&A+8); one into a heap block vigil saw allocated as
 * (block of 24 bytes from make_node at list.c:12, +16). In the violation
 * of a property about objects (one that uses a memory predicate: the
 * overflow checks) a global is named as the object it is in, like a
 * block: (global table[64], +16), (static buf[32] in file.c).
 *
 * "Saw allocated": the allocations the loaded specs already probe and
 * that reach user space (a user-tier property's events, or --record):
 * `after malloc(size) returns p`, calloc, realloc, reallocarray,
 * aligned_alloc, memalign, valloc, pvalloc, strdup, strndup; a block is
 * forgotten at `before free(p)` or the realloc that moves it. No probe is
 * added for this. The site is the caller when the event captures its
 * stack (--stacks, a `backtrace` reaction), else the allocator's name. At
 * most 65536 live blocks are kept (past that, new ones are not named).
 *
 * Nothing is looked up in the process when a report asks: vigil reads
 * events after the fact, and the program may be gone. The mappings of the
 * program and its dynamic loader come from its exec record
 * (mm->start_code, AT_BASE) and their symbols are read then; the other
 * libraries' as the loader maps them: a probe at its rendezvous
 * (_dl_debug_state, which it calls once the needed libraries are mapped
 * at the start and around each dlopen and dlclose, where gdb learns of
 * them) holds the process while vigil reads its mappings and opens each
 * file mapped there, whose symbols are read from it when a name is asked.
 * One stop per change of the loaded set, none per event.
 *
 * The session holds it by one opaque pointer and feeds it; it sees the
 * session as a struct vg_run only: the target's pid through vg_run_pid
 * (feature/feature.h), what is fixed when it is made as arguments of
 * vg_symval_new, and the rest through the vg_symval_host_* calls below
 * (user/session/symval_host.c). */
#ifndef VIGIL_SYMVAL_H
#define VIGIL_SYMVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/monitor.h"

struct vg_err;
struct vg_probe;
struct vg_run;
struct vg_spec;
struct vg_symval;

/* Before the plan: the loader's rendezvous, an event of the session's own
 * (vg_event.maps_sync: held, no property's); none for vigil watch
 * (watch), nor for a live session (live: --interactive), where gdb has
 * its own breakpoint at that address. */
int vg_symval_prepare(struct vg_spec *spec, bool watch, bool live,
		      struct vg_err *e);

/* The names of run's pointers; spec: the run's (with vg_symval_prepare's
 * event), stack_on: per event, whether its probe captures its user stack
 * (the run's array, which outlives this; NULL: none does), attached: the
 * run attached to a running process (vigil attach) rather than started
 * it. NULL when out of memory. Registers itself as the report's namer. */
struct vg_symval *vg_symval_new(struct vg_run *run, const struct vg_spec *spec,
				const bool *stack_on, bool attached);
void vg_symval_free(struct vg_symval *sv);
/* The target exec'd the program at path (vigil run's start, or the same
 * program again), its lowest executable address at start_code and its
 * dynamic loader at interp_base (the exec record's): their globals are
 * named from that, whether or not it is still there when a report asks. */
void vg_symval_exec(struct vg_symval *sv, const char *path,
		    uint64_t start_code, uint64_t interp_base);
/* Every user-tier event, before the monitor sees it; the rendezvous's
 * (maps_sync), which the monitor never sees, reads the mappings. */
void vg_symval_event(struct vg_symval *sv, const struct vg_mon_event *ev);
/* The name of value v: "&A", "&A+8", "block of 24 bytes from ..., +16";
 * object: a global as the object it is in ("global table[64], +16",
 * "static buf[32] in file.c"), for reports about objects. False when it
 * is neither. */
bool vg_symval_name(void *sv, uint64_t v, bool object, char *buf,
		    size_t len);

/* What it asks of the run while it lives (user/session/symval_host.c):
 * the program's file, absolute ("" until the run knows it). (The run's
 * probes, for the stack an allocation captured, are vg_run_probe's: NULL
 * before they are in.) */
const char *vg_symval_host_exe(const struct vg_run *r);

#endif
