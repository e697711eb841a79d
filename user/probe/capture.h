/* Captures: the values a spec reads from target memory (`q->count`,
 * `p->a.b`, `p->next->val`, `*p`), turned into what the probe must read:
 * which register holds the pointer, the offsets from DWARF, the size and
 * signedness of the value (struct vg_cap_plan, include/vigil_event.h).
 * (No spec types here: spec.h and sym/dwarf.h both name a vg_loc.) */
#ifndef VIGIL_PROBE_CAPTURE_H
#define VIGIL_PROBE_CAPTURE_H

#include <stdbool.h>

#include "util/err.h"
#include "vigil_event.h"

struct vg_dwarf;

struct vg_cap_req {
	int src;		/* the spec's field: parameter index or
				 * VG_SLOT_RET */
	const char *path;	/* "count", "a.b", "next->val"; "" for *p */
	bool is_str;		/* str(p), str(p->name): the C string there */
};

/* Plans captures req[0..n) of FUNC, which lives in BINARY (the program or
 * a library) whose DWARF handle is dw, into out[0..n). On failure returns -1, *bad is the capture
 * at fault (0 for what concerns them all) and e->msg says why: no DWARF,
 * no such field, a member that is not an integer or pointer, naming the
 * function and the binary. */
int vg_capture_plan(struct vg_dwarf *dw, const char *binary,
		    const char *func, const struct vg_cap_req *req, int n,
		    struct vg_cap_plan *out, int *bad, struct vg_err *e);

#endif
