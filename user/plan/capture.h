/* Captures: the values a spec reads from target memory (`q->count`,
 * `p->a.b`, `p->next->val`, `*p`), turned into what the probe must read:
 * which register holds the pointer, the offsets from DWARF, the size and
 * signedness of the value (struct vg_cap_plan, include/vigil_event.h).
 * (No spec types here: spec.h and sym/dwarf.h both name a vg_loc.) */
#ifndef VIGIL_PLAN_CAPTURE_H
#define VIGIL_PLAN_CAPTURE_H

#include <stdbool.h>

#include "util/err.h"
#include "vigil_event.h"

struct vg_dwarf;

struct vg_cap_req {
	int src;		/* the spec's field: parameter index,
				 * VG_SLOT_RET or VG_CAP_GLOBAL */
	const char *path;	/* "count", "a.b", "next->val"; "" for *p */
	bool is_str;		/* str(p), str(p->name): the C string there */
	bool word;		/* *p without DWARF: the 8 bytes there */
};

/* Plans captures req[0..n) of FUNC, which lives in BINARY (the program or
 * a library) whose DWARF handle is dw, into out[0..n); those of globals
 * (src VG_CAP_GLOBAL) are left to vg_capture_plan_global. On failure returns -1, *bad is the capture
 * at fault (0 for what concerns them all) and e->msg says why: no DWARF,
 * no such field, a member that is not an integer or pointer, naming the
 * function and the binary. */
int vg_capture_plan(struct vg_dwarf *dw, const char *binary,
		    const char *func, const struct vg_cap_req *req, int n,
		    struct vg_cap_plan *out, int *bad, struct vg_err *e);

/* A read of the program's global (`::counter`, `::cfg.level`,
 * `::head->n`, `str(::name)`; c->path is "counter", "cfg.level", ...),
 * from the program's DWARF (its .symtab alone for a plain integer). The
 * probe starts from the program's text as loaded (mm->start_code), so a
 * PIE's load address does not matter. */
int vg_capture_plan_global(struct vg_dwarf *dw, const char *prog,
			   const struct vg_cap_req *c, struct vg_cap_plan *plan,
			   struct vg_err *e);

#endif
