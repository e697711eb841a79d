/* Within user/report/: the bytes a memory check's violation is about.
 * A property that uses a memory predicate (valid(p, n): the overflow
 * checks, specs/lib/heap_overflow.vigil) and says what it measured in
 * the variables `len` (the bytes the call would touch) and `room` (those
 * left in the object from the pointer), with `at` the pointer when it
 * keeps it, gets a `range` line in its violation's text and a "range"
 * object in its JSON: "[0x..., 0x...): 100 bytes at block of 50 bytes
 * from malloc, +0: 50 fit, 50 past its end". Only what the property
 * computed; none when its variables do not say an overrun. */
#ifndef VIGIL_REPORT_MEMRANGE_H
#define VIGIL_REPORT_MEMRANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "monitor/monitor.h"

struct vg_memrange {
	uint64_t len, room, over;
	bool has_at;
	uint64_t at;
	bool named;		/* object says what at points into */
	char object[256];
};

/* s's range, named by the report's namer as it names now */
bool vg_memrange_of(const struct vg_spec *spec, const struct vg_slice_view *s,
		    struct vg_memrange *m);
void vg_memrange_text(const struct vg_memrange *m, char *buf, size_t len);
/* {"at":"0x...","len":100,"room":50,"over":50,"object":"...","text":"..."} */
void vg_memrange_json(const struct vg_memrange *m, FILE *out);

#endif
