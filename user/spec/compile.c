/* Syntax tree to struct vg_property: variables, states, events, bindings,
 * transitions and reactions; their guards and updates go to bytecode in
 * compile_expr.c.
 *
 * Everything allocated here hangs off ld->out or ld->events as soon as it
 * exists, so an error (a longjmp out of vg_ld_error) frees it all and the
 * spec stays as it was. */
#include "compile_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum vg_tok compound_op(enum vg_tok t)
{
	switch (t) {
	case T_ADDEQ: case T_INC: return T_PLUS;
	case T_SUBEQ: case T_DEC: return T_MINUS;
	case T_MULEQ: return T_STAR;
	case T_DIVEQ: return T_SLASH;
	case T_MODEQ: return T_PERCENT;
	case T_ANDEQ: return T_AMP;
	case T_OREQ: return T_PIPE;
	case T_XOREQ: return T_CARET;
	case T_SHLEQ: return T_SHL;
	case T_SHREQ: return T_SHR;
	default: return T_EOF;
	}
}

static void compile_stmt(struct cc *c, const struct vg_stmt *s)
{
	static const char *const what[] = {
		[R_FIELD] = "an event parameter", [R_PARAM] = "a slice parameter",
		[R_TID] = "the thread id", [R_TIME] = "the event time",
	};
	struct ref r;
	enum vg_tok op = compound_op(s->op);
	int tv;

	if (!vg_cc_resolve(c, s->name, &r))
		vg_ld_error(c->ld, s->loc, s->reset
			    ? "unknown clock '%s', expected a clock of property %s (declared with 'clock %s')"
			    : "unknown variable '%s', expected a variable of property %s",
			    s->name, c->pr->name, s->name);
	if (s->reset) {
		if (r.kind != R_VAR || !c->pr->vars[r.idx].clock)
			vg_ld_error(c->ld, s->loc, "'%s' is not a clock, expected a name declared with 'clock %s'",
				    s->name, s->name);
		vg_cc_emit(c, VG_OP_TIME, 0, 0, s->loc);
		vg_cc_emit(c, VG_OP_STVAR, r.idx, 0, s->loc);
		return;
	}
	if (r.kind == R_VAR && c->pr->vars[r.idx].clock)
		vg_ld_error(c->ld, s->loc, "clock '%s' cannot be assigned, expected 'reset %s'",
			    s->name, s->name);
	if (r.kind != R_VAR && r.kind != R_GLOB)
		vg_ld_error(c->ld, s->loc, "cannot assign to '%s', %s, expected a variable",
			    s->name, r.param ? what[R_PARAM] : what[r.kind]);
	if (s->op == T_ASSIGN) {
		tv = vg_cc_compile_expr(c, s->value);
		if (tv != TY_ANY && (tv == VG_TYPE_STR) != (r.type == VG_TYPE_STR))
			vg_ld_error(c->ld, s->value->start, "cannot assign %s to %s variable '%s', expected a %s",
				    vg_cc_a_ty(tv), vg_cc_ty_name(r.type), s->name,
				    r.type == VG_TYPE_STR ? "string" : "number or bool");
	} else {
		if (r.type == VG_TYPE_STR)
			vg_ld_error(c->ld, s->op_loc, "operator '%s' does not take a string, expected '=' for string variable '%s'",
				    vg_tok_name(s->op), s->name);
		vg_cc_emit(c, r.kind == R_VAR ? VG_OP_LDVAR : VG_OP_LDGLOB, r.idx, 0,
		     s->loc);
		if (s->value) {
			tv = vg_cc_compile_expr(c, s->value);
			if (tv == VG_TYPE_STR)
				vg_ld_error(c->ld, s->value->start, "operator '%s' does not take a string, expected a number",
					    vg_tok_name(s->op));
		} else {
			tv = VG_TYPE_INT;
			vg_cc_emit(c, VG_OP_PUSH, 0, 1, s->op_loc);
		}
		vg_cc_emit(c, vg_cc_binop(op, vg_cc_unsigned_ty(r.type) || vg_cc_unsigned_ty(tv)), 0,
		     0, s->op_loc);
	}
	vg_cc_emit(c, r.kind == R_VAR ? VG_OP_STVAR : VG_OP_STGLOB, r.idx, 0, s->loc);
}

/* ---- declarations ----------------------------------------------------- */

/* Params, variables and globals share one namespace. */
static void check_new_name(struct cc *c, const char *name, struct vg_loc at)
{
	const struct vg_prop_ast *a = c->ast;
	const struct vg_property *pr = c->pr;

	for (int i = 0; i < pr->nparams; i++)
		if (!strcmp(pr->params[i], name))
			vg_ld_error(c->ld, at, "'%s' is already a slice parameter (line %d), expected a new name",
				    name, a->params[i].loc.line);
	for (int i = 0; i < pr->nvars; i++)
		if (!strcmp(pr->vars[i].name, name))
			vg_ld_error(c->ld, at, "duplicate variable '%s' (first at line %d), expected a new name",
				    name, pr->vars[i].loc.line);
	for (int i = 0; i < pr->nglobals; i++)
		if (!strcmp(pr->globals[i].name, name))
			vg_ld_error(c->ld, at, "duplicate variable '%s' (first at line %d), expected a new name",
				    name, pr->globals[i].loc.line);
}

static void compile_var(struct cc *c, const struct vg_var_ast *va)
{
	struct vg_property *pr = c->pr;
	struct vg_var *v = va->global ? &pr->globals[pr->nglobals]
				      : &pr->vars[pr->nvars];
	int mark = pr->ncode;

	check_new_name(c, va->name, va->loc);
	if ((va->global ? pr->nglobals : pr->nvars) == MAX_VARS)
		vg_ld_error(c->ld, va->loc, "too many variables, expected at most %d %s",
			    MAX_VARS, va->global ? "globals" : "slice variables");
	if (va->init) {
		int t;

		c->konst = true;
		c->depth = 0;
		t = vg_cc_compile_expr(c, va->init);
		c->konst = false;
		if ((t == VG_TYPE_STR) != (va->type == VG_TYPE_STR))
			vg_ld_error(c->ld, va->init->start, "cannot initialize %s variable '%s' with %s, expected a %s",
				    vg_cc_ty_name((int)va->type), va->name, vg_cc_a_ty(t),
				    va->type == VG_TYPE_STR ? "string" : "number or bool");
		if (vg_code_eval_const(pr->code + mark,
				       (uint32_t)(pr->ncode - mark), &v->init))
			vg_ld_error(c->ld, va->init->start, "initializer is not constant, expected a constant");
		pr->ncode = mark;	/* initializers leave no code */
	}
	v->name = vg_ld_xstrdup(c->ld, va->name);
	v->clock = va->clock;
	v->type = va->type;
	v->loc = va->loc;
	if (va->global)
		pr->nglobals++;
	else
		pr->nvars++;
}

static int find_evdecl(const struct vg_prop_ast *a, const char *name)
{
	for (int i = 0; i < a->nevdecls; i++)
		if (!strcmp(a->evdecls[i].name, name))
			return i;
	return -1;
}

static bool same_outside(const struct vg_event *ev,
			 const struct vg_pattern *pat)
{
	if (ev->noutside != pat->noutside)
		return false;
	for (int i = 0; i < pat->noutside; i++)
		if (strcmp(ev->outside[i], pat->outside[i].name))
			return false;
	return true;
}

/* The allocator's part of a pattern: by the parameter that named its
 * function (docs/LANGUAGE.md, Parameters), never by the function's own
 * name, which -D makes anything */
static enum vg_heap_role heap_role(const struct vg_pattern *pat)
{
	if (!pat->param)
		return VG_HEAP_NONE;
	if (pat->kind == VG_EV_AFTER && !strcmp(pat->param, "alloc"))
		return VG_HEAP_ALLOC;
	if (pat->kind == VG_EV_BEFORE && !strcmp(pat->param, "release"))
		return VG_HEAP_RELEASE;
	return VG_HEAP_NONE;
}

/* An event is its kind, its name and its `outside` functions: `before f`
 * and `before f outside g` are two events, each with its probe. */
int vg_cc_event_index(struct vg_ld *ld, const struct vg_pattern *pat)
{
	struct vg_event *ev;

	for (int i = 0; i < ld->nevents; i++)
		if (ld->events[i].kind == pat->kind &&
		    !strcmp(ld->events[i].name, pat->name) &&
		    same_outside(&ld->events[i], pat)) {
			if (heap_role(pat))
				ld->events[i].heap_role = heap_role(pat);
			return i;
		}
	ev = realloc(ld->events, (size_t)(ld->nevents + 1) * sizeof(*ev));
	if (!ev)
		vg_ld_oom(ld);
	ld->events = ev;
	ev = &ld->events[ld->nevents];
	*ev = (struct vg_event){ .kind = pat->kind, .loc = pat->loc,
				 .heap_role = heap_role(pat) };
	ev->name = vg_ld_xstrdup(ld, pat->name);
	ev->noutside = pat->noutside;
	for (int i = 0; i < pat->noutside; i++)
		snprintf(ev->outside[i], sizeof(ev->outside[i]), "%s",
			 pat->outside[i].name);
	return ld->nevents++;
}

/* `outside f`: f's entry and return probes keep, per thread, how deep it
 * is in f (they exist as events of their own, shared with any property
 * that uses them), as depth inside_bit of the `inside` map; the event
 * that says `outside f` is no event while that depth is not 0. */
static void mark_outside(struct vg_ld *ld, const struct vg_pattern *pat,
			 int event)
{
	for (int i = 0; i < pat->noutside; i++) {
		int bit = -1, unused = 0;

		for (int j = 0; j < ld->nevents; j++) {
			const struct vg_event *m = &ld->events[j];

			if (!m->marks_inside)
				continue;
			if (!strcmp(m->name, pat->outside[i].name))
				bit = m->inside_bit;
			if (unused <= m->inside_bit)
				unused = m->inside_bit + 1;
		}
		if (bit < 0)
			bit = unused;
		if (bit == VG_MAX_INSIDE)
			vg_ld_error(ld, pat->outside[i].loc, "'%s' is one function too many in 'outside' clauses, expected at most %d distinct functions in a run",
				    pat->outside[i].name, VG_MAX_INSIDE);
		for (int k = 0; k < 2; k++) {
			struct vg_pattern f = {
				.kind = k ? VG_EV_AFTER : VG_EV_BEFORE,
				.loc = pat->outside[i].loc,
				.name = pat->outside[i].name,
				.name_loc = pat->outside[i].loc,
			};

			/* the index first: adding the event may move the array */
			int e = vg_cc_event_index(ld, &f);

			ld->events[e].marks_inside = true;
			ld->events[e].inside_bit = (uint8_t)bit;
		}
		ld->events[event].outside_mask |= (uint16_t)(1u << bit);
	}
}

static void describe_slot(char *buf, size_t len, int slot)
{
	if (slot == VG_SLOT_RET)
		snprintf(buf, len, "to the return value");
	else if (slot >= VG_SLOT_CAP0 && slot != VG_UNBOUND)
		snprintf(buf, len, "to memory an argument points to");
	else
		snprintf(buf, len, "at position %d", slot);
}

int vg_cc_pattern_capture(struct cc *c, const struct vg_pattern *pat, int i)
{
	int k = vg_cc_capture(c, i, "", false, pat->names[i].name,
			      pat->names[i].loc);

	c->ld->events[c->ev].caps[k].word = true;
	return k;
}

/* Does the event make the value it binds, as an allocator's return does?
 * An `after` event that binds a slice parameter from its return value or
 * through an out-pointer read at the return (`*p`). Only such a value can
 * be new where an old one of the same value was: any other event that
 * binds an object uses one that exists. */
static bool is_param(const struct vg_property *pr, const char *name)
{
	for (int j = 0; name && j < pr->nparams; j++)
		if (!strcmp(pr->params[j], name))
			return true;
	return false;
}

static bool creates(const struct vg_property *pr,
		    const struct vg_pattern *pat)
{
	if (pat->kind != VG_EV_AFTER)
		return false;
	if (pat->has_ret && is_param(pr, pat->ret.name))
		return true;
	for (int i = 0; i < pat->nnames; i++)
		if (pat->names[i].deref && is_param(pr, pat->names[i].name))
			return true;
	return false;
}

/* One binding per event per property, the same for all its transitions:
 * the monitor picks the slice from the event before it knows the state. */
static int bind_event(struct cc *c, const struct vg_pattern *pat, int ev)
{
	struct vg_property *pr = c->pr;
	struct vg_binding b = { .event = ev };
	struct vg_loc where[VG_MAX_PARAMS];
	const char *evname = pat->name[0] ? pat->name
					  : vg_event_kind_name(pat->kind);

	for (int j = 0; j < VG_MAX_PARAMS; j++) {
		b.slot[j] = VG_UNBOUND;
		where[j] = pat->name_loc;
	}
	/* a hit of a per-slice watchpoint is for the slice that armed it */
	if (vg_event_watches(&c->ld->events[ev]) &&
	    c->ld->events[ev].wloc.per_slice)
		for (int j = 0; j < pr->nparams; j++) {
			b.slot[j] = (uint8_t)(VG_WSLOT_PARAM0 + j);
			b.mask |= 1u << j;
		}
	for (int i = 0; i < pat->nnames + pat->has_ret; i++) {
		const struct vg_pname *n = i < pat->nnames ? &pat->names[i]
							    : &pat->ret;

		if (!n->name)
			continue;
		for (int k = 0; k < i; k++) {
			const struct vg_pname *m = k < pat->nnames
				? &pat->names[k] : &pat->ret;

			if (m->name && !strcmp(m->name, n->name))
				vg_ld_error(c->ld, n->loc, "'%s' names two parameters of the event, expected distinct names or '_'",
					    n->name);
		}
		for (int j = 0; j < pr->nparams; j++)
			if (!strcmp(pr->params[j], n->name)) {
				b.slot[j] = (uint8_t)(i < pat->nnames ? i : VG_SLOT_RET);
				if (n->deref)
					b.slot[j] = (uint8_t)(VG_SLOT_CAP0 +
						vg_cc_pattern_capture(c, pat, i));
				else if (i < pat->nnames)
					c->ld->events[ev].used |= 1u << i;
				if (i < pat->nnames)
					c->ld->events[ev].binds |= 1u << i;
				if (!n->deref && pr->param_types[j] == VG_TYPE_STR)
					c->ld->events[ev].str_fields |=
						i < pat->nnames ? 1u << i
								: VG_STR_RET_BIT;
				b.mask |= 1u << j;
				where[j] = n->loc;
			}
	}
	for (int i = 0; i < pr->nbindings; i++) {
		const struct vg_binding *o = &pr->bindings[i];

		if (o->event != ev)
			continue;
		for (int j = 0; j < pr->nparams; j++) {
			char here[32], there[32];

			if (o->slot[j] == b.slot[j])
				continue;
			describe_slot(here, sizeof(here), b.slot[j]);
			describe_slot(there, sizeof(there), o->slot[j]);
			if (b.slot[j] == VG_UNBOUND)
				vg_ld_error(c->ld, where[j], "event %s does not bind %s here but binds it %s at line %d, expected the same binding in every transition on it",
					    evname, pr->params[j], there,
					    c->bind_loc[i].line);
			if (o->slot[j] == VG_UNBOUND)
				vg_ld_error(c->ld, where[j], "event %s binds %s %s here but does not bind it at line %d, expected the same binding in every transition on it",
					    evname, pr->params[j], here,
					    c->bind_loc[i].line);
			vg_ld_error(c->ld, where[j], "event %s binds %s %s here but %s at line %d, expected the same binding in every transition on it",
				    evname, pr->params[j], here, there,
				    c->bind_loc[i].line);
		}
		return i;
	}
	c->bind_loc[pr->nbindings] = pat->loc;
	pr->bindings[pr->nbindings] = b;
	return pr->nbindings++;
}

/* A `$param` transition whose default names an event the state has a
 * transition on already, the same one (`after $alloc(size) returns p
 * -> ok` beside `after malloc(size) returns p -> ok`, alloc = malloc):
 * it is that transition, not a second one lint would call dead; what the
 * parameter stands for (the allocator's part: heap_role) is on the event */
static bool folds(const struct vg_property *pr, const struct vg_transition *t,
		  const struct vg_pattern *pat)
{
	if (!pat->param || t->guard.len || t->update.len)
		return false;
	for (int j = 0; j < pr->ntrans; j++) {
		const struct vg_transition *u = &pr->trans[j];

		if (u->from == t->from && u->event == t->event &&
		    u->to == t->to && u->binding == t->binding &&
		    !u->guard.len && !u->update.len)
			return true;
	}
	return false;
}

static void compile_trans(struct cc *c, int from, const struct vg_trans_ast *ta)
{
	struct vg_property *pr = c->pr;
	const struct vg_pattern *pat = &ta->pat;
	struct vg_transition *t = &pr->trans[pr->ntrans];
	struct vg_event *ev;
	int d = -1;

	if (pat->kind == VG_EV_NAMED) {
		d = find_evdecl(c->ast, pat->name);
		if (d < 0 && (!strcmp(pat->name, "before") ||
			      !strcmp(pat->name, "after") ||
			      !strcmp(pat->name, "syscall")))
			/* far likelier a forgotten name than an event */
			vg_ld_error(c->ld, pat->loc, "'%s' without a function name, expected '%s NAME(...)' (or a declaration 'event %s(...)')",
				    pat->name, pat->name, pat->name);
		if (d < 0)
			vg_ld_error(c->ld, pat->loc, "undeclared event '%s', expected a declaration 'event %s(...)' in property %s",
				    pat->name, pat->name, pr->name);
		if (pat->nnames > c->ast->evdecls[d].nfields)
			vg_ld_error(c->ld, pat->names[c->ast->evdecls[d].nfields].loc,
				    "too many parameters for event %s, expected at most %d as declared at line %d",
				    pat->name, c->ast->evdecls[d].nfields,
				    c->ast->evdecls[d].loc.line);
	}
	t->from = from;
	t->loc = pat->loc;
	t->event = c->ev = vg_cc_event_index(c->ld, pat);
	ev = &c->ld->events[c->ev];
	if (pat->kind == VG_EV_NAMED && ev->nfields < c->ast->evdecls[d].nfields)
		ev->nfields = c->ast->evdecls[d].nfields;
	for (int i = 0; i < pat->nnames; i++) {
		if (pat->names[i].deref && ev->kind != VG_EV_BEFORE &&
		    ev->kind != VG_EV_AFTER)
			vg_ld_error(c->ld, pat->names[i].loc, "'*%s' reads target memory, which only function events (before/after) can do, expected a name",
				    pat->names[i].name);
		if (pat->names[i].name && ev->nfields <= i)
			ev->nfields = i + 1;
		/* `*s` is not the parameter's own name: nothing to compare */
		if (pat->names[i].name && !pat->names[i].deref &&
		    !ev->argname[i][0]) {
			snprintf(ev->argname[i], sizeof(ev->argname[i]), "%s",
				 pat->names[i].name);
			ev->argloc[i] = pat->names[i].loc;
		}
	}
	if (pat->has_ret)
		ev->uses_ret = true;
	if (pat->noutside) {
		mark_outside(c->ld, pat, c->ev);
		ev = &c->ld->events[c->ev];	/* the events may have moved */
	}
	if (vg_event_is_watch(ev))
		vg_cc_watch(c, pat, from);
	else if (ev->kind == VG_EV_CHANGE)
		vg_cc_change(c, pat, from);
	t->binding = bind_event(c, pat, c->ev);
	if (ta->creation || (d >= 0 && c->ast->evdecls[d].creation) ||
	    creates(pr, pat))
		pr->bindings[t->binding].creates = true;

	c->pat = pat;
	if (ta->guard) {
		int t0 = pr->ncode, ty;

		c->depth = 0;
		ty = vg_cc_compile_expr(c, ta->guard);
		if (ty == VG_TYPE_STR)
			vg_ld_error(c->ld, ta->guard->start, "guard is a string, expected a condition");
		vg_cc_emit(c, VG_OP_END, 0, 0, ta->guard->loc);
		t = &pr->trans[pr->ntrans];
		t->guard = (struct vg_code_ref){ (uint32_t)t0, (uint32_t)(pr->ncode - t0) };
	}
	if (ta->nstmts) {
		int t0 = pr->ncode;

		for (int i = 0; i < ta->nstmts; i++) {
			c->depth = 0;
			compile_stmt(c, &ta->stmts[i]);
		}
		vg_cc_emit(c, VG_OP_END, 0, 0, ta->stmts[0].loc);
		t = &pr->trans[pr->ntrans];
		t->update = (struct vg_code_ref){ (uint32_t)t0, (uint32_t)(pr->ncode - t0) };
	}
	c->pat = NULL;
	t->to = vg_property_find_state(pr, ta->to);
	if (t->to < 0)
		vg_ld_error(c->ld, ta->to_loc, "unknown state '%s', expected a state of property %s",
			    ta->to, pr->name);
	if (folds(pr, t, pat)) {
		memset(t, 0, sizeof(*t));
		return;
	}
	pr->ntrans++;
}

/* `within LIMIT else { ... } -> to` of state si: the program that gives
 * the deadline when a slice enters (the entry's time plus LIMIT, or for
 * `within c < LIMIT` / `c <= LIMIT` the reset time of clock c plus
 * LIMIT), and the timeout's update. Neither has an event to read from. */
static void compile_timeout(struct cc *c, int si, const struct vg_trans_ast *ta)
{
	struct vg_property *pr = c->pr;
	const struct vg_expr *lim = ta->guard, *clk = NULL;
	struct vg_state *st;
	int t0 = pr->ncode, l0, ty, clock_var = -1;
	int64_t limit;

	if (lim->kind == EX_BINARY && (lim->op == T_LT || lim->op == T_LE) &&
	    lim->a->kind == EX_NAME) {
		struct ref r;

		if (vg_cc_resolve(c, lim->a->str, &r) && r.kind == R_VAR &&
		    pr->vars[r.idx].clock) {
			clk = lim->a;
			clock_var = r.idx;
			lim = lim->b;
		}
	}
	if (pr->states[si].kind == VG_STATE_VIOLATION)
		vg_ld_error(c->ld, ta->pat.loc, "violation state '%s' has a timeout, expected none (a violation is final)",
			    pr->states[si].name);
	c->pat = NULL;
	c->depth = 0;
	l0 = pr->ncode;
	ty = vg_cc_compile_expr(c, lim);
	if (ty == VG_TYPE_STR || ty == VG_TYPE_BOOL)
		vg_ld_error(c->ld, lim->start, "the limit of 'within' is %s, expected a duration (200ms, 2s, $limit) or 'CLOCK < duration'",
			    vg_cc_a_ty(ty));
	if (vg_code_eval_const(pr->code + l0, (uint32_t)(pr->ncode - l0),
			       &limit))
		limit = -1;
	else if (limit <= 0)
		vg_ld_error(c->ld, lim->start, "the limit of 'within' is %lld, expected a positive duration (200ms, 2s)",
			    (long long)limit);
	if (clk)
		vg_cc_emit(c, VG_OP_LDVAR, clock_var, 0, clk->loc);
	else
		vg_cc_emit(c, VG_OP_TIME, 0, 0, ta->pat.loc);
	vg_cc_emit(c, VG_OP_ADD, 0, 0, ta->pat.loc);
	vg_cc_emit(c, VG_OP_END, 0, 0, ta->pat.loc);
	st = &pr->states[si];
	st->timed = true;
	st->limit_ns = clk ? -1 : limit;
	st->timeout_loc = ta->pat.loc;
	st->deadline = (struct vg_code_ref){ (uint32_t)t0, (uint32_t)(pr->ncode - t0) };
	if (ta->nstmts) {
		t0 = pr->ncode;
		for (int i = 0; i < ta->nstmts; i++) {
			c->depth = 0;
			compile_stmt(c, &ta->stmts[i]);
		}
		vg_cc_emit(c, VG_OP_END, 0, 0, ta->stmts[0].loc);
		st = &pr->states[si];
		st->timeout_update = (struct vg_code_ref){ (uint32_t)t0, (uint32_t)(pr->ncode - t0) };
	}
	st->timeout_to = vg_property_find_state(pr, ta->to);
	if (st->timeout_to < 0)
		vg_ld_error(c->ld, ta->to_loc, "unknown state '%s', expected a state of property %s",
			    ta->to, pr->name);
}

/* `watch EXPR` arms, by hand, the watchpoint of one of the property's
 * per-slice watch events on EXPR: its hits are that event */
static void check_watch_action(struct cc *c, const struct vg_action *act)
{
	const struct vg_property *pr = c->pr;

	for (int b = 0; b < pr->nbindings; b++) {
		const struct vg_event *ev = &c->ld->events[pr->bindings[b].event];

		if (vg_event_watches(ev) && !strcmp(ev->name, act->arg)) {
			if (!ev->wloc.per_slice)
				vg_ld_error(c->ld, act->loc, "'%s' is a global, watched for the whole run: watch and unwatch are for memory a slice points to",
					    act->arg);
			return;
		}
	}
	vg_ld_error(c->ld, act->loc, "%s %s: property %s has no event on it, expected a transition on 'write %s' (or read, access) for its hits",
		    act->kind == VG_ACT_WATCH ? "watch" : "unwatch", act->arg,
		    pr->name, act->arg);
}

static void compile_reactions(struct cc *c)
{
	const struct vg_prop_ast *a = c->ast;
	struct vg_property *pr = c->pr;

	pr->reactions = vg_ld_xcalloc(c->ld, (size_t)a->nreactions,
				      sizeof(*pr->reactions));
	for (int i = 0; i < a->nreactions; i++) {
		const struct vg_reaction_ast *ra = &a->reactions[i];
		struct vg_reaction *r = &pr->reactions[pr->nreactions];

		r->on_enter = ra->on_enter;
		r->loc = ra->loc;
		r->state = vg_property_find_state(pr, ra->state);
		if (r->state < 0)
			vg_ld_error(c->ld, ra->state_loc, "unknown state '%s' in 'on %s', expected a state of property %s",
				    ra->state, ra->on_enter ? "enter" : "leave",
				    pr->name);
		r->actions = vg_ld_xcalloc(c->ld, (size_t)ra->nactions,
					   sizeof(*r->actions));
		pr->nreactions++;
		for (int j = 0; j < ra->nactions; j++) {
			struct vg_action *act = &r->actions[r->nactions++];

			act->kind = ra->actions[j].kind;
			act->loc = ra->actions[j].loc;
			if (ra->actions[j].arg)
				act->arg = vg_ld_xstrdup(c->ld, ra->actions[j].arg);
			if (act->kind == VG_ACT_WATCH ||
			    act->kind == VG_ACT_UNWATCH)
				check_watch_action(c, act);
		}
	}
}

static void compile_prop(struct vg_ld *ld, const struct vg_prop_ast *a,
			 struct vg_property *pr)
{
	struct cc c = { .ld = ld, .ast = a, .pr = pr };
	int ntrans = 0, nglob = 0, timed = 0;

	for (int i = 0; i < ld->spec->nprops + ld->nout; i++) {
		const struct vg_property *o = i < ld->spec->nprops
			? &ld->spec->props[i] : &ld->out[i - ld->spec->nprops];

		if (o != pr && o->name && !strcmp(o->name, a->name))
			vg_ld_error(ld, a->loc, "duplicate property '%s' (first at %s:%d), expected a new name",
				    a->name, o->loc.file, o->loc.line);
	}
	pr->name = vg_ld_xstrdup(ld, a->name);
	pr->description = vg_ld_xstrdup(ld, a->desc);
	pr->loc = a->loc;

	for (int i = 0; i < a->nparams; i++) {
		check_new_name(&c, a->params[i].name, a->params[i].loc);
		pr->params[i] = vg_ld_xstrdup(ld, a->params[i].name);
		pr->param_types[i] = a->params[i].type;
		pr->nparams++;
	}

	for (int i = 0; i < a->nvars; i++)
		nglob += a->vars[i].global;
	for (int i = 0; i < a->nstates; i++)
		timed |= a->states[i].timeout != NULL;
	pr->vars = vg_ld_xcalloc(ld, (size_t)(a->nvars - nglob + timed),
				 sizeof(*pr->vars));
	pr->globals = vg_ld_xcalloc(ld, (size_t)nglob, sizeof(*pr->globals));
	for (int i = 0; i < a->nvars; i++)
		compile_var(&c, &a->vars[i]);
	if (timed) {
		/* where a slice's timer stands; no name a spec can write */
		struct vg_var *v = &pr->vars[pr->nvars];

		v->name = vg_ld_xstrdup(ld, "(deadline)");
		v->type = VG_TYPE_UINT;
		v->hidden = true;
		v->loc = a->loc;
		pr->deadline_var = pr->nvars++;
		pr->timed = true;
	}

	for (int i = 0; i < a->nevdecls; i++) {
		int d = find_evdecl(a, a->evdecls[i].name);

		if (d != i)
			vg_ld_error(ld, a->evdecls[i].loc, "duplicate event '%s' (first at line %d), expected a new name",
				    a->evdecls[i].name, a->evdecls[d].loc.line);
	}

	if (!a->nstates)
		vg_ld_error(ld, a->loc, "property %s has no states, expected at least one 'state'",
			    a->name);
	pr->states = vg_ld_xcalloc(ld, (size_t)a->nstates, sizeof(*pr->states));
	for (int i = 0; i < a->nstates; i++) {
		const struct vg_state_ast *s = &a->states[i];
		int d = vg_property_find_state(pr, s->name);

		if (d >= 0)
			vg_ld_error(ld, s->loc, "duplicate state '%s' (first at line %d), expected a new name",
				    s->name, pr->states[d].loc.line);
		if (s->kind == VG_STATE_VIOLATION && s->ntrans)
			vg_ld_error(ld, s->trans[0].pat.loc, "violation state '%s' has a transition, expected no transitions (a violation is final)",
				    s->name);
		pr->states[i].name = vg_ld_xstrdup(ld, s->name);
		pr->states[i].kind = s->kind;
		pr->states[i].loc = s->loc;
		pr->nstates++;
		ntrans += s->ntrans;
	}

	pr->trans = vg_ld_xcalloc(ld, (size_t)ntrans, sizeof(*pr->trans));
	pr->bindings = vg_ld_xcalloc(ld, (size_t)ntrans, sizeof(*pr->bindings));
	c.bind_loc = vg_ld_alloc(ld, (size_t)(ntrans + 1) * sizeof(*c.bind_loc));
	for (int i = 0; i < a->nstates; i++)
		for (int j = 0; j < a->states[i].ntrans; j++)
			compile_trans(&c, i, &a->states[i].trans[j]);
	for (int i = 0; i < a->nstates; i++)
		if (a->states[i].timeout) {
			compile_timeout(&c, i, a->states[i].timeout);
			pr->timeout_event = vg_cc_event_index(ld, &a->states[i].timeout->pat);
		}

	compile_reactions(&c);
}

void vg_compile(struct vg_ld *ld)
{
	struct vg_spec *spec = ld->spec;

	ld->events = vg_ld_xcalloc(ld, (size_t)spec->nevents + 1,
				   sizeof(*ld->events));
	if (spec->nevents)
		memcpy(ld->events, spec->events,
		       (size_t)spec->nevents * sizeof(*ld->events));
	ld->nevents = ld->old_nevents = spec->nevents;
	ld->out = vg_ld_xcalloc(ld, (size_t)ld->nprops, sizeof(*ld->out));
	for (int i = 0; i < ld->nprops; i++) {
		ld->nout = i + 1;
		compile_prop(ld, &ld->props[i], &ld->out[i]);
	}
}
