/* Accesses through calls: the C library's string and memory functions and
 * the system calls with a buffer, whose pointer arguments may fall inside
 * memory a slice watches (`access *p @ size`: a freed block). Debug
 * registers see the program's own instructions on the first 32 bytes of
 * one block at a time; these calls are checked against every watched
 * block, whole (watchset_ranges.c).
 *
 * vg_callacc_add (watchset.h: the session calls it before the plan)
 * appends one `before FUNCTION` / `syscall NAME` event per
 * call to the spec, for each per-slice read/write/access event, with that
 * event's `outside` functions (realloc's own memcpy of a block it frees
 * is the allocator's), and one fault event (a SIGSEGV or SIGBUS whose
 * address may be in a watched block: glibc unmaps large blocks at free);
 * the probes then come from the plan like any other. vg_callacc_ranges reads the memory ranges an event's arguments
 * say the call reads or writes. Private to user/watchset/ (and its unit
 * test). */
#ifndef VIGIL_WATCHSET_CALLACC_H
#define VIGIL_WATCHSET_CALLACC_H

#include <stdbool.h>
#include <stdint.h>

#include "spec/spec.h"
#include "watchset.h"

struct vg_mon_event;

struct vg_callacc_range {
	uint64_t addr, len;
	bool write;		/* else read */
};

#define VG_CALLACC_RANGES 2

/* The ranges event ev (spec->events[ev->event].access_for != 0) touches:
 * how many of out[VG_CALLACC_RANGES]. */
int vg_callacc_ranges(const struct vg_spec *spec,
		      const struct vg_mon_event *ev,
		      struct vg_callacc_range *out);

/* What the calls cover, for the docs and `vigil plan`: "memcpy memmove
 * ... read(2) ..." */
const char *vg_callacc_names(void);

#endif
