/* Positional parameters and return values from the function's prototype
 * (user/plan/args.h). The x86-64 classification itself is in
 * user/sym/dwarf.c (vg_dwarf_proto); this file turns it into what the probe
 * does, and refuses what a probe cannot read. */
#include "args.h"

#include <stdio.h>
#include <string.h>

#include "conv.h"
#include "sym/dwarf.h"

static int fail(struct vg_args_plan *out, int bad, struct vg_err *e,
		const char *why)
{
	out->bad = bad;
	snprintf(e->msg, sizeof(e->msg), "%s", why);
	e->exit_code = VG_EXIT_USAGE;
	return -1;
}

/* Without DWARF: integer register i, then the stack, 8 bytes as they are. */
static void by_position(struct vg_arg_plan *a, int i, char *what, size_t len)
{
	static const char *const reg[] = { "rdi", "rsi", "rdx",
					   "rcx", "r8", "r9" };

	if (i < VG_NARGS) {
		*a = (struct vg_arg_plan){ .where = VG_ARG_REG, .reg = (__u8)i,
					   .conv = VG_CONV_RAW, .size = 8 };
		snprintf(what, len, "8 bytes in %%%s (no DWARF type)", reg[i]);
	} else {
		*a = (struct vg_arg_plan){ .where = VG_ARG_STACK,
					   .stack_off = 8 * (i - VG_NARGS + 1),
					   .conv = VG_CONV_RAW, .size = 8 };
		snprintf(what, len, "8 bytes at %d(%%rsp) (no DWARF type)",
			 a->stack_off);
	}
}

int vg_conv_of(const struct vg_type *t)
{
	if (t->size < 1 || t->size > 8)
		return -1;
	switch (t->kind) {
	case VG_TK_SINT:
		return t->size == 8 ? VG_CONV_RAW : VG_CONV_SEXT;
	case VG_TK_ENUM:
		if (t->size == 8)
			return VG_CONV_RAW;
		return t->enum_signed ? VG_CONV_SEXT : VG_CONV_ZEXT;
	case VG_TK_UINT:
		return t->size == 8 ? VG_CONV_RAW : VG_CONV_ZEXT;
	case VG_TK_BOOL:
		return VG_CONV_BOOL;
	case VG_TK_PTR:
		return VG_CONV_RAW;
	default:
		return -1;
	}
}

/* Why a value of type t cannot be a spec value, or NULL. */
static const char *unreadable(const struct vg_type *t, const struct vg_loc *l)
{
	if (t->kind == VG_TK_FLOAT)
		return "vigil's language has no floating-point type, and a uprobe cannot read the SSE registers such values are passed in";
	if (t->kind == VG_TK_STRUCT || t->kind == VG_TK_UNION)
		return "it is passed by value; expected an integer, bool, enum or pointer (pass a pointer to read its fields)";
	if (vg_conv_of(t) < 0)
		return "expected an integer, bool, enum or pointer of at most 8 bytes";
	if (l->kind == VG_LOC_REG &&
	    (l->nregs != 1 || vg_reg_ptregs_offset(l->reg[0]) < 0))
		return "it is not in an integer register";
	if (l->kind == VG_LOC_NONE)
		return "it occupies no register or stack slot";
	return NULL;
}

static int place(struct vg_arg_plan *a, const struct vg_type *t,
		 const struct vg_loc *l, char *what, size_t len)
{
	a->conv = (__u8)vg_conv_of(t);
	a->size = (__u8)t->size;
	if (l->kind == VG_LOC_STACK) {
		a->where = VG_ARG_STACK;
		a->stack_off = l->stack_off;
		snprintf(what, len, "%s at %d(%%rsp)", t->name, l->stack_off);
	} else {
		a->where = VG_ARG_REG;
		a->reg = (__u8)(l->reg[0] - VG_REG_RDI);
		snprintf(what, len, "%s in %%%s", t->name,
			 vg_reg_name(l->reg[0]));
	}
	return 0;
}

/* A variadic function's unnamed arguments, read as integers: the next
 * integer register after the named ones, then the next stack slot. */
static void variadic(const struct vg_proto *pr, int i, struct vg_arg_plan *a,
		     char *what, size_t len)
{
	int ni = pr->sret, extra = i - (int)pr->nparams;
	int32_t stack = 8;

	for (size_t k = 0; k < pr->nparams; k++) {
		const struct vg_loc *l = &pr->params[k].loc;

		for (int r = 0; l->kind == VG_LOC_REG && r < l->nregs; r++)
			ni += vg_reg_ptregs_offset(l->reg[r]) >= 0 &&
			      l->reg[r] != VG_REG_RAX;
		if (l->kind == VG_LOC_STACK &&
		    l->stack_off + (int32_t)((pr->params[k].type.size + 7) &
					     ~7ull) > stack)
			stack = l->stack_off +
				(int32_t)((pr->params[k].type.size + 7) & ~7ull);
	}
	if (ni + extra < VG_NARGS) {
		by_position(a, ni + extra, what, len);
	} else {
		*a = (struct vg_arg_plan){ .where = VG_ARG_STACK,
					   .stack_off = stack +
						   8 * (ni + extra - VG_NARGS),
					   .conv = VG_CONV_RAW, .size = 8 };
		snprintf(what, len, "8 bytes at %d(%%rsp)", a->stack_off);
	}
	snprintf(what + strlen(what), len - strlen(what),
		 " (an unnamed argument of a variadic function)");
}

static int plan_return(const struct vg_proto *pr, const char *binary,
		       struct vg_ev_conf *conf, struct vg_args_plan *out,
		       struct vg_err *e)
{
	char why[700];
	const char *no;
	int conv;

	if (!pr->has_ret) {
		snprintf(why, sizeof(why), "%s in %s returns void; the spec reads its return value",
			 pr->func, binary);
		return fail(out, VG_SLOT_RET, e, why);
	}
	if (pr->sret) {
		snprintf(why, sizeof(why), "%s in %s returns a %s in memory; expected an integer, bool, enum or pointer",
			 pr->func, binary, pr->ret.name);
		return fail(out, VG_SLOT_RET, e, why);
	}
	if ((no = unreadable(&pr->ret, &pr->ret_loc))) {
		snprintf(why, sizeof(why), "the return value of %s in %s is a %s: %s",
			 pr->func, binary, pr->ret.name, no);
		return fail(out, VG_SLOT_RET, e, why);
	}
	conv = vg_conv_of(&pr->ret);
	conf->ret_conv = (__u8)conv;
	conf->ret_size = (__u8)pr->ret.size;
	if (conv != VG_CONV_RAW)
		conf->flags |= VG_EVF_RETX;
	snprintf(out->what[VG_SLOT_RET], sizeof(out->what[0]), "%s in %%rax",
		 pr->ret.name);
	return 0;
}

int vg_args_plan(struct vg_dwarf *dw, const char *binary,
		 const struct vg_args_req *req, struct vg_ev_conf *conf,
		 struct vg_args_plan *out, struct vg_err *e)
{
	struct vg_err de = { 0 };
	struct vg_proto pr;
	bool moved = false;
	char why[900];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* no DWARF fails vg_dwarf_proto too, after its cache (has_debug
	 * would open a separate debug file the cache can spare) */
	if (!dw || vg_dwarf_proto(dw, req->func, &pr, &de)) {
		for (int i = 0; i < req->nfields; i++)
			by_position(&conf->arg[i], i, out->what[i],
				    sizeof(out->what[i]));
		if (req->nfields > VG_NARGS)
			conf->flags |= VG_EVF_ARGS;
		if (req->uses_ret)
			snprintf(out->what[VG_SLOT_RET], sizeof(out->what[0]),
				 "8 bytes in %%rax (no DWARF type)");
		return 0;
	}
	out->typed = true;
	for (int i = 0; !rc && i < req->nfields; i++) {
		const char *name = req->names[i][0] ? req->names[i] : NULL;
		bool used = req->used >> i & 1;
		struct vg_arg_plan *a = &conf->arg[i];
		const struct vg_param *p = NULL;
		const char *no = NULL;

		if ((size_t)i < pr.nparams) {
			p = &pr.params[i];
			no = unreadable(&p->type, &p->loc);
		} else if (!pr.variadic) {
			snprintf(why, sizeof(why), "%s in %s has %zu parameter%s in DWARF; the spec names parameter %d '%s'",
				 pr.func, binary, pr.nparams,
				 pr.nparams == 1 ? "" : "s", i + 1,
				 name ? name : "_");
			if (used) {
				rc = fail(out, i, e, why);
				break;
			}
			no = "no such parameter";
		}
		if (no && used) {
			snprintf(why, sizeof(why), "parameter %d '%s' of %s in %s is a %s: %s",
				 i + 1, name ? name : "_", pr.func, binary,
				 p->type.name, no);
			rc = fail(out, i, e, why);
			break;
		}
		if (no) {	/* named but never read: leave it */
			*a = (struct vg_arg_plan){ .where = VG_ARG_NONE };
			snprintf(out->what[i], sizeof(out->what[i]),
				 "not read (%s)", no);
		} else if (p) {
			place(a, &p->type, &p->loc, out->what[i],
			      sizeof(out->what[i]));
		} else {
			variadic(&pr, i, a, out->what[i], sizeof(out->what[i]));
		}
		if (name && vg_proto_name_differs(&pr, binary, (size_t)i, name,
						  out->warn[i],
						  sizeof(out->warn[i]))) {
			out->warn_mask |= 1u << i;
			for (size_t j = 0; j < pr.nparams; j++)
				if (j != (size_t)i && pr.params[j].name &&
				    !strcmp(pr.params[j].name, name)) {
					size_t n = strlen(out->warn[i]);

					snprintf(out->warn[i] + n,
						 sizeof(out->warn[i]) - n,
						 ", and '%s' is its parameter %zu: swapped?",
						 name, j + 1);
					out->likely_mask |= 1u << i;
					break;
				}
		}
		if (a->where != VG_ARG_REG || a->reg != i ||
		    a->conv != VG_CONV_RAW)
			moved = true;
	}
	if (!rc && pr.nocall && req->nfields) {
		snprintf(out->caveat, sizeof(out->caveat), "%s in %s: the compiler changed how it is called (DW_CC_nocall), so its parameters may not be where the ABI puts them",
			 pr.func, binary);
	}
	if (!rc && req->uses_ret)
		rc = plan_return(&pr, binary, conf, out, e);
	if (!rc && moved)
		conf->flags |= VG_EVF_ARGS;
	vg_proto_free(&pr);
	return rc;
}
