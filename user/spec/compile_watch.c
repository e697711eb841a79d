/* The location of a `write x`, `read x` or `access x` event
 * (struct vg_watch_loc): a global of the program, or memory that a slice
 * parameter or variable points to, checked against the property that
 * uses it. The address itself is computed later: from DWARF and the
 * loaded program for a global (user/probe/watch.c), from the slice's
 * values when a slice enters a state that consumes the event
 * (user/session/watchset.c). */
#include "compile_internal.h"

#include <stdio.h>
#include <string.h>

/* The event's location from its expression; the same text always gives
 * the same location, so the first pattern decides for every property. */
static void locate(struct cc *c, const struct vg_pattern *pat,
		   struct vg_watch_loc *w)
{
	const struct vg_expr *e = pat->wexpr, *base = NULL;

	if (e->kind == EX_NAME || e->kind == EX_GLOBAL) {
		snprintf(w->base, sizeof(w->base), "%s", e->str);
	} else if (e->kind == EX_UNARY && e->op == T_STAR &&
		   e->a->kind == EX_NAME) {
		w->per_slice = true;
		snprintf(w->base, sizeof(w->base), "%s", e->a->str);
	} else if (e->kind == EX_MEMBER &&
		   vg_cc_member_path(e, &base, w->path, sizeof(w->path)) &&
		   base->kind == EX_NAME) {
		w->per_slice = true;
		snprintf(w->base, sizeof(w->base), "%s", base->str);
	} else {
		vg_ld_error(c->ld, e->start, "cannot watch '%s', expected a global of the program (x, ::x), or *p, p->field or p->a.b with p a slice parameter or variable",
			    pat->name);
	}
	if (!pat->wcount)
		return;
	if (pat->wcount->kind == EX_INT && pat->wcount->ival > 0)
		snprintf(w->count, sizeof(w->count), "%lld",
			 (long long)pat->wcount->ival);
	else if (pat->wcount->kind == EX_NAME)
		snprintf(w->count, sizeof(w->count), "%s", pat->wcount->str);
	else
		vg_ld_error(c->ld, pat->wcount->start, "expected a positive number, or a slice parameter or variable, after '@'");
	if (!w->per_slice)
		vg_ld_error(c->ld, pat->wcount->start, "'@' counts elements from a pointer, expected *p @ n or p->field @ n with p a slice parameter or variable");
}

/* `outside f`: f's entry and return probes keep, per thread, whether it
 * is inside f (they exist as events of their own, shared with any
 * property that uses them) */
static void mark_outside(struct cc *c, const struct vg_pattern *pat)
{
	for (int i = 0; i < pat->noutside; i++)
		for (int k = 0; k < 2; k++) {
			struct vg_pattern f = {
				.kind = k ? VG_EV_AFTER : VG_EV_BEFORE,
				.loc = pat->outside[i].loc,
				.name = pat->outside[i].name,
				.name_loc = pat->outside[i].loc,
			};

			c->ld->events[vg_cc_event_index(c->ld, &f)].marks_inside = true;
		}
}

void vg_cc_watch(struct cc *c, const struct vg_pattern *pat, int from)
{
	struct vg_event *ev = &c->ld->events[c->ev];
	struct vg_watch_loc *w = &ev->wloc;
	const struct vg_property *pr = c->pr;
	bool is_var;

	if (!w->base[0]) {
		locate(c, pat, w);
		w->noutside = pat->noutside;
		for (int i = 0; i < pat->noutside; i++)
			snprintf(w->outside[i], sizeof(w->outside[i]), "%s",
				 pat->outside[i].name);
		mark_outside(c, pat);
		/* the events may have moved */
		ev = &c->ld->events[c->ev];
		w = &ev->wloc;
	}
	if (!w->per_slice) {
		if (pat->wexpr->kind == EX_NAME &&
		    vg_watch_name(pr, w->base, &is_var) >= 0)
			vg_ld_error(c->ld, pat->wexpr->start, "'%s' is a slice %s of %s, not target memory: expected *%s or %s->field",
				    w->base, is_var ? "variable" : "parameter",
				    pr->name, w->base, w->base);
		return;
	}
	if (vg_watch_name(pr, w->base, &is_var) < 0)
		vg_ld_error(c->ld, pat->name_loc, "'%s' is not a slice parameter or variable of %s: a watchpoint on *p or p->field is armed per slice, at the address the slice's p gives",
			    w->base, pr->name);
	if (w->count[0] && !(w->count[0] >= '0' && w->count[0] <= '9') &&
	    vg_watch_name(pr, w->count, &is_var) < 0)
		vg_ld_error(c->ld, pat->wcount->start, "'%s' is not a slice parameter or variable of %s, expected the number of elements to watch",
			    w->count, pr->name);
	if (from == 0)
		vg_ld_error(c->ld, pat->loc, "'%s %s' in the initial state: a watchpoint on memory a slice points to is armed when the slice enters a state that consumes it, and no slice is in the initial state",
			    vg_event_kind_name(pat->kind), pat->name);
}
