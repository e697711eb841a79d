/* The guard/update interpreter. include/vigil_code.h is the contract; the
 * BPF tier (bpf/kstep.bpf.h) runs the same bytecode, so every corner case
 * here (division by zero, INT64_MIN / -1, shift counts, malformed programs)
 * is decided the way that file decides it. Arithmetic is done on uint64_t
 * so that wrapping is defined behaviour in C. */
#include "monitor_internal.h"

#include <limits.h>

static int64_t sdiv(int64_t a, int64_t b)
{
	uint64_t ua, ub, q;
	int neg;

	if (b == 0)
		return 0;
	/* through magnitudes: INT64_MIN / -1 would trap on x86 in C */
	neg = (a < 0) != (b < 0);
	ua = a < 0 ? -(uint64_t)a : (uint64_t)a;
	ub = b < 0 ? -(uint64_t)b : (uint64_t)b;
	q = ua / ub;
	return (int64_t)(neg ? -q : q);
}

static int64_t smod(int64_t a, int64_t b)
{
	if (b == 0)
		return a;
	/* the remainder takes the sign of the dividend, as in C */
	return (int64_t)((uint64_t)a - (uint64_t)sdiv(a, b) * (uint64_t)b);
}

static int64_t binop(uint8_t op, int64_t a, int64_t b, int *err)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	switch (op) {
	case VG_OP_ADD: return (int64_t)(ua + ub);
	case VG_OP_SUB: return (int64_t)(ua - ub);
	case VG_OP_MUL: return (int64_t)(ua * ub);
	case VG_OP_DIVS: return sdiv(a, b);
	case VG_OP_DIVU: return ub ? (int64_t)(ua / ub) : 0;
	case VG_OP_MODS: return smod(a, b);
	case VG_OP_MODU: return ub ? (int64_t)(ua % ub) : a;
	case VG_OP_AND: return a & b;
	case VG_OP_OR: return a | b;
	case VG_OP_XOR: return a ^ b;
	case VG_OP_SHL: return (int64_t)(ua << (ub & 63));
	/* gcc and clang shift signed values arithmetically */
	case VG_OP_SHRS: return a >> (ub & 63);
	case VG_OP_SHRU: return (int64_t)(ua >> (ub & 63));
	case VG_OP_EQ: return a == b;
	case VG_OP_NE: return a != b;
	case VG_OP_LTS: return a < b;
	case VG_OP_LES: return a <= b;
	case VG_OP_GTS: return a > b;
	case VG_OP_GES: return a >= b;
	case VG_OP_LTU: return ua < ub;
	case VG_OP_LEU: return ua <= ub;
	case VG_OP_GTU: return ua > ub;
	case VG_OP_GEU: return ua >= ub;
	}
	*err = 1;
	return 0;
}

/* pc += imm, the distance read as unsigned (jumps only go forward). A
 * distance that leaves the program, or would wrap the counter around to an
 * earlier instruction, ends it as END would: returns 1 to stop. */
static int jump(uint32_t *pc, int64_t imm, uint32_t len)
{
	uint64_t npc = (uint64_t)*pc + (uint32_t)imm;

	if (npc >= len)
		return 1;
	*pc = (uint32_t)npc;
	return 0;
}

int64_t vg_vm_exec(const struct vg_vm_ctx *c)
{
	int64_t st[VG_STACK_MAX];
	uint32_t sp = 0, pc = 0, len = c->len ? c->len : UINT32_MAX;
	int err = 0;

	/* A malformed program (the compiler guarantees none) must not crash
	 * or read outside its arrays: stop and answer 0, like the kernel. */
#define PUSH(v)                                                            \
	do {                                                               \
		if (sp >= VG_STACK_MAX)                                    \
			return 0;                                          \
		st[sp++] = (v);                                            \
	} while (0)
#define NEED(n)                                                            \
	do {                                                               \
		if (sp < (n))                                              \
			return 0;                                          \
	} while (0)

	while (pc < len) {
		const struct vg_insn *in = &c->code[pc++];
		uint64_t u;

		switch (in->op) {
		case VG_OP_END:
			goto out;
		case VG_OP_PUSH:
			PUSH(in->imm);
			break;
		case VG_OP_FIELD:
			u = c->slot ? c->slot[in->idx < VG_NSLOTS ? in->idx : 0]
				    : 0;
			PUSH((int64_t)u);
			break;
		case VG_OP_PARAM:
			if (in->idx >= VG_MAX_PARAMS)
				return 0;
			PUSH(c->params ? (int64_t)c->params[in->idx] : 0);
			break;
		case VG_OP_LDVAR:
			if (in->idx >= c->nvars || !c->vars)
				return 0;
			PUSH(c->vars[in->idx]);
			break;
		case VG_OP_STVAR:
			NEED(1);
			if (in->idx >= c->nvars || !c->vars)
				return 0;
			c->vars[in->idx] = st[--sp];
			break;
		case VG_OP_LDGLOB:
			if (in->idx >= c->nglobals || !c->globals)
				return 0;
			PUSH(c->globals[in->idx]);
			break;
		case VG_OP_STGLOB:
			NEED(1);
			if (in->idx >= c->nglobals || !c->globals)
				return 0;
			c->globals[in->idx] = st[--sp];
			break;
		case VG_OP_TID:
			PUSH((int64_t)c->tid);
			break;
		case VG_OP_TIME:
			PUSH((int64_t)c->time_ns);
			break;
		case VG_OP_DUP:
			NEED(1);
			u = (uint64_t)st[sp - 1];
			PUSH((int64_t)u);
			break;
		case VG_OP_POP:
			NEED(1);
			sp--;
			break;
		case VG_OP_NEG:
			NEED(1);
			st[sp - 1] = (int64_t)(0 - (uint64_t)st[sp - 1]);
			break;
		case VG_OP_NOT:
			NEED(1);
			st[sp - 1] = st[sp - 1] == 0;
			break;
		case VG_OP_BNOT:
			NEED(1);
			st[sp - 1] = ~st[sp - 1];
			break;
		case VG_OP_JMP:
			if (jump(&pc, in->imm, len))
				goto out;
			break;
		case VG_OP_JZ:
		case VG_OP_JNZ:
			NEED(1);
			sp--;
			if ((in->op == VG_OP_JZ) == (st[sp] == 0) &&
			    jump(&pc, in->imm, len))
				goto out;
			break;
		default:
			NEED(2);
			st[sp - 2] = binop(in->op, st[sp - 2], st[sp - 1], &err);
			sp--;
			if (err)
				return 0;
			break;
		}
	}
out:
	return sp ? st[sp - 1] : 1;
#undef PUSH
#undef NEED
}

int64_t vg_vm_run(const struct vg_insn *code, const uint64_t *slot,
		  int64_t *vars, int64_t *globals, uint32_t tid,
		  uint64_t time_ns)
{
	struct vg_vm_ctx c = {
		.code = code, .slot = slot, .vars = vars, .globals = globals,
		.nvars = UINT32_MAX, .nglobals = UINT32_MAX,
		.tid = tid, .time_ns = time_ns,
	};

	return vg_vm_exec(&c);
}
