/* Syntax tree to struct vg_property: names, types, events and bindings,
 * and guard/update bytecode (include/vigil_code.h).
 *
 * Everything allocated here hangs off ld->out or ld->events as soon as it
 * exists, so an error (a longjmp out of vg_ld_error) frees it all and the
 * spec stays as it was. */
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Event fields have no declared type: a CSV field may be a number or a
 * string, so they are compatible with everything. */
#define TY_ANY 100
/* more would not fit the 16-bit idx of an instruction, and no real
 * property comes close */
#define MAX_VARS 1024

struct cc {
	struct vg_ld *ld;
	const struct vg_prop_ast *ast;
	struct vg_property *pr;
	int cap;		/* of pr->code */
	int depth;
	bool konst;		/* an initializer: no names */
	const struct vg_pattern *pat;
	int ev;			/* index into ld->events */
	struct vg_loc *bind_loc;	/* per binding: where it was first made */
};

static bool unsigned_ty(int t)
{
	return t == VG_TYPE_UINT || t == VG_TYPE_PTR;
}

static const char *ty_name(int t)
{
	switch (t) {
	case VG_TYPE_INT: return "int";
	case VG_TYPE_UINT: return "uint";
	case VG_TYPE_BOOL: return "bool";
	case VG_TYPE_PTR: return "ptr";
	case VG_TYPE_STR: return "string";
	default: return "event field";
	}
}

/* "an int", "a string": for messages */
static const char *a_ty(int t)
{
	switch (t) {
	case VG_TYPE_INT: return "an int";
	case VG_TYPE_UINT: return "a uint";
	case VG_TYPE_BOOL: return "a bool";
	case VG_TYPE_PTR: return "a ptr";
	case VG_TYPE_STR: return "a string";
	default: return "an event field";
	}
}

static int stack_effect(enum vg_opcode op)
{
	switch (op) {
	case VG_OP_PUSH: case VG_OP_FIELD: case VG_OP_PARAM: case VG_OP_LDVAR:
	case VG_OP_LDGLOB: case VG_OP_TID: case VG_OP_TIME: case VG_OP_DUP:
		return 1;
	case VG_OP_STVAR: case VG_OP_STGLOB: case VG_OP_POP: case VG_OP_JZ:
	case VG_OP_JNZ:
		return -1;
	case VG_OP_NEG: case VG_OP_NOT: case VG_OP_BNOT: case VG_OP_JMP:
	case VG_OP_END:
		return 0;
	default:
		return -1;	/* binary */
	}
}

static int emit(struct cc *c, enum vg_opcode op, int idx, int64_t imm,
		struct vg_loc loc)
{
	struct vg_property *pr = c->pr;

	if (pr->ncode == c->cap) {
		int ncap = c->cap ? c->cap * 2 : 64;
		struct vg_insn *n = realloc(pr->code, (size_t)ncap * sizeof(*n));

		if (!n)
			vg_ld_oom(c->ld);
		pr->code = n;
		c->cap = ncap;
	}
	c->depth += stack_effect(op);
	if (c->depth > VG_STACK_MAX)
		vg_ld_error(c->ld, loc, "expression too deep, expected at most %d values on the evaluation stack",
			    VG_STACK_MAX);
	pr->code[pr->ncode] = (struct vg_insn){ .op = (__u8)op,
						.idx = (__u16)idx, .imm = imm };
	return pr->ncode++;
}

/* Point the forward jump at insn j to the next instruction emitted. */
static void land(struct cc *c, int j)
{
	c->pr->code[j].imm = c->pr->ncode - (j + 1);
}

/* ---- names ------------------------------------------------------------ */

enum ref_kind { R_FIELD, R_PARAM, R_VAR, R_GLOB, R_TID, R_TIME };

struct ref {
	enum ref_kind kind;
	int idx;
	int type;
	bool param;		/* a pattern name that binds a slice parameter */
};

static bool resolve_pattern(struct cc *c, const char *name, struct ref *r)
{
	const struct vg_pattern *pat = c->pat;
	struct vg_event *ev = &c->ld->events[c->ev];

	for (int i = 0; i < pat->nnames + pat->has_ret; i++) {
		const struct vg_pname *n = i < pat->nnames ? &pat->names[i]
							    : &pat->ret;

		if (!n->name || strcmp(n->name, name))
			continue;
		r->kind = R_FIELD;
		r->idx = i < pat->nnames ? i : VG_SLOT_RET;
		r->type = TY_ANY;
		/* a name that binds a parameter has the parameter's type */
		r->param = false;
		for (int j = 0; j < c->pr->nparams; j++)
			if (!strcmp(c->pr->params[j], name)) {
				r->type = (int)c->pr->param_types[j];
				r->param = true;
			}
		return true;
	}
	if (pat->kind == VG_EV_AFTER && !strcmp(name, "ret")) {
		*r = (struct ref){ .kind = R_FIELD, .idx = VG_SLOT_RET, .type = TY_ANY };
		ev->uses_ret = true;
		return true;
	}
	if ((pat->kind == VG_EV_WRITE || pat->kind == VG_EV_READ ||
	     pat->kind == VG_EV_ACCESS || pat->kind == VG_EV_CHANGE) &&
	    !strcmp(name, "value")) {
		*r = (struct ref){ .kind = R_FIELD, .idx = 0, .type = TY_ANY };
		if (ev->nfields < 1)
			ev->nfields = 1;
		return true;
	}
	return false;
}

static bool resolve(struct cc *c, const char *name, struct ref *r)
{
	const struct vg_property *pr = c->pr;

	if (c->pat && resolve_pattern(c, name, r))
		return true;
	for (int i = 0; i < pr->nparams; i++)
		if (!strcmp(pr->params[i], name)) {
			*r = (struct ref){ .kind = R_PARAM, .idx = i, .type = (int)pr->param_types[i] };
			return true;
		}
	for (int i = 0; i < pr->nvars; i++)
		if (!strcmp(pr->vars[i].name, name)) {
			*r = (struct ref){ .kind = R_VAR, .idx = i, .type = (int)pr->vars[i].type };
			return true;
		}
	for (int i = 0; i < pr->nglobals; i++)
		if (!strcmp(pr->globals[i].name, name)) {
			*r = (struct ref){ .kind = R_GLOB, .idx = i, .type = (int)pr->globals[i].type };
			return true;
		}
	if (!strcmp(name, "tid")) {
		*r = (struct ref){ .kind = R_TID, .idx = 0, .type = VG_TYPE_INT };
		return true;
	}
	if (!strcmp(name, "time")) {
		*r = (struct ref){ .kind = R_TIME, .idx = 0, .type = VG_TYPE_UINT };
		return true;
	}
	return false;
}

/* ---- expressions ------------------------------------------------------ */

static int compile_expr(struct cc *c, const struct vg_expr *e);

static void not_string(struct cc *c, int t, const struct vg_expr *e,
		       struct vg_loc at)
{
	if (t == VG_TYPE_STR)
		vg_ld_error(c->ld, at, "operator '%s' does not take a string, expected an integer or bool operand",
			    vg_tok_name(e->op));
}

static int arith_type(int ta, int tb, enum vg_tok op)
{
	if ((ta == VG_TYPE_PTR || tb == VG_TYPE_PTR) &&
	    (op == T_PLUS || op == T_MINUS))
		return VG_TYPE_PTR;
	if (unsigned_ty(ta) || unsigned_ty(tb))
		return VG_TYPE_UINT;
	return VG_TYPE_INT;
}

static enum vg_opcode binop(enum vg_tok op, bool u)
{
	switch (op) {
	case T_PLUS: return VG_OP_ADD;
	case T_MINUS: return VG_OP_SUB;
	case T_STAR: return VG_OP_MUL;
	case T_SLASH: return u ? VG_OP_DIVU : VG_OP_DIVS;
	case T_PERCENT: return u ? VG_OP_MODU : VG_OP_MODS;
	case T_AMP: return VG_OP_AND;
	case T_PIPE: return VG_OP_OR;
	case T_CARET: return VG_OP_XOR;
	case T_SHL: return VG_OP_SHL;
	case T_SHR: return u ? VG_OP_SHRU : VG_OP_SHRS;
	case T_EQEQ: return VG_OP_EQ;
	case T_NE: return VG_OP_NE;
	case T_LT: return u ? VG_OP_LTU : VG_OP_LTS;
	case T_LE: return u ? VG_OP_LEU : VG_OP_LES;
	case T_GT: return u ? VG_OP_GTU : VG_OP_GTS;
	case T_GE: return u ? VG_OP_GEU : VG_OP_GES;
	default: return VG_OP_END;
	}
}

/* a && b, a || b: the right side runs only when it decides the result,
 * and the result is a clean 0/1 either way. */
static int compile_logic(struct cc *c, const struct vg_expr *e)
{
	bool and = e->op == T_ANDAND;
	enum vg_opcode skip = and ? VG_OP_JZ : VG_OP_JNZ;
	int j1, j2, jend;

	not_string(c, compile_expr(c, e->a), e, e->loc);
	j1 = emit(c, skip, 0, 0, e->loc);
	not_string(c, compile_expr(c, e->b), e, e->loc);
	j2 = emit(c, skip, 0, 0, e->loc);
	emit(c, VG_OP_PUSH, 0, and ? 1 : 0, e->loc);
	jend = emit(c, VG_OP_JMP, 0, 0, e->loc);
	land(c, j1);
	land(c, j2);
	c->depth--;	/* the other branch arrives without the first push */
	emit(c, VG_OP_PUSH, 0, and ? 0 : 1, e->loc);
	land(c, jend);
	return VG_TYPE_BOOL;
}

static int compile_cond(struct cc *c, const struct vg_expr *e)
{
	int ta, tb, jelse, jend;

	not_string(c, compile_expr(c, e->a), e, e->loc);
	jelse = emit(c, VG_OP_JZ, 0, 0, e->loc);
	ta = compile_expr(c, e->b);
	jend = emit(c, VG_OP_JMP, 0, 0, e->loc);
	land(c, jelse);
	c->depth--;
	tb = compile_expr(c, e->c);
	land(c, jend);
	if ((ta == VG_TYPE_STR && tb != VG_TYPE_STR && tb != TY_ANY) ||
	    (tb == VG_TYPE_STR && ta != VG_TYPE_STR && ta != TY_ANY))
		vg_ld_error(c->ld, e->loc, "'?:' mixes %s and %s, expected both branches of one kind",
			    a_ty(ta), a_ty(tb));
	if (ta == tb)
		return ta;
	if (ta == VG_TYPE_STR || tb == VG_TYPE_STR)
		return VG_TYPE_STR;
	return arith_type(ta == TY_ANY ? VG_TYPE_INT : ta,
			  tb == TY_ANY ? VG_TYPE_INT : tb, T_STAR);
}

static int compile_binary(struct cc *c, const struct vg_expr *e)
{
	int ta, tb;
	bool u;

	if (e->op == T_ANDAND || e->op == T_OROR)
		return compile_logic(c, e);
	ta = compile_expr(c, e->a);
	tb = compile_expr(c, e->b);
	u = unsigned_ty(ta) || unsigned_ty(tb);
	if (e->op == T_EQEQ || e->op == T_NE) {
		bool sa = ta == VG_TYPE_STR, sb = tb == VG_TYPE_STR;

		if ((sa && !sb && tb != TY_ANY) || (sb && !sa && ta != TY_ANY))
			vg_ld_error(c->ld, e->loc, "cannot compare a string with %s, expected two strings",
				    a_ty(sa ? tb : ta));
		emit(c, binop(e->op, u), 0, 0, e->loc);
		return VG_TYPE_BOOL;
	}
	not_string(c, ta, e, e->loc);
	not_string(c, tb, e, e->loc);
	emit(c, binop(e->op, u), 0, 0, e->loc);
	switch (e->op) {
	case T_LT: case T_LE: case T_GT: case T_GE:
		return VG_TYPE_BOOL;
	default:
		return arith_type(ta, tb, e->op);
	}
}

static int compile_name(struct cc *c, const struct vg_expr *e)
{
	static const enum vg_opcode ops[] = {
		[R_FIELD] = VG_OP_FIELD, [R_PARAM] = VG_OP_PARAM,
		[R_VAR] = VG_OP_LDVAR, [R_GLOB] = VG_OP_LDGLOB,
		[R_TID] = VG_OP_TID, [R_TIME] = VG_OP_TIME,
	};
	struct ref r;

	if (c->konst)
		vg_ld_error(c->ld, e->loc, "'%s' is not a constant, expected a constant initializer (numbers, strings, true, false, null and operators)",
			    e->str);
	if (!resolve(c, e->str, &r))
		vg_ld_error(c->ld, e->loc, "unknown name '%s', expected an event parameter, slice parameter, variable, tid or time",
			    e->str);
	if (r.kind == R_FIELD && r.idx != VG_SLOT_RET) {
		if (c->ld->events[c->ev].nfields <= r.idx)
			c->ld->events[c->ev].nfields = r.idx + 1;
		c->ld->events[c->ev].used |= 1u << r.idx;
	}
	emit(c, ops[r.kind], r.idx, 0, e->loc);
	return r.type;
}

/* The path of a member chain below its base name, "a.b->c" for
 * p->a.b->c; false when the chain is not NAME->... */
static bool member_path(const struct vg_expr *e, const struct vg_expr **base,
			char *buf, size_t len)
{
	size_t n;

	if (e->kind != EX_MEMBER)
		return false;
	if (e->a->kind == EX_NAME) {
		if (!e->arrow)
			return false;	/* p.x: p is a pointer, not a struct */
		*base = e->a;
		buf[0] = 0;
	} else if (e->a->kind == EX_GLOBAL) {	/* ::g.x, ::g->x */
		*base = e->a;
		snprintf(buf, len, "%s%s", e->a->str, e->arrow ? "->" : ".");
	} else if (!member_path(e->a, base, buf, len)) {
		return false;
	} else {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s", e->arrow ? "->" : ".");
	}
	n = strlen(buf);
	snprintf(buf + n, len - n, "%s", e->str);
	return true;
}

/* `q->count`, `p->a.b`, `p->next->val`, `*p`: a value the probe reads from
 * target memory when the event happens, into a capture slot. With is_str,
 * the C string `str(p)` or `str(p->name)` names (e is what is inside the
 * parentheses): the probe copies it, user space interns it. */
static int compile_capture(struct cc *c, const struct vg_expr *e, bool is_str)
{
	struct vg_event *ev = &c->ld->events[c->ev];
	const struct vg_expr *base = NULL;
	char path[96], *text;
	struct ref r;
	int k;

	text = vg_expr_text(&c->ld->arena, e);
	if (c->konst)
		vg_ld_error(c->ld, e->start, "'%s' reads target memory, expected a constant initializer",
			    text ? text : "");
	if (is_str && e->kind == EX_NAME) {
		base = e;
		path[0] = 0;
	} else if (e->kind == EX_GLOBAL) {	/* ::counter, str(::name) */
		base = e;
		snprintf(path, sizeof(path), "%s", e->str);
	} else if (!is_str && e->kind == EX_UNARY && e->a->kind == EX_NAME) {
		base = e->a;
		path[0] = 0;
	} else if (e->kind != EX_MEMBER ||
		   !member_path(e, &base, path, sizeof(path))) {
		if (is_str)
			vg_ld_error(c->ld, e->start, "cannot read a string at '%s', expected str(p), str(p->field) or str(p->a.b) with p a parameter of the event",
				    text ? text : "");
		vg_ld_error(c->ld, e->start, "cannot read '%s', expected p->field, p->a.b, p->a->b or *p with p a parameter of the event",
			    text ? text : "");
	}
	if (is_str) {	/* the text the report shows: str(p->name) */
		char *t = vg_arena_alloc(&c->ld->arena, strlen(text ? text : "") + 6);

		if (!t)
			vg_ld_oom(c->ld);
		sprintf(t, "str(%s)", text ? text : "");
		text = t;
	}
	if (base->kind == EX_GLOBAL) {
		/* read from the program's data wherever the event comes from,
		 * but a trace has no program */
		r = (struct ref){ .kind = R_FIELD, .idx = VG_CAP_GLOBAL };
		if (ev->kind == VG_EV_NAMED)
			vg_ld_error(c->ld, e->start, "'%s' reads the target's memory, which a declared trace event does not have",
				    text ? text : "");
	} else {
		if (!resolve(c, base->str, &r) || r.kind != R_FIELD)
			vg_ld_error(c->ld, base->loc, "'%s' is not a parameter of this event, expected p->field or *p with p a parameter of the event",
				    base->str);
		if (ev->kind != VG_EV_BEFORE && ev->kind != VG_EV_AFTER &&
		    !(ev->kind == VG_EV_SYSCALL && is_str && !path[0]))
			vg_ld_error(c->ld, e->start, "'%s' reads target memory, which only function events (before/after) can do, and str(arg) of a syscall",
				    text ? text : "");
		if (r.idx != VG_SLOT_RET && ev->nfields <= r.idx)
			ev->nfields = r.idx + 1;
		if (r.idx != VG_SLOT_RET)
			ev->used |= 1u << r.idx;
	}
	for (k = 0; k < ev->ncaps; k++)
		if (ev->caps[k].src == r.idx && ev->caps[k].is_str == is_str &&
		    !strcmp(ev->caps[k].path, path))
			break;
	if (k == ev->ncaps) {
		if (k == VG_MAX_CAPS)
			vg_ld_error(c->ld, e->start, "'%s' is a %dth memory read for %s, expected at most %d per event",
				    text ? text : "", k + 1, ev->name, VG_MAX_CAPS);
		if (is_str && ev->nstrs == VG_MAX_STRS)
			vg_ld_error(c->ld, e->start, "'%s' is one string read too many for %s, expected at most %d per event",
				    text ? text : "", ev->name, VG_MAX_STRS);
		ev->caps[k].is_str = is_str;
		if (is_str)
			ev->caps[k].str_idx = (uint8_t)ev->nstrs++;
		ev->caps[k].src = (uint8_t)r.idx;
		snprintf(ev->caps[k].path, sizeof(ev->caps[k].path), "%s", path);
		snprintf(ev->caps[k].text, sizeof(ev->caps[k].text), "%s",
			 text ? text : "");
		ev->caps[k].loc = e->start;
		ev->ncaps++;
	}
	emit(c, VG_OP_FIELD, VG_SLOT_CAP0 + k, 0, e->loc);
	return is_str ? VG_TYPE_STR : TY_ANY;
}

static int compile_expr(struct cc *c, const struct vg_expr *e)
{
	int t;

	switch (e->kind) {
	case EX_INT:
		emit(c, VG_OP_PUSH, 0, e->ival, e->loc);
		return e->unsig ? VG_TYPE_UINT : VG_TYPE_INT;
	case EX_BOOL:
		emit(c, VG_OP_PUSH, 0, e->ival, e->loc);
		return VG_TYPE_BOOL;
	case EX_NULL:
		emit(c, VG_OP_PUSH, 0, 0, e->loc);
		return VG_TYPE_PTR;
	case EX_STR: {
		uint64_t id = vg_spec_intern(c->ld->spec, e->str);

		if (id == UINT64_MAX)
			vg_ld_oom(c->ld);
		emit(c, VG_OP_PUSH, 0, (int64_t)id, e->loc);
		return VG_TYPE_STR;
	}
	case EX_NAME:
		return compile_name(c, e);
	case EX_UNARY:
		if (e->op == T_STAR)
			return compile_capture(c, e, false);
		t = compile_expr(c, e->a);
		not_string(c, t, e, e->loc);
		if (e->op == T_BANG) {
			emit(c, VG_OP_NOT, 0, 0, e->loc);
			return VG_TYPE_BOOL;
		}
		emit(c, e->op == T_MINUS ? VG_OP_NEG : VG_OP_BNOT, 0, 0, e->loc);
		return t == VG_TYPE_BOOL || t == TY_ANY ? VG_TYPE_INT : t;
	case EX_BINARY:
		return compile_binary(c, e);
	case EX_COND:
		return compile_cond(c, e);
	case EX_MEMBER:
		return compile_capture(c, e, false);
	case EX_STRREAD:
		return compile_capture(c, e->a, true);
	case EX_GLOBAL:
		return compile_capture(c, e, false);
	}
	vg_ld_error(c->ld, e->start, "unexpected expression");
}

/* ---- statements ------------------------------------------------------- */

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

	if (!resolve(c, s->name, &r))
		vg_ld_error(c->ld, s->loc, "unknown variable '%s', expected a variable of property %s",
			    s->name, c->pr->name);
	if (r.kind != R_VAR && r.kind != R_GLOB)
		vg_ld_error(c->ld, s->loc, "cannot assign to '%s', %s, expected a variable",
			    s->name, r.param ? what[R_PARAM] : what[r.kind]);
	if (s->op == T_ASSIGN) {
		tv = compile_expr(c, s->value);
		if (tv != TY_ANY && (tv == VG_TYPE_STR) != (r.type == VG_TYPE_STR))
			vg_ld_error(c->ld, s->value->start, "cannot assign %s to %s variable '%s', expected a %s",
				    a_ty(tv), ty_name(r.type), s->name,
				    r.type == VG_TYPE_STR ? "string" : "number or bool");
	} else {
		if (r.type == VG_TYPE_STR)
			vg_ld_error(c->ld, s->op_loc, "operator '%s' does not take a string, expected '=' for string variable '%s'",
				    vg_tok_name(s->op), s->name);
		emit(c, r.kind == R_VAR ? VG_OP_LDVAR : VG_OP_LDGLOB, r.idx, 0,
		     s->loc);
		if (s->value) {
			tv = compile_expr(c, s->value);
			if (tv == VG_TYPE_STR)
				vg_ld_error(c->ld, s->value->start, "operator '%s' does not take a string, expected a number",
					    vg_tok_name(s->op));
		} else {
			tv = VG_TYPE_INT;
			emit(c, VG_OP_PUSH, 0, 1, s->op_loc);
		}
		emit(c, binop(op, unsigned_ty(r.type) || unsigned_ty(tv)), 0,
		     0, s->op_loc);
	}
	emit(c, r.kind == R_VAR ? VG_OP_STVAR : VG_OP_STGLOB, r.idx, 0, s->loc);
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
		t = compile_expr(c, va->init);
		c->konst = false;
		if ((t == VG_TYPE_STR) != (va->type == VG_TYPE_STR))
			vg_ld_error(c->ld, va->init->start, "cannot initialize %s variable '%s' with %s, expected a %s",
				    ty_name((int)va->type), va->name, a_ty(t),
				    va->type == VG_TYPE_STR ? "string" : "number or bool");
		if (vg_code_eval_const(pr->code + mark,
				       (uint32_t)(pr->ncode - mark), &v->init))
			vg_ld_error(c->ld, va->init->start, "initializer is not constant, expected a constant");
		pr->ncode = mark;	/* initializers leave no code */
	}
	v->name = vg_ld_xstrdup(c->ld, va->name);
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

static int event_index(struct vg_ld *ld, const struct vg_pattern *pat)
{
	struct vg_event *ev;

	for (int i = 0; i < ld->nevents; i++)
		if (ld->events[i].kind == pat->kind &&
		    !strcmp(ld->events[i].name, pat->name))
			return i;
	ev = realloc(ld->events, (size_t)(ld->nevents + 1) * sizeof(*ev));
	if (!ev)
		vg_ld_oom(ld);
	ld->events = ev;
	ev = &ld->events[ld->nevents];
	*ev = (struct vg_event){ .kind = pat->kind, .loc = pat->loc };
	ev->name = vg_ld_xstrdup(ld, pat->name);
	return ld->nevents++;
}

static void describe_slot(char *buf, size_t len, int slot)
{
	if (slot == VG_SLOT_RET)
		snprintf(buf, len, "to the return value");
	else
		snprintf(buf, len, "at position %d", slot);
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
				b.mask |= 1u << j;
				if (i < pat->nnames)
					c->ld->events[ev].used |= 1u << i;
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
	t->event = c->ev = event_index(c->ld, pat);
	ev = &c->ld->events[c->ev];
	if (pat->kind == VG_EV_NAMED && ev->nfields < c->ast->evdecls[d].nfields)
		ev->nfields = c->ast->evdecls[d].nfields;
	for (int i = 0; i < pat->nnames; i++) {
		if (pat->names[i].name && ev->nfields <= i)
			ev->nfields = i + 1;
		if (pat->names[i].name && !ev->argname[i][0]) {
			snprintf(ev->argname[i], sizeof(ev->argname[i]), "%s",
				 pat->names[i].name);
			ev->argloc[i] = pat->names[i].loc;
		}
	}
	if (pat->has_ret)
		ev->uses_ret = true;
	t->binding = bind_event(c, pat, c->ev);

	c->pat = pat;
	if (ta->guard) {
		int t0 = pr->ncode, ty;

		c->depth = 0;
		ty = compile_expr(c, ta->guard);
		if (ty == VG_TYPE_STR)
			vg_ld_error(c->ld, ta->guard->start, "guard is a string, expected a condition");
		emit(c, VG_OP_END, 0, 0, ta->guard->loc);
		t = &pr->trans[pr->ntrans];
		t->guard = (struct vg_code_ref){ (uint32_t)t0, (uint32_t)(pr->ncode - t0) };
	}
	if (ta->nstmts) {
		int t0 = pr->ncode;

		for (int i = 0; i < ta->nstmts; i++) {
			c->depth = 0;
			compile_stmt(c, &ta->stmts[i]);
		}
		emit(c, VG_OP_END, 0, 0, ta->stmts[0].loc);
		t = &pr->trans[pr->ntrans];
		t->update = (struct vg_code_ref){ (uint32_t)t0, (uint32_t)(pr->ncode - t0) };
	}
	c->pat = NULL;
	t->to = vg_property_find_state(pr, ta->to);
	if (t->to < 0)
		vg_ld_error(c->ld, ta->to_loc, "unknown state '%s', expected a state of property %s",
			    ta->to, pr->name);
	pr->ntrans++;
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
		}
	}
}

static void compile_prop(struct vg_ld *ld, const struct vg_prop_ast *a,
			 struct vg_property *pr)
{
	struct cc c = { .ld = ld, .ast = a, .pr = pr };
	int ntrans = 0, nglob = 0;

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
	pr->vars = vg_ld_xcalloc(ld, (size_t)(a->nvars - nglob), sizeof(*pr->vars));
	pr->globals = vg_ld_xcalloc(ld, (size_t)nglob, sizeof(*pr->globals));
	for (int i = 0; i < a->nvars; i++)
		compile_var(&c, &a->vars[i]);

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
