/* Hardware watchpoints for `write x`, `read x` and `access x`: on a
 * global of the program, x's address, size and type from the program's
 * symbols and DWARF; on memory a slice points to, the offsets and types
 * from the DWARF of the function that gave the slice its pointer.
 * user/probe/probe_watch.c arms them as perf breakpoint events with
 * bpf/vigil/watch.bpf.c's vg_watch attached. (No spec types here: spec.h and
 * sym/dwarf.h both name a vg_loc.) */
#ifndef VIGIL_PROBE_WATCH_H
#define VIGIL_PROBE_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"

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

/* Open a hardware breakpoint (x86 bp_type: write, or read/write for read
 * and access: the hardware has no read-only one) on thread tid, inherited
 * by the threads and processes it creates. Returns the perf fd or -1. */
int vg_watch_open(int tid, uint64_t addr, int len, int kind,
		  struct vg_err *e);

#endif
