/* Where a spec's function probes go: the object that defines each
 * function (the program, the libraries the loader maps for it, and the
 * --lib libraries it may dlopen), found once per run; and, for
 * `vigil lint --binary`, a description of every probe of the plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "probe_internal.h"
#include "sym/dwarf_cache.h"
#include "sym/libs.h"
#include "plan/plan.h"

/* what lint --binary says of a memory read: "s: what position 4 points
 * to, 8 bytes, read at the return" */
static void print_capture(FILE *out, const struct vg_event *ev, int k,
			  const struct vg_cap_plan *c)
{
	const struct vg_capture *cap = &ev->caps[k];
	const char *when = ev->kind == VG_EV_AFTER ? "the return" : "the call";

	if (cap->word)
		fprintf(out, "    %s: what position %d points to, ", cap->text,
			cap->src + 1);
	else
		fprintf(out, "    %s: ", cap->text);
	if (cap->is_str)
		fprintf(out, "a C string, read at %s\n", when);
	else
		fprintf(out, "%d bytes%s, read at %s\n", c->size,
			c->is_signed ? " (signed)" : "", when);
}

int vg_probe_libs(struct vg_probe *p, struct vg_err *e)
{
	if (p->libs_loaded)
		return 0;
	if (vg_libs_load_with(p->binary, p->dl_libs, p->ndl_libs, &p->libs, e))
		return -1;
	p->libs_loaded = true;
	return 0;
}

/* A function that cannot be found is the spec's error: say where the spec
 * asked for it (exit status 2). */
int vg_probe_at_spec_line(const struct vg_event *ev, struct vg_err *e)
{
	char tmp[sizeof(e->msg)];

	snprintf(tmp, sizeof(tmp), "%.256s:%d:%d: %.3800s", ev->loc.file,
		 ev->loc.line, ev->loc.col, e->msg);
	snprintf(e->msg, sizeof(e->msg), "%s", tmp);
	e->exit_code = VG_EXIT_USAGE;
	return -1;
}

int vg_probe_locate(struct vg_probe *p, const struct vg_event *ev,
		    struct vg_func_where *where, struct vg_err *e)
{
	/* a bad --lib is the command line's error, not the spec line's */
	if (vg_probe_libs(p, e))
		return -1;
	if (vg_libs_find_func(&p->libs, ev->name, where, e))
		return vg_probe_at_spec_line(ev, e);
	return 0;
}

int vg_probe_describe(const struct vg_plan *plan, const char *binary,
		      FILE *out, struct vg_err *e)
{
	const struct vg_spec *spec = plan->spec;
	struct vg_dwarf_cache *dc = NULL;
	int rc = 0, nwarn = 0;

	/* the plan's entry sites, one per function event (an `after`
	 * event's entry half is where its return probe goes too) */
	for (int i = 0; i < plan->nsites && !rc; i++) {
		const struct vg_plan_site *u = &plan->sites[i];
		const struct vg_event *ev = &spec->events[u->event];
		struct vg_ev_conf conf = { 0 };
		struct vg_args_plan args;
		bool first = true;

		for (int k = 0; k < i; k++)
			first &= plan->sites[k].event != u->event;
		if (!first)
			continue;
		fprintf(out, "probe %s %s: %s+0x%llx", vg_event_kind_name(ev->kind),
			ev->name, u->path, (unsigned long long)u->func);
		if (u->retprobe)	/* `after f()` without arguments */
			fprintf(out, ": return probe at the entry\n");
		else if (u->skipped)
			fprintf(out, ", entry probe moved +%llu past %d instruction%s to %s",
				(unsigned long long)(u->offset - u->func),
				u->skipped, u->skipped == 1 ? "" : "s", u->insn);
		else if (u->emulated)
			fprintf(out, ", on %s", u->insn);
		if (!u->retprobe)
			fprintf(out, ": %s\n", u->emulated ? "fast (emulated)"
					     : "SLOW (single-stepped, ~10x the cost)");
		if (ev->kind == VG_EV_AFTER && !u->retprobe)
			fprintf(out, "probe %s %s: return probe at the entry\n",
				vg_event_kind_name(ev->kind), ev->name);
		if ((rc = vg_plan_event(ev, u->path, binary, &dc, &conf,
					&args, out, e)))
			break;
		nwarn += __builtin_popcount(args.warn_mask) +
			 (args.caveat[0] != 0);
		for (int k = 0; k < ev->nfields; k++)
			if (ev->argname[k][0])
				fprintf(out, "    %s: %s\n", ev->argname[k],
					args.what[k]);
		if (ev->kind == VG_EV_AFTER && ev->uses_ret)
			fprintf(out, "    return value: %s\n",
				args.what[VG_SLOT_RET]);
		for (int k = 0; k < ev->ncaps; k++)
			print_capture(out, ev, k, &conf.cap[k]);
	}
	vg_dwarf_cache_free(dc);
	return rc ? -1 : nwarn;
}
