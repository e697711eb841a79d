/* Hardware watchpoints for `write x`, `read x` and `access x`, as the plan
 * finds them: on a global of the program, x's address, size and type
 * from the program's symbols and DWARF; on memory a slice points to, the
 * offsets and types from the DWARF of the function that gave the slice
 * its pointer. user/probe/probe_watch.c arms them as perf breakpoint
 * events (probe/watch.h) with bpf/vigil/watch.bpf.c's vg_watch attached.
 * (No spec types here: spec.h and sym/dwarf.h both name a vg_loc.) */
#ifndef VIGIL_PLAN_WATCH_PLAN_H
#define VIGIL_PLAN_WATCH_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"
#include "vigil_event.h"

struct vg_dwarf;

struct vg_watch_plan {
	uint64_t link_addr;	/* move it by the load bias for a PIE */
	uint8_t len;		/* 1, 2, 4 or 8 */
	uint8_t conv;		/* enum vg_arg_conv */
};

/* The watchpoint on NAME ("counter" or "::counter") in PROG. Fails naming
 * the global and the program when it does not exist, is thread-local, or
 * is not 1, 2, 4 or 8 bytes long, aligned (what a debug register covers). */
int vg_watch_plan(struct vg_dwarf *dw, const char *prog, const char *name,
		  struct vg_watch_plan *out, struct vg_err *e);

/* A location armed per slice: from the pointer FUNC (in BINARY, whose
 * DWARF is dw) has in slot (a parameter position or VG_SLOT_RET), the
 * members of PATH ("count", "a.b", "next->val"; "" for *p): one load per
 * step but the last, then off[last]; the location's size (1 when it points
 * to void: void_target) and how its bits become `value`. */
struct vg_watch_slice_plan {
	uint32_t nsteps;
	uint32_t off[3];
	uint32_t elem;
	uint8_t conv;
	bool void_target;
};
int vg_watch_plan_slice(struct vg_dwarf *dw, const char *binary,
			const char *func, int slot, const char *path,
			struct vg_watch_slice_plan *out, struct vg_err *e);

/* A per-slice watch's location (`*p`, `q->count`, `*p @ n`), as the plan
 * finds it from the C type of the pointer a function gives (plan.h's
 * vg_plan_wloc): the memory reads from the pointer to the location's
 * address (nsteps - 1 loads, then off[last]), the location's size (for
 * `@ n`, of one element; 1 when it points to void) and how its bits
 * become `value`. */
struct vg_wp_type {
	uint32_t nsteps;
	uint32_t off[VG_CAP_STEPS];
	uint32_t elem;
	uint8_t conv;
	bool void_target;	/* *p with p a void *: a count is needed */
};

#endif
