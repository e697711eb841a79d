/* Hardware watchpoints for `write x`, `read x` and `access x` on a global
 * of the program: x's address, size and type from the program's symbols
 * and DWARF; user/probe/probe.c arms them as perf breakpoint events with
 * bpf/lifecycle.bpf.h's vg_watch attached. (No spec types here: spec.h and
 * sym/dwarf.h both name a vg_loc.) */
#ifndef VIGIL_PROBE_WATCH_H
#define VIGIL_PROBE_WATCH_H

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

/* Open a hardware breakpoint (x86 bp_type: write, or read/write for read
 * and access: the hardware has no read-only one) on thread tid, inherited
 * by the threads and processes it creates. Returns the perf fd or -1. */
int vg_watch_open(int tid, uint64_t addr, int len, int kind,
		  struct vg_err *e);

#endif
