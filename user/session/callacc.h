/* Accesses through calls: the C library's string and memory functions and
 * the system calls with a buffer, whose pointer arguments may fall inside
 * memory a slice watches (`access *p @ size`: a freed block). Debug
 * registers see the program's own instructions on the first 32 bytes of
 * one block at a time; these calls are checked against every watched
 * block, whole (user/session/watchset_ranges.c).
 *
 * vg_callacc_add appends one `before FUNCTION` / `syscall NAME` event per
 * call to the spec, for each per-slice read/write/access event, with that
 * event's `outside` functions (realloc's own memcpy of a block it frees
 * is the allocator's), and one fault event (a SIGSEGV or SIGBUS whose
 * address may be in a watched block: glibc unmaps large blocks at free);
 * the probes then come from the plan like any other. vg_callacc_ranges reads the memory ranges an event's arguments
 * say the call reads or writes. */
#ifndef VIGIL_SESSION_CALLACC_H
#define VIGIL_SESSION_CALLACC_H

#include <stdbool.h>
#include <stdint.h>

#include "spec/spec.h"

struct vg_mon_event;

struct vg_callacc_range {
	uint64_t addr, len;
	bool write;		/* else read */
};

#define VG_CALLACC_RANGES 2

/* The slots of the fault event vg_callacc_add appends per watch event (a
 * SIGSEGV or SIGBUS raised by an access: bpf/vigil/lifecycle.bpf.c) */
enum {
	VG_FSLOT_SIG, VG_FSLOT_ADDR,
	VG_FSLOT_WRITE,		/* the page fault was a write's */
	VG_FSLOT_PC,		/* the faulting instruction */
	VG_FSLOT_N
};

/* Whether event is such a fault event. */
bool vg_callacc_is_fault(const struct vg_spec *spec, int event);

/* Append the call events (none when no property watches per slice).
 * -1 with e set on out of memory. */
int vg_callacc_add(struct vg_spec *spec, struct vg_err *e);

/* The ranges event ev (spec->events[ev->event].access_for != 0) touches:
 * how many of out[VG_CALLACC_RANGES]. */
int vg_callacc_ranges(const struct vg_spec *spec,
		      const struct vg_mon_event *ev,
		      struct vg_callacc_range *out);

/* What the calls cover, for the docs and `vigil plan`: "memcpy memmove
 * ... read(2) ..." */
const char *vg_callacc_names(void);

#endif
