/* Guards and updates to bytecode (include/vigil_code.h): names and types,
 * operators, and the target memory an expression reads (p->field, *p,
 * str(p), ::global), which becomes a capture of the event. */
#include "compile_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool vg_cc_unsigned_ty(int t)
{
	return t == VG_TYPE_UINT || t == VG_TYPE_PTR;
}

const char *vg_cc_ty_name(int t)
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
const char *vg_cc_a_ty(int t)
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

int vg_cc_emit(struct cc *c, enum vg_opcode op, int idx, int64_t imm,
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
		if (n->deref)	/* `*s`: what position i points to */
			r->idx = VG_SLOT_CAP0 + vg_cc_pattern_capture(c, pat, i);
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
	if (pat->kind == VG_EV_WRITE || pat->kind == VG_EV_READ ||
	    pat->kind == VG_EV_ACCESS || pat->kind == VG_EV_CHANGE) {
		static const char *const wf[] = {
			[VG_WSLOT_VALUE] = "value", [VG_WSLOT_OLD] = "old",
			[VG_WSLOT_ADDR] = "addr",
		};

		for (int i = 0; i < 3; i++)
			if (!strcmp(name, wf[i])) {
				*r = (struct ref){ .kind = R_FIELD, .idx = i,
						   .type = TY_ANY };
				if (ev->nfields < i + 1)
					ev->nfields = i + 1;
				return true;
			}
	}
	return false;
}

bool vg_cc_resolve(struct cc *c, const char *name, struct ref *r)
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
	if (vg_cc_unsigned_ty(ta) || vg_cc_unsigned_ty(tb))
		return VG_TYPE_UINT;
	return VG_TYPE_INT;
}

enum vg_opcode vg_cc_binop(enum vg_tok op, bool u)
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

	not_string(c, vg_cc_compile_expr(c, e->a), e, e->loc);
	j1 = vg_cc_emit(c, skip, 0, 0, e->loc);
	not_string(c, vg_cc_compile_expr(c, e->b), e, e->loc);
	j2 = vg_cc_emit(c, skip, 0, 0, e->loc);
	vg_cc_emit(c, VG_OP_PUSH, 0, and ? 1 : 0, e->loc);
	jend = vg_cc_emit(c, VG_OP_JMP, 0, 0, e->loc);
	land(c, j1);
	land(c, j2);
	c->depth--;	/* the other branch arrives without the first push */
	vg_cc_emit(c, VG_OP_PUSH, 0, and ? 0 : 1, e->loc);
	land(c, jend);
	return VG_TYPE_BOOL;
}

static int compile_cond(struct cc *c, const struct vg_expr *e)
{
	int ta, tb, jelse, jend;

	not_string(c, vg_cc_compile_expr(c, e->a), e, e->loc);
	jelse = vg_cc_emit(c, VG_OP_JZ, 0, 0, e->loc);
	ta = vg_cc_compile_expr(c, e->b);
	jend = vg_cc_emit(c, VG_OP_JMP, 0, 0, e->loc);
	land(c, jelse);
	c->depth--;
	tb = vg_cc_compile_expr(c, e->c);
	land(c, jend);
	if ((ta == VG_TYPE_STR && tb != VG_TYPE_STR && tb != TY_ANY) ||
	    (tb == VG_TYPE_STR && ta != VG_TYPE_STR && ta != TY_ANY))
		vg_ld_error(c->ld, e->loc, "'?:' mixes %s and %s, expected both branches of one kind",
			    vg_cc_a_ty(ta), vg_cc_a_ty(tb));
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
	ta = vg_cc_compile_expr(c, e->a);
	tb = vg_cc_compile_expr(c, e->b);
	u = vg_cc_unsigned_ty(ta) || vg_cc_unsigned_ty(tb);
	if (e->op == T_EQEQ || e->op == T_NE) {
		bool sa = ta == VG_TYPE_STR, sb = tb == VG_TYPE_STR;

		if ((sa && !sb && tb != TY_ANY) || (sb && !sa && ta != TY_ANY))
			vg_ld_error(c->ld, e->loc, "cannot compare a string with %s, expected two strings",
				    vg_cc_a_ty(sa ? tb : ta));
		vg_cc_emit(c, vg_cc_binop(e->op, u), 0, 0, e->loc);
		return VG_TYPE_BOOL;
	}
	not_string(c, ta, e, e->loc);
	not_string(c, tb, e, e->loc);
	vg_cc_emit(c, vg_cc_binop(e->op, u), 0, 0, e->loc);
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
	if (!vg_cc_resolve(c, e->str, &r))
		vg_ld_error(c->ld, e->loc, "unknown name '%s', expected an event parameter, slice parameter, variable, tid or time",
			    e->str);
	if (r.kind == R_FIELD && r.idx < VG_MAX_FIELDS) {
		if (c->ld->events[c->ev].nfields <= r.idx)
			c->ld->events[c->ev].nfields = r.idx + 1;
		c->ld->events[c->ev].used |= 1u << r.idx;
	}
	if (r.kind == R_VAR && c->pr->vars[r.idx].clock) {
		/* a clock reads as the time since its reset */
		vg_cc_emit(c, VG_OP_TIME, 0, 0, e->loc);
		vg_cc_emit(c, VG_OP_LDVAR, r.idx, 0, e->loc);
		vg_cc_emit(c, VG_OP_SUB, 0, 0, e->loc);
		return VG_TYPE_INT;
	}
	vg_cc_emit(c, ops[r.kind], r.idx, 0, e->loc);
	return r.type;
}

/* The path of a member chain below its base name, "a.b->c" for
 * p->a.b->c; false when the chain is not NAME->... */
bool vg_cc_member_path(const struct vg_expr *e, const struct vg_expr **base,
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
	} else if (!vg_cc_member_path(e->a, base, buf, len)) {
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
		   !vg_cc_member_path(e, &base, path, sizeof(path))) {
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
		if (!vg_cc_resolve(c, base->str, &r) || r.kind != R_FIELD)
			vg_ld_error(c->ld, base->loc, "'%s' is not a parameter of this event, expected p->field or *p with p a parameter of the event",
				    base->str);
		if (ev->kind != VG_EV_BEFORE && ev->kind != VG_EV_AFTER &&
		    !(ev->kind == VG_EV_SYSCALL && is_str && !path[0]))
			vg_ld_error(c->ld, e->start, "'%s' reads target memory, which only function events (before/after) can do, and str(arg) of a syscall",
				    text ? text : "");
		if (r.idx >= VG_SLOT_CAP0)	/* `*s` of the pattern */
			vg_ld_error(c->ld, base->loc, "'%s' is already read from memory (its pattern says '*%s'), expected a name the event passes",
				    base->str, base->str);
	}
	k = vg_cc_capture(c, r.idx, path, is_str, text ? text : "", e->start);
	vg_cc_emit(c, VG_OP_FIELD, VG_SLOT_CAP0 + k, 0, e->loc);
	return is_str ? VG_TYPE_STR : TY_ANY;
}

int vg_cc_capture(struct cc *c, int src, const char *path, bool is_str,
		  const char *text, struct vg_loc loc)
{
	struct vg_event *ev = &c->ld->events[c->ev];
	int k;

	for (k = 0; k < ev->ncaps; k++)
		if (ev->caps[k].src == src && ev->caps[k].is_str == is_str &&
		    !strcmp(ev->caps[k].path, path))
			return k;
	if (k == VG_MAX_CAPS)
		vg_ld_error(c->ld, loc, "'%s' is a %dth memory read for %s, expected at most %d per event",
			    text, k + 1, ev->name, VG_MAX_CAPS);
	if (is_str && ev->nstrs == VG_MAX_STRS)
		vg_ld_error(c->ld, loc, "'%s' is one string read too many for %s, expected at most %d per event",
			    text, ev->name, VG_MAX_STRS);
	ev->caps[k].is_str = is_str;
	if (is_str)
		ev->caps[k].str_idx = (uint8_t)ev->nstrs++;
	ev->caps[k].src = (uint8_t)src;
	snprintf(ev->caps[k].path, sizeof(ev->caps[k].path), "%s", path);
	snprintf(ev->caps[k].text, sizeof(ev->caps[k].text), "%s", text);
	ev->caps[k].loc = loc;
	if (src != VG_SLOT_RET && src != VG_CAP_GLOBAL) {
		if (ev->nfields <= src)
			ev->nfields = src + 1;
		ev->used |= 1u << src;
	}
	return ev->ncaps++;
}

/* valid(p, n), block_length(p): the pointer, the length (0 for the
 * one-argument ones: MEM always pops two), then MEM. The run's object
 * map answers when the monitor runs it (include/vigil_code.h). */
static int compile_mem_pred(struct cc *c, const struct vg_expr *e)
{
	if (c->konst)
		vg_ld_error(c->ld, e->start, "'%s()' is not a constant, expected a constant initializer (numbers, strings, true, false, null and operators)",
			    e->str);
	if (vg_cc_compile_expr(c, e->a) == VG_TYPE_STR ||
	    (e->b && vg_cc_compile_expr(c, e->b) == VG_TYPE_STR))
		vg_ld_error(c->ld, e->start, "'%s()' does not take a string, expected a pointer%s",
			    e->str, e->b ? " and a length" : "");
	if (!e->b)
		vg_cc_emit(c, VG_OP_PUSH, 0, 0, e->loc);
	vg_cc_emit(c, VG_OP_MEM, 0, e->ival, e->loc);
	if (vg_mem_pred_is_bool((int)e->ival))
		return VG_TYPE_BOOL;
	return e->ival == VG_MEM_BLOCK_BASE ? VG_TYPE_PTR : VG_TYPE_UINT;
}

int vg_cc_compile_expr(struct cc *c, const struct vg_expr *e)
{
	int t;

	switch (e->kind) {
	case EX_INT:
		vg_cc_emit(c, VG_OP_PUSH, 0, e->ival, e->loc);
		return e->unsig ? VG_TYPE_UINT : VG_TYPE_INT;
	case EX_BOOL:
		vg_cc_emit(c, VG_OP_PUSH, 0, e->ival, e->loc);
		return VG_TYPE_BOOL;
	case EX_NULL:
		vg_cc_emit(c, VG_OP_PUSH, 0, 0, e->loc);
		return VG_TYPE_PTR;
	case EX_STR: {
		uint64_t id = vg_spec_intern(c->ld->spec, e->str);

		if (id == UINT64_MAX)
			vg_ld_oom(c->ld);
		vg_cc_emit(c, VG_OP_PUSH, 0, (int64_t)id, e->loc);
		return VG_TYPE_STR;
	}
	case EX_NAME:
		return compile_name(c, e);
	case EX_UNARY:
		if (e->op == T_STAR)
			return compile_capture(c, e, false);
		t = vg_cc_compile_expr(c, e->a);
		not_string(c, t, e, e->loc);
		if (e->op == T_BANG) {
			vg_cc_emit(c, VG_OP_NOT, 0, 0, e->loc);
			return VG_TYPE_BOOL;
		}
		vg_cc_emit(c, e->op == T_MINUS ? VG_OP_NEG : VG_OP_BNOT, 0, 0, e->loc);
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
	case EX_MEMPRED:
		return compile_mem_pred(c, e);
	}
	vg_ld_error(c->ld, e->start, "unexpected expression");
}

/* ---- statements ------------------------------------------------------- */
