/* Planning one event's probe (user/plan/plan_event.h): the spec's side of
 * args.c and capture.c, which know DWARF but not the spec. */
#include "plan_event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "sym/dwarf_cache.h"
#include "util/color.h"

/* e->msg prefixed with the spec line it concerns */
static int at(const struct vg_loc *l, const char *what, struct vg_err *e)
{
	char tmp[sizeof(e->msg)];

	snprintf(tmp, sizeof(tmp), "%.256s:%d:%d: %s%.3600s", l->file, l->line,
		 l->col, what, e->msg);
	snprintf(e->msg, sizeof(e->msg), "%s", tmp);
	e->exit_code = VG_EXIT_USAGE;
	return -1;
}

static int cap_failed(const struct vg_capture *c, struct vg_err *e)
{
	char what[200];

	snprintf(what, sizeof(what), "cannot read '%.128s': ", c->text);
	return at(&c->loc, what, e);
}

/* An event's memory reads: `p->field` and `str(p)` from the function's
 * DWARF (object_dw; NULL for events that are not function calls, whose
 * str(arg) needs no types), `::global` from the program's. */
static int plan_captures(const struct vg_event *ev, const char *func,
			 struct vg_dwarf *object_dw,
			 const char *object, struct vg_dwarf *prog_dw,
			 const char *prog, struct vg_ev_conf *conf,
			 struct vg_err *e)
{
	struct vg_cap_req req[VG_MAX_CAPS];
	bool fn = ev->kind == VG_EV_BEFORE || ev->kind == VG_EV_AFTER;
	int bad;

	for (int k = 0; k < ev->ncaps; k++)
		req[k] = (struct vg_cap_req){ ev->caps[k].src, ev->caps[k].path,
					      ev->caps[k].is_str,
					      ev->caps[k].word };
	if (fn && vg_capture_plan(object_dw, object, func, req, ev->ncaps,
				  conf->cap, &bad, e))
		return cap_failed(&ev->caps[bad], e);
	for (int k = 0; k < ev->ncaps; k++) {
		if (req[k].src == VG_CAP_GLOBAL) {
			if (vg_capture_plan_global(prog_dw, prog, &req[k],
						   &conf->cap[k], e))
				return cap_failed(&ev->caps[k], e);
		} else if (!fn) {	/* str(arg) of a syscall: the address */
			conf->cap[k] = (struct vg_cap_plan){
				.src = (__u8)req[k].src, .str = VG_CAPS_AT };
		}
		conf->cap[k].str_idx = ev->caps[k].str_idx;
	}
	conf->ncaps = (uint32_t)ev->ncaps;
	if (ev->nstrs)
		conf->flags |= VG_EVF_STRS;
	return 0;
}

/* A library the system installed (libc, libz...): its parameter names are
 * not the user's to change, nor the spec's business (a library spec names
 * them for what it checks). */
static bool system_library(const char *object, const char *prog)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/",
					    "/usr/lib64/" };

	if (!strcmp(object, prog))
		return false;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!strncmp(object, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

/* Which name warnings a user can act on: a name that is the function's own
 * for another position (arguments swapped, likely), unless it binds a
 * slice parameter (the spec's own name for the object) or the function is
 * in a system library. `vigil lint --all-warnings` shows every one. */
static unsigned worth_warning(const struct vg_event *ev, const char *object,
			      const char *prog, const struct vg_args_plan *ap)
{
	if (system_library(object, prog))
		return 0;
	return ap->likely_mask & ~ev->binds;
}

int vg_plan_event(const struct vg_event *ev, const char *object,
		  const char *func,
		  const char *prog, struct vg_dwarf_cache **dc,
		  struct vg_ev_conf *conf, struct vg_args_plan *what,
		  FILE *warn, struct vg_err *e)
{
	struct vg_dwarf *dw = object ? vg_dwarf_cached(dc, object) : NULL;
	struct vg_args_req req = {
		.func = func && *func ? func : ev->name,
		.nfields = ev->nfields,
		.names = ev->argname,
		.used = ev->used,
		.uses_ret = ev->kind == VG_EV_AFTER && ev->uses_ret,
	};
	struct vg_args_plan local, *ap = what ? what : &local;
	bool all_names = what && what->all_names;

	if (!object)	/* not a function call: only its memory reads */
		return ev->ncaps ? plan_captures(ev, NULL, NULL, NULL,
						 vg_dwarf_cached(dc, prog),
						 prog, conf, e)
				 : 0;
	if (vg_args_plan(dw, object, &req, conf, ap, e))
		return at(ap->bad == VG_SLOT_RET ? &ev->loc
						 : &ev->argloc[ap->bad], "", e);
	if (!all_names)
		ap->warn_mask &= worth_warning(ev, object, prog, ap);
	/* yellow on the terminal only (lint --binary writes to stdout) */
	const char *y = warn == stderr ? vg_color(VG_COLOR_YELLOW) : "",
		   *end = warn == stderr ? vg_color(VG_COLOR_END) : "";

	for (int i = 0; warn && i < VG_MAX_FIELDS; i++)
		if (ap->warn_mask >> i & 1)
			fprintf(warn, "%s:%d:%d: %swarning%s: %s\n",
				ev->argloc[i].file, ev->argloc[i].line,
				ev->argloc[i].col, y, end, ap->warn[i]);
	if (warn && ap->caveat[0])
		fprintf(warn, "%s:%d:%d: %swarning%s: %s\n", ev->loc.file,
			ev->loc.line, ev->loc.col, y, end, ap->caveat);
	if (ev->ncaps && plan_captures(ev, req.func, dw, object,
				       vg_dwarf_cached(dc, prog),
				       prog, conf, e))
		return -1;
	return 0;
}
