/* The plan's passes over what the run reads (plan.h): each event's entry
 * of the event table (where its arguments are and as which C type, its
 * return value, its memory reads, the slots its records carry), the
 * globals' watchpoints, and where each per-slice watch finds its memory.
 * All from DWARF, once, before anything is loaded: the session installs
 * these as they are, and `vigil lint --binary` prints them. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "plan_event.h"
#include "watch_plan.h"
#include "sym/dwarf_cache.h"
#include "sym/cxxnames.h"
#include "sym/libs.h"

/* e->msg prefixed with the spec line of ev (exit status 2) */
static int at_spec_line(const struct vg_loc *l, struct vg_err *e)
{
	char tmp[sizeof(e->msg)];

	snprintf(tmp, sizeof(tmp), "%.256s:%d:%d: %.3800s", l->file, l->line,
		 l->col, e->msg);
	snprintf(e->msg, sizeof(e->msg), "%s", tmp);
	e->exit_code = VG_EXIT_USAGE;
	return -1;
}

/* The slots user space reads of an event's records: the monitor, the
 * reports and --record look at its fields, its return value and its
 * captures (user/spec/spec.h), the evidence at the stack slots. */
static uint32_t rec_slots_used(const struct vg_event *ev, uint32_t flags)
{
	uint32_t n = ev->nfields < VG_MAX_FIELDS ? (uint32_t)ev->nfields
						 : VG_MAX_FIELDS;

	if (ev->uses_ret || ev->kind == VG_EV_AFTER)
		n = VG_SLOT_RET + 1;
	if (ev->ncaps > 0)
		n = VG_SLOT_CAP0 + (uint32_t)ev->ncaps;
	if (flags & VG_EVF_STACK)
		n = VG_NSLOTS;
	return n;
}

/* the plan's first site of event (the overloads of a C++ name share
 * their parameter names: the first one's DWARF places the arguments) */
static const struct vg_plan_site *first_site(const struct vg_plan *p,
					     int event)
{
	for (int i = 0; i < p->nsites; i++)
		if (p->sites[i].event == event)
			return &p->sites[i];
	return NULL;
}

int vg_plan_pass_reads(struct vg_plan *p, const struct vg_plan_opts *o,
		       struct vg_dwarf_cache **dc, struct vg_err *e)
{
	const struct vg_spec *s = p->spec;

	if (s->nevents > VG_MAX_EVENTS)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "the spec uses %d events; at most %d",
				    s->nevents, VG_MAX_EVENTS);
	for (int i = 0; i < s->nevents; i++) {
		const struct vg_event *ev = &s->events[i];
		struct vg_plan_event *pe = &p->events[i];
		struct vg_ev_conf *c = &pe->conf;
		const struct vg_plan_site *site;
		struct vg_args_plan args = { .all_names = o->all_names };

		c->flags |= pe->flags;
		c->arms = pe->arms;
		c->rel_slots = pe->rel_slots;
		if (ev->marks_inside)
			c->inside = ev->inside_bit;
		c->outside = ev->outside_mask;
		/* a call checked against watched blocks: its buffers */
		c->nrng = ev->nrng;
		for (int k = 0; k < 2; k++) {
			c->rng_ptr[k] = ev->rng_ptr[k];
			c->rng_len[k] = ev->rng_len[k];
		}
		if (ev->kind != VG_EV_BEFORE && ev->kind != VG_EV_AFTER) {
			/* not a function call: only its memory reads */
			if (vg_plan_event(ev, NULL, NULL, o->binary, dc, c,
					  NULL, o->warn, e))
				return -1;
		} else {
			/* a client request is no function: raw slots */
			site = ev->client_request ? NULL : first_site(p, i);
			if (vg_plan_event(ev, site ? site->path : "",
					  site ? site->sym : "", o->binary, dc,
					  c, &args, o->warn, e))
				return -1;
			memcpy(pe->what, args.what, sizeof(pe->what));
			p->nwarnings += __builtin_popcount(args.warn_mask) +
					(args.caveat[0] != 0);
		}
		c->rec_slots = vg_rec_slots_for(rec_slots_used(ev, c->flags));
	}
	return 0;
}

static int add_gwatch(struct vg_plan *p, int event, int k, const char *name,
		      const struct vg_watch_plan *wp)
{
	struct vg_plan_gwatch *g = realloc(p->gwatch, (size_t)(p->ngwatch + 1) *
						      sizeof(*g));
	enum vg_event_kind kind = p->spec->events[event].kind;

	if (!g)
		return -1;
	p->gwatch = g;
	g = &p->gwatch[p->ngwatch++];
	memset(g, 0, sizeof(*g));
	g->event = event;
	g->loc = k;
	snprintf(g->name, sizeof(g->name), "%s",
		 strncmp(name, "::", 2) ? name : name + 2);
	g->link_addr = wp->link_addr;
	g->len = wp->len;
	g->conv = wp->conv;
	g->read = kind == VG_EV_READ || kind == VG_EV_ACCESS;
	return 0;
}

/* the globals' watchpoints: address, size and type in the program */
static int pass_global_watches(struct vg_plan *p, const char *binary,
			       struct vg_dwarf_cache **dc, struct vg_err *e)
{
	const struct vg_spec *s = p->spec;

	for (int i = 0; i < s->nevents; i++) {
		const struct vg_event *ev = &s->events[i];
		bool change = ev->kind == VG_EV_CHANGE;

		if (!vg_event_watches(ev) || ev->wloc.per_slice)
			continue;
		for (int k = 0; k < (change ? ev->ncloc : 1); k++) {
			const char *name = change ? ev->cloc[k].base : ev->name;
			struct vg_watch_plan wp;

			if (vg_watch_plan(vg_dwarf_cached(dc, binary), binary,
					  name, &wp, e))
				return at_spec_line(&ev->loc, e);
			if (add_gwatch(p, i, k, name, &wp))
				return vg_errf(e, "out of memory");
		}
	}
	return 0;
}

/* the function event that gives parameter j of pr its value: the C type
 * of the pointer */
static int typed_source(const struct vg_spec *spec,
			const struct vg_property *pr, int j, int *slot)
{
	for (int b = 0; b < pr->nbindings; b++) {
		const struct vg_event *ev = &spec->events[pr->bindings[b].event];

		if ((ev->kind == VG_EV_BEFORE || ev->kind == VG_EV_AFTER) &&
		    pr->bindings[b].slot[j] != VG_UNBOUND) {
			*slot = pr->bindings[b].slot[j];
			return pr->bindings[b].event;
		}
	}
	return -1;
}

/* What the pointer FUNC gives in slot points to (a C++ method's `this`
 * too: its DWARF is found by its symbol) */
static int watch_type(struct vg_libs *libs, struct vg_dwarf_cache **dc,
		      const char *func, int slot, const char *path,
		      struct vg_wp_type *out, struct vg_err *e)
{
	struct vg_func_where *where = NULL;
	struct vg_watch_slice_plan sp;
	size_t n;
	int rc;

	if (vg_libs_find_funcs(libs, func, &where, &n, e))
		return -1;
	rc = vg_watch_plan_slice(vg_dwarf_cached(dc, where[0].path),
				 where[0].path,
				 where[0].sym[0] ? where[0].sym : func, slot,
				 path, &sp, e);
	free(where);
	if (rc)
		return -1;
	memset(out, 0, sizeof(*out));
	out->nsteps = sp.nsteps;
	memcpy(out->off, sp.off, sizeof(out->off));
	out->elem = sp.elem;
	out->conv = sp.conv;
	out->void_target = sp.void_target;
	return 0;
}

static int plan_wloc(const struct vg_spec *spec, const struct vg_property *pr,
		     const struct vg_event *ev, const struct vg_watch_loc *w,
		     struct vg_libs *libs, struct vg_dwarf_cache **dc,
		     struct vg_plan_wloc *l, struct vg_err *e)
{
	int src, slot = 0, idx;
	bool is_var;

	l->base = vg_watch_name(pr, w->base, &l->base_var);
	if (w->count[0] >= '0' && w->count[0] <= '9') {
		l->count_kind = VG_WCOUNT_CONST;
		l->count = strtoll(w->count, NULL, 10);
	} else if (w->count[0]) {
		idx = vg_watch_name(pr, w->count, &is_var);
		l->count_kind = is_var ? VG_WCOUNT_VAR : VG_WCOUNT_PARAM;
		l->count = idx;
	}
	src = l->base_var ? -1 : typed_source(spec, pr, l->base, &slot);
	l->src_event = src;
	if (src < 0) {
		/* a variable, or a parameter no function gives: no C type,
		 * so bytes, and only *v @ n says how many */
		if (w->path[0] || !w->count[0])
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s:%d:%d: %s has no C type (%s): watch *%s @ n, n bytes",
					    ev->loc.file, ev->loc.line, ev->loc.col,
					    w->base, l->base_var ? "a slice variable"
					    : "no function call gives it", w->base);
		l->ty = (struct vg_wp_type){ .nsteps = 1, .elem = 1,
					     .void_target = true };
		return 0;
	}
	if (watch_type(libs, dc, spec->events[src].name, slot, w->path,
		       &l->ty, e))
		return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d:%d: watching %s: %.3900s",
				    ev->loc.file, ev->loc.line, ev->loc.col,
				    ev->name, e->msg);
	if (l->ty.void_target && !w->count[0])
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s:%d:%d: %s points to void (or to a type DWARF does not give): say how many bytes, *%s @ n",
				    ev->loc.file, ev->loc.line, ev->loc.col,
				    w->base, w->base);
	return 0;
}

const struct vg_plan_swatch *vg_plan_swatch_of(const struct vg_plan *p,
					       int prop, int event)
{
	for (int i = 0; i < p->nswatch; i++)
		if (p->swatch[i].prop == prop && p->swatch[i].event == event)
			return &p->swatch[i];
	return NULL;
}

/* each user-tier property's per-slice watch events: the locations */
static int pass_slice_watches(struct vg_plan *p, struct vg_libs *libs,
			      struct vg_dwarf_cache **dc, struct vg_err *e)
{
	const struct vg_spec *s = p->spec;

	for (int pi = 0; pi < s->nprops; pi++) {
		const struct vg_property *pr = &s->props[pi];

		for (int t = 0; !p->kernel[pi] && t < pr->ntrans; t++) {
			int ev = pr->trans[t].event;
			const struct vg_event *x = &s->events[ev];
			bool change = x->kind == VG_EV_CHANGE;
			struct vg_plan_swatch *w;

			if (!vg_event_watches(x) || !x->wloc.per_slice ||
			    vg_plan_swatch_of(p, pi, ev))
				continue;
			w = realloc(p->swatch, (size_t)(p->nswatch + 1) *
					       sizeof(*w));
			if (!w)
				return vg_errf(e, "out of memory");
			p->swatch = w;
			w = &p->swatch[p->nswatch++];
			memset(w, 0, sizeof(*w));
			w->prop = pi;
			w->event = ev;
			w->nloc = change ? x->ncloc : 1;
			for (int k = 0; k < w->nloc; k++)
				if (plan_wloc(s, pr, x, change ? &x->cloc[k]
							       : &x->wloc,
					      libs, dc, &w->loc[k], e))
					return -1;
		}
	}
	return 0;
}

int vg_plan_pass_watches(struct vg_plan *p, const struct vg_plan_opts *o,
			 struct vg_libs *libs, struct vg_dwarf_cache **dc,
			 struct vg_err *e)
{
	if (pass_global_watches(p, o->binary, dc, e))
		return -1;
	return pass_slice_watches(p, libs, dc, e);
}
