/* Where a watchpoint's memory is, planned from DWARF (user/plan/watch_plan.h).
 * Arming it is user/probe/'s (probe/watch.c, probe_watch.c). */
#include "watch_plan.h"

#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "conv.h"
#include "sym/dwarf.h"
#include "vigil_event.h"

int vg_watch_plan(struct vg_dwarf *dw, const char *prog, const char *name,
		  struct vg_watch_plan *out, struct vg_err *e)
{
	struct vg_global g;
	const struct vg_type *t;
	int conv;

	if (!strncmp(name, "::", 2))
		name += 2;
	if (!dw)
		return vg_errf_code(e, VG_EXIT_USAGE, "%s is not a readable ELF file",
				    prog);
	if (vg_dwarf_global(dw, name, &g, e))
		return -1;
	t = g.has_type ? &g.type : NULL;
	out->len = (uint8_t)(t ? t->size : g.size);
	if (out->len != 1 && out->len != 2 && out->len != 4 && out->len != 8)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "global '%s' in %s is %u bytes: a watchpoint covers 1, 2, 4 or 8",
				    name, prog, out->len);
	if (g.addr % out->len)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "global '%s' in %s is not aligned to its size: a debug register cannot cover it",
				    name, prog);
	out->link_addr = g.addr;
	/* as an argument of its type would read; raw bits otherwise (no
	 * DWARF type, a float) */
	conv = t ? vg_conv_of(t) : -1;
	out->conv = (uint8_t)(conv < 0 ? VG_CONV_ZEXT : conv);
	return 0;
}

int vg_watch_plan_slice(struct vg_dwarf *dw, const char *binary,
			const char *func, int slot, const char *path,
			struct vg_watch_slice_plan *out, struct vg_err *e)
{
	struct vg_cap_req req = { .src = slot, .path = path };
	struct vg_err de = { 0 };
	struct vg_cap_plan cap;
	struct vg_proto pr;
	struct vg_type t, target;
	int bad, conv;

	memset(out, 0, sizeof(*out));
	if (path[0]) {		/* p->field: as a capture would read it */
		if (vg_capture_plan(dw, binary, func, &req, 1, &cap, &bad, e))
			return -1;
		out->nsteps = cap.nsteps;
		memcpy(out->off, cap.off, sizeof(out->off));
		out->elem = cap.size;
		out->conv = cap.is_signed ? VG_CONV_SEXT : VG_CONV_ZEXT;
		return 0;
	}
	/* *p: what p points to; bytes when that is void or unknown (malloc's
	 * result, or a library without DWARF) */
	out->nsteps = 1;
	out->elem = 1;
	out->conv = VG_CONV_ZEXT;
	out->void_target = true;
	if (!dw || vg_dwarf_proto(dw, func, &pr, &de))
		return 0;
	if (slot == VG_SLOT_RET ? !pr.has_ret : (size_t)slot >= pr.nparams) {
		vg_proto_free(&pr);
		return vg_errf_code(e, VG_EXIT_USAGE, "%s in %s has no %s in DWARF",
				    func, binary, slot == VG_SLOT_RET
				    ? "return value" : "such parameter");
	}
	t = slot == VG_SLOT_RET ? pr.ret : pr.params[slot].type;
	vg_proto_free(&pr);
	if (t.kind != VG_TK_PTR)
		return vg_errf_code(e, VG_EXIT_USAGE, "the value %s gives in %s is a %s, not a pointer: nothing to watch at *p",
				    func, binary, t.name);
	if (t.target && !vg_dwarf_type(dw, t.target, &target, &de) &&
	    target.size) {
		out->void_target = false;
		out->elem = (uint32_t)target.size;
		conv = vg_conv_of(&target);
		out->conv = (uint8_t)(conv < 0 ? VG_CONV_ZEXT : conv);
	}
	return 0;
}
