/* For the tests of what specs compile to (test_spec.c, test_spec_expr.c):
 * a small interpreter of property bytecode written from the contract
 * (include/vigil_code.h), independent of the compiler's own constant
 * evaluator, and checks of exact code where the contract leaves a
 * choice. */
#ifndef VIGIL_TESTS_SPEC_INTERP_H
#define VIGIL_TESTS_SPEC_INTERP_H

#include "spec/spec.h"

/* ---- an interpreter from the contract --------------------------------- */

struct env {
	int64_t slot[VG_NSLOTS];
	int64_t param[VG_MAX_PARAMS];
	int64_t var[16], glob[16];
	int64_t tid, time;
};

static inline int64_t run(const struct vg_property *p, struct vg_code_ref r,
		   struct env *env)
{
	int64_t st[VG_STACK_MAX];
	int sp = 0;

	if (!r.len)
		return 1;
	assert_int_equal(p->code[r.off + r.len - 1].op, VG_OP_END);
	for (uint32_t pc = r.off; pc < r.off + r.len; pc++) {
		const struct vg_insn *i = &p->code[pc];
		int64_t a, b;
		uint64_t ua, ub;

		assert_true(sp >= 0 && sp <= VG_STACK_MAX);
		switch (i->op) {
		case VG_OP_END: return sp ? st[sp - 1] : 0;
		case VG_OP_PUSH: st[sp++] = i->imm; continue;
		case VG_OP_FIELD: st[sp++] = env->slot[i->idx]; continue;
		case VG_OP_PARAM: st[sp++] = env->param[i->idx]; continue;
		case VG_OP_LDVAR: st[sp++] = env->var[i->idx]; continue;
		case VG_OP_LDGLOB: st[sp++] = env->glob[i->idx]; continue;
		case VG_OP_STVAR: env->var[i->idx] = st[--sp]; continue;
		case VG_OP_STGLOB: env->glob[i->idx] = st[--sp]; continue;
		case VG_OP_TID: st[sp++] = env->tid; continue;
		case VG_OP_TIME: st[sp++] = env->time; continue;
		case VG_OP_DUP: st[sp] = st[sp - 1]; sp++; continue;
		case VG_OP_POP: sp--; continue;
		case VG_OP_NEG: st[sp - 1] = (int64_t)(0 - (uint64_t)st[sp - 1]); continue;
		case VG_OP_NOT: st[sp - 1] = !st[sp - 1]; continue;
		case VG_OP_BNOT: st[sp - 1] = ~st[sp - 1]; continue;
		case VG_OP_JMP: assert_true(i->imm >= 0); pc += i->imm; continue;
		case VG_OP_JZ: assert_true(i->imm >= 0); if (!st[--sp]) pc += i->imm; continue;
		case VG_OP_JNZ: assert_true(i->imm >= 0); if (st[--sp]) pc += i->imm; continue;
		}
		b = st[--sp];
		a = st[--sp];
		ua = (uint64_t)a;
		ub = (uint64_t)b;
		switch (i->op) {
		case VG_OP_ADD: a = (int64_t)(ua + ub); break;
		case VG_OP_SUB: a = (int64_t)(ua - ub); break;
		case VG_OP_MUL: a = (int64_t)(ua * ub); break;
		case VG_OP_DIVS: a = b == 0 ? 0 : (a == INT64_MIN && b == -1) ? a : a / b; break;
		case VG_OP_DIVU: a = b == 0 ? 0 : (int64_t)(ua / ub); break;
		case VG_OP_MODS: a = b == 0 ? a : b == -1 ? 0 : a % b; break;
		case VG_OP_MODU: a = b == 0 ? a : (int64_t)(ua % ub); break;
		case VG_OP_AND: a &= b; break;
		case VG_OP_OR: a |= b; break;
		case VG_OP_XOR: a ^= b; break;
		case VG_OP_SHL: a = (int64_t)(ua << (ub & 63)); break;
		case VG_OP_SHRS: a = a >> (ub & 63); break;
		case VG_OP_SHRU: a = (int64_t)(ua >> (ub & 63)); break;
		case VG_OP_EQ: a = a == b; break;
		case VG_OP_NE: a = a != b; break;
		case VG_OP_LTS: a = a < b; break;
		case VG_OP_LES: a = a <= b; break;
		case VG_OP_GTS: a = a > b; break;
		case VG_OP_GES: a = a >= b; break;
		case VG_OP_LTU: a = ua < ub; break;
		case VG_OP_LEU: a = ua <= ub; break;
		case VG_OP_GTU: a = ua > ub; break;
		case VG_OP_GEU: a = ua >= ub; break;
		default: fail_msg("bad opcode %d", i->op);
		}
		st[sp++] = a;
	}
	fail_msg("ran off the end");
	return 0;
}

/* Compile `when EXPR` in a property with a few variables and run it with
 * event fields x = fx and y = fy. */
static inline int64_t eval(const char *expr, int64_t fx, int64_t fy)
{
	char text[1024];
	struct vg_spec *s;
	struct env env = { .slot = { fx, fy } };
	int64_t v;

	snprintf(text, sizeof(text),
		 "property t\nint a = -7, b = 2\nuint u = 1\nptr p = 0x10\n"
		 "string str = \"s\"\n"
		 "state s { before f(x, y) when %s -> s }\n", expr);
	s = load(text);
	for (int i = 0; i < s->props[0].nvars; i++)
		env.var[i] = s->props[0].vars[i].init;
	v = run(&s->props[0], s->props[0].trans[0].guard, &env);
	vg_spec_free(s);
	return v;
}

struct op {
	enum vg_opcode op;
	int idx;
	int64_t imm;
};

static inline void assert_code(const struct vg_property *p, struct vg_code_ref r,
			const struct op *want, int n)
{
	assert_int_equal(r.len, n);
	for (int i = 0; i < n; i++) {
		const struct vg_insn *in = &p->code[r.off + i];

		if (in->op != want[i].op || in->idx != want[i].idx ||
		    in->imm != want[i].imm)
			fail_msg("insn %d: got op %d idx %d imm %lld, want op %d idx %d imm %lld",
				 i, in->op, in->idx, (long long)in->imm,
				 want[i].op, want[i].idx, (long long)want[i].imm);
	}
}
#define ASSERT_CODE(p, r, ...)                                                 \
	do {                                                                   \
		const struct op w_[] = { __VA_ARGS__ };                        \
		assert_code((p), (r), w_, (int)(sizeof(w_) / sizeof(w_[0])));  \
	} while (0)

/* The first opcode of the guard that is not a load. */
static inline enum vg_opcode guard_op(const char *expr)
{
	char text[512];
	struct vg_spec *s;
	enum vg_opcode op = VG_OP_END;

	snprintf(text, sizeof(text),
		 "property t\nint a\nuint u\nptr p\nbool t\n"
		 "state s { before f(x) when %s -> s }\n", expr);
	s = load(text);
	const struct vg_property *pr = &s->props[0];
	for (uint32_t i = 0; i < pr->trans[0].guard.len; i++) {
		op = pr->code[pr->trans[0].guard.off + i].op;
		if (op != VG_OP_LDVAR && op != VG_OP_PUSH && op != VG_OP_FIELD)
			break;
	}
	vg_spec_free(s);
	return op;
}

#endif
