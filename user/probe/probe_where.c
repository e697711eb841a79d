/* Where a spec's function probes go: the object that defines each
 * function (the program, the libraries the loader maps for it, and the
 * --lib libraries it may dlopen), found once per run; and, for
 * `vigil lint --binary`, a description of every probe of the plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "probe_internal.h"
#include "sym/cxxnames.h"
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

int vg_probe_locate_all(struct vg_probe *p, const struct vg_event *ev,
			const struct vg_func_where **where, size_t *n,
			struct vg_err *e)
{
	struct vg_located *l;
	void *np;

	for (int i = 0; i < p->nlocated; i++)
		if (!strcmp(p->located[i].name, ev->name)) {
			*where = p->located[i].v;
			*n = p->located[i].n;
			return 0;
		}
	/* a bad --lib is the command line's error, not the spec line's */
	if (vg_probe_libs(p, e))
		return -1;
	np = realloc(p->located, (size_t)(p->nlocated + 1) * sizeof(*l));
	if (!np)
		return vg_errf(e, "out of memory");
	p->located = np;
	l = &p->located[p->nlocated];
	memset(l, 0, sizeof(*l));
	if (vg_libs_find_funcs(&p->libs, ev->name, &l->v, &l->n, e))
		return vg_probe_at_spec_line(ev, e);
	if (!(l->name = strdup(ev->name))) {
		free(l->v);
		return vg_errf(e, "out of memory");
	}
	p->nlocated++;
	*where = l->v;
	*n = l->n;
	return 0;
}

int vg_probe_locate(struct vg_probe *p, const struct vg_event *ev,
		    struct vg_func_where *where, struct vg_err *e)
{
	const struct vg_func_where *all;
	size_t n;

	if (vg_probe_locate_all(p, ev, &all, &n, e))
		return -1;
	*where = all[0];
	return 0;
}

void vg_probe_where_free(struct vg_probe *p)
{
	for (int i = 0; i < p->nlocated; i++) {
		free(p->located[i].name);
		free(p->located[i].v);
	}
	free(p->located);
	p->located = NULL;
	p->nlocated = 0;
	if (p->libs_loaded)
		vg_libs_free(&p->libs);
	p->libs_loaded = false;
}

int vg_probe_describe(const struct vg_plan *plan, const char *binary,
		      bool all_names,
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
		bool first = true, entry = false;
		char shown[1024];

		for (int k = 0; k < i; k++)
			first &= plan->sites[k].event != u->event;
		for (int k = 0; k < plan->nsites; k++)
			entry |= plan->sites[k].event == u->event &&
				 !plan->sites[k].retprobe;
		/* one line per function the name stands for (each overload
		 * of a C++ name has its sites); a return probe has its line
		 * only when no entry site says where it is */
		if (!u->retprobe || !entry) {
			fprintf(out, "probe %s %s: %s+0x%llx",
				vg_event_kind_name(ev->kind), ev->name, u->path,
				(unsigned long long)u->func);
			/* what a C++ name resolved to, as gdb shows it */
			vg_demangle_into(u->sym, shown, sizeof(shown));
			if (u->sym[0] && strcmp(shown, ev->name))
				fprintf(out, " (%s)", shown);
			if (u->retprobe)	/* `after f()` without arguments */
				fprintf(out, ": return probe at the entry\n");
			else if (u->skipped)
				fprintf(out, ", entry probe moved +%llu past %d instruction%s to %s",
					(unsigned long long)(u->offset - u->func),
					u->skipped, u->skipped == 1 ? "" : "s",
					u->insn);
			else if (u->emulated)
				fprintf(out, ", on %s", u->insn);
			if (!u->retprobe)
				fprintf(out, ": %s\n", u->emulated
					? "fast (emulated)"
					: "SLOW (single-stepped, ~10x the cost)");
		}
		if (!first)
			continue;	/* the arguments: once per event */
		if (ev->kind == VG_EV_AFTER && entry)
			fprintf(out, "probe %s %s: return probe at the entry\n",
				vg_event_kind_name(ev->kind), ev->name);
		args.all_names = all_names;
		if ((rc = vg_plan_event(ev, u->path, u->sym, binary, &dc, &conf,
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
