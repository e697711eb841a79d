/* The location of a `write x`, `read x` or `access x` event
 * (struct vg_watch_loc): a global of the program, or memory that a slice
 * parameter or variable points to, checked against the property that
 * uses it. The address itself is computed later: from DWARF and the
 * loaded program for a global (user/plan/watch_plan.c), from the slice's
 * values when a slice enters a state that consumes the event
 * (user/watchset/watchset.c). */
#include "compile_internal.h"

#include <stdio.h>
#include <stdlib.h>
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

void vg_cc_watch(struct cc *c, const struct vg_pattern *pat, int from)
{
	struct vg_event *ev = &c->ld->events[c->ev];
	struct vg_watch_loc *w = &ev->wloc;
	const struct vg_property *pr = c->pr;
	bool is_var;

	if (!w->base[0])
		locate(c, pat, w);
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

/* ---- change EXPR ------------------------------------------------------ */

struct chg {
	struct cc *c;
	struct vg_event *ev;
	int cap;
};

/* The code outlives the load (its arena does not): it is the event's,
 * on the heap, freed with the event's name. */
static void chg_emit(struct chg *g, enum vg_opcode op, int idx, int64_t imm)
{
	struct vg_event *ev = g->ev;

	if (ev->nccode == g->cap) {
		int cap = g->cap ? 2 * g->cap : 16;
		struct vg_insn *v = vg_ld_xcalloc(g->c->ld, (size_t)cap, sizeof(*v));

		if (ev->nccode)
			memcpy(v, ev->ccode, (size_t)ev->nccode * sizeof(*v));
		free(ev->ccode);
		ev->ccode = v;
		g->cap = cap;
	}
	ev->ccode[ev->nccode++] = (struct vg_insn){ .op = (uint8_t)op,
						    .idx = (uint16_t)idx,
						    .imm = imm };
}

/* location e of EXPR: its slot, the same location twice being one */
static int chg_loc(struct chg *g, const struct vg_expr *e)
{
	struct vg_watch_loc w = { 0 };
	const struct vg_expr *base = NULL;
	struct vg_event *ev = g->ev;

	if (e->kind == EX_NAME || e->kind == EX_GLOBAL) {
		snprintf(w.base, sizeof(w.base), "%s", e->str);
	} else if (e->kind == EX_UNARY && e->a->kind == EX_NAME) {
		w.per_slice = true;
		snprintf(w.base, sizeof(w.base), "%s", e->a->str);
	} else if (vg_cc_member_path(e, &base, w.path, sizeof(w.path)) &&
		   base->kind == EX_NAME) {
		w.per_slice = true;
		snprintf(w.base, sizeof(w.base), "%s", base->str);
	} else {
		vg_ld_error(g->c->ld, e->start, "change cannot read this, expected a global (x, ::x), *p or p->field with p a slice parameter or variable");
	}
	for (int k = 0; k < ev->ncloc; k++)
		if (!strcmp(ev->cloc[k].base, w.base) &&
		    !strcmp(ev->cloc[k].path, w.path) &&
		    ev->cloc[k].per_slice == w.per_slice)
			return k;
	if (ev->ncloc == VG_CHANGE_LOCS)
		vg_ld_error(g->c->ld, e->start, "change reads a %dth memory location, expected at most %d (one debug register each)",
			    ev->ncloc + 1, VG_CHANGE_LOCS);
	if (ev->ncloc && ev->cloc[0].per_slice != w.per_slice)
		vg_ld_error(g->c->ld, e->start, "change mixes globals and memory a slice points to, expected one or the other");
	ev->cloc[ev->ncloc] = w;
	return ev->ncloc++;
}

/* EXPR as bytecode, each memory location a slot: vigil keeps the last
 * value written to each and evaluates EXPR again at every write */
static void chg_expr(struct chg *g, const struct vg_expr *e)
{
	switch (e->kind) {
	case EX_INT:
	case EX_BOOL:
		chg_emit(g, VG_OP_PUSH, 0, e->ival);
		return;
	case EX_NULL:
		chg_emit(g, VG_OP_PUSH, 0, 0);
		return;
	case EX_UNARY:
		if (e->op == T_STAR)
			break;
		chg_expr(g, e->a);
		chg_emit(g, e->op == T_BANG ? VG_OP_NOT : e->op == T_MINUS
			 ? VG_OP_NEG : VG_OP_BNOT, 0, 0);
		return;
	case EX_BINARY:
		chg_expr(g, e->a);
		if (e->op == T_ANDAND || e->op == T_OROR) {
			/* no side effects: both sides, as 0/1 */
			chg_emit(g, VG_OP_NOT, 0, 0);
			chg_emit(g, VG_OP_NOT, 0, 0);
			chg_expr(g, e->b);
			chg_emit(g, VG_OP_NOT, 0, 0);
			chg_emit(g, VG_OP_NOT, 0, 0);
			chg_emit(g, e->op == T_ANDAND ? VG_OP_AND : VG_OP_OR, 0, 0);
			return;
		}
		chg_expr(g, e->b);
		chg_emit(g, vg_cc_binop(e->op, false), 0, 0);
		return;
	case EX_COND:
		vg_ld_error(g->c->ld, e->loc, "change cannot take '?:', expected arithmetic, comparisons and logic over memory");
	case EX_STR:
	case EX_STRREAD:
		vg_ld_error(g->c->ld, e->start, "change cannot watch strings, expected integer memory");
	case EX_MEMPRED:
		vg_ld_error(g->c->ld, e->start, "change cannot take %s(), expected arithmetic, comparisons and logic over memory",
			    e->str);
	default:
		break;
	}
	chg_emit(g, VG_OP_FIELD, chg_loc(g, e), 0);
}

void vg_cc_change(struct cc *c, const struct vg_pattern *pat, int from)
{
	struct vg_event *ev = &c->ld->events[c->ev];
	const struct vg_property *pr = c->pr;
	bool is_var;

	if (!ev->ccode) {
		struct chg g = { .c = c, .ev = ev };

		chg_expr(&g, pat->wexpr);
		chg_emit(&g, VG_OP_END, 0, 0);
		ev->wloc = ev->cloc[0];
	}
	for (int k = 0; k < ev->ncloc; k++) {
		int i = vg_watch_name(pr, ev->cloc[k].base, &is_var);

		if (ev->cloc[k].per_slice && i < 0)
			vg_ld_error(c->ld, pat->name_loc, "'%s' is not a slice parameter or variable of %s: change watches memory a slice points to at the address the slice's %s gives",
				    ev->cloc[k].base, pr->name, ev->cloc[k].base);
		if (!ev->cloc[k].per_slice && i >= 0)
			vg_ld_error(c->ld, pat->name_loc, "'%s' is a slice %s of %s, not target memory: expected *%s or %s->field",
				    ev->cloc[k].base, is_var ? "variable" : "parameter",
				    pr->name, ev->cloc[k].base, ev->cloc[k].base);
	}
	if (ev->wloc.per_slice && from == 0)
		vg_ld_error(c->ld, pat->loc, "'change %s' in the initial state: a watchpoint on memory a slice points to is armed when the slice enters a state that consumes it, and no slice is in the initial state",
			    pat->name);
}
