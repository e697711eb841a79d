/* The guard/update interpreter. include/vigil_code.h is the contract; the
 * BPF tier (bpf/kstep.bpf.h) runs the same bytecode, so every corner case
 * here (division by zero, INT64_MIN / -1, shift counts, malformed programs)
 * is decided the way that file decides it: both take their operators from
 * include/vigil_ops.h. */
#include "monitor_internal.h"
#include "vigil_ops.h"

#include <limits.h>
#include <string.h>

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

/* VG_OP_MEM: the oracle's answer, or 0 and the caller told it was
 * unknown. (Programs that use it always run here, checked: vg_vm_check
 * leaves them out of the fast path.) */
static int64_t mem_pred(const struct vg_vm_ctx *c, int64_t pred, uint64_t p,
			uint64_t n)
{
	int64_t out = 0;

	if (pred >= 0 && pred < VG_MEM__COUNT && c->mem && c->mem->eval &&
	    c->mem->eval(c->mem->ctx, c->pid, (int)pred, p, n, &out))
		return out;
	if (c->unknown)
		*c->unknown = true;
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
		case VG_OP_MEM:
			NEED(2);
			st[sp - 2] = mem_pred(c, in->imm, (uint64_t)st[sp - 2],
					      (uint64_t)st[sp - 1]);
			sp--;
			break;
		default:
			NEED(2);
			st[sp - 2] = vg_binop(in->op, st[sp - 2], st[sp - 1], &err);
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

/* ---- the monitor's fast path ------------------------------------------ */

/* vg_vm_exec checks every push, pop and index because the programs it is
 * given may be malformed. The monitor runs the same few programs millions
 * of times a second, so it checks each one once, at set-up: a forward pass
 * (jumps only go forward) that records the stack depth at every reachable
 * instruction. A program whose depth at a join depends on the path, or
 * that would fail any check, is left to vg_vm_exec; one that passes cannot
 * fail at run time, so vg_vm_fast gives exactly vg_vm_exec's answer and
 * side effects without the checks. */
bool vg_vm_check(const struct vg_insn *code, uint32_t len, uint32_t nvars,
		 uint32_t nglobals)
{
	int8_t depth[VG_VM_CHECK_MAX + 1];

	if (!len || len > VG_VM_CHECK_MAX)
		return false;
	memset(depth, -1, sizeof(depth));
	depth[0] = 0;
	for (uint32_t pc = 0; pc < len; pc++) {
		const struct vg_insn *in = &code[pc];
		int d = depth[pc], pop = 0, push = 0;
		bool falls = true;
		uint64_t target = UINT64_MAX;

		if (d < 0)
			continue;	/* never reached: never run */
		switch (in->op) {
		case VG_OP_END:
			falls = false;
			break;
		case VG_OP_PUSH: case VG_OP_TID: case VG_OP_TIME:
			push = 1;
			break;
		case VG_OP_FIELD:
			if (in->idx >= VG_NSLOTS)
				return false;
			push = 1;
			break;
		case VG_OP_PARAM:
			if (in->idx >= VG_MAX_PARAMS)
				return false;
			push = 1;
			break;
		case VG_OP_LDVAR: case VG_OP_STVAR:
			if (in->idx >= nvars)
				return false;
			push = in->op == VG_OP_LDVAR;
			pop = !push;
			break;
		case VG_OP_LDGLOB: case VG_OP_STGLOB:
			if (in->idx >= nglobals)
				return false;
			push = in->op == VG_OP_LDGLOB;
			pop = !push;
			break;
		case VG_OP_DUP:
			pop = 1, push = 2;
			break;
		case VG_OP_POP:
			pop = 1;
			break;
		case VG_OP_NEG: case VG_OP_NOT: case VG_OP_BNOT:
			pop = 1, push = 1;
			break;
		case VG_OP_MEM:
			return false;	/* it may be unknown: run checked */
		case VG_OP_JMP:
			falls = false;
			target = (uint64_t)pc + 1 + (uint32_t)in->imm;
			break;
		case VG_OP_JZ: case VG_OP_JNZ:
			pop = 1;
			target = (uint64_t)pc + 1 + (uint32_t)in->imm;
			break;
		default:
			if (in->op < VG_OP_ADD || in->op > VG_OP_GEU)
				return false;
			pop = 2, push = 1;
			break;
		}
		if (d < pop || d - pop + push > VG_STACK_MAX)
			return false;
		d = d - pop + push;
		if (target < len) {
			if (depth[target] >= 0 && depth[target] != d)
				return false;
			depth[target] = (int8_t)d;
		}
		if (falls && pc + 1 < len) {
			if (depth[pc + 1] >= 0 && depth[pc + 1] != d)
				return false;
			depth[pc + 1] = (int8_t)d;
		}
	}
	return true;
}

/* Direct-threaded (computed goto): one indirect jump per instruction,
 * each with its own branch-predictor entry, instead of a shared switch. */
int64_t vg_vm_fast(const struct vg_vm_ctx *c)
{
	static const void *const op[VG_OP__COUNT] = {
		[VG_OP_END] = &&l_end, [VG_OP_PUSH] = &&l_push,
		[VG_OP_FIELD] = &&l_field, [VG_OP_PARAM] = &&l_param,
		[VG_OP_LDVAR] = &&l_ldvar, [VG_OP_STVAR] = &&l_stvar,
		[VG_OP_LDGLOB] = &&l_ldglob, [VG_OP_STGLOB] = &&l_stglob,
		[VG_OP_TID] = &&l_tid, [VG_OP_TIME] = &&l_time,
		[VG_OP_DUP] = &&l_dup, [VG_OP_POP] = &&l_pop,
		[VG_OP_ADD] = &&l_add, [VG_OP_SUB] = &&l_sub,
		[VG_OP_MUL] = &&l_mul, [VG_OP_DIVS] = &&l_divs,
		[VG_OP_DIVU] = &&l_divu, [VG_OP_MODS] = &&l_mods,
		[VG_OP_MODU] = &&l_modu, [VG_OP_AND] = &&l_and,
		[VG_OP_OR] = &&l_or, [VG_OP_XOR] = &&l_xor,
		[VG_OP_SHL] = &&l_shl, [VG_OP_SHRS] = &&l_shrs,
		[VG_OP_SHRU] = &&l_shru, [VG_OP_EQ] = &&l_eq, [VG_OP_NE] = &&l_ne,
		[VG_OP_LTS] = &&l_lts, [VG_OP_LES] = &&l_les,
		[VG_OP_GTS] = &&l_gts, [VG_OP_GES] = &&l_ges,
		[VG_OP_LTU] = &&l_ltu, [VG_OP_LEU] = &&l_leu,
		[VG_OP_GTU] = &&l_gtu, [VG_OP_GEU] = &&l_geu,
		[VG_OP_NEG] = &&l_neg, [VG_OP_NOT] = &&l_not,
		[VG_OP_BNOT] = &&l_bnot, [VG_OP_JMP] = &&l_jmp,
		[VG_OP_JZ] = &&l_jz, [VG_OP_JNZ] = &&l_jnz,
	};
	const struct vg_insn *code = c->code, *in;
	uint32_t len = c->len, pc = 0;
	int64_t st[VG_STACK_MAX + 1], *sp = st;	/* sp: next free */
	uint64_t a, b;

#define NEXT                                                               \
	do {                                                               \
		if (pc >= len)                                             \
			goto l_end;                                        \
		in = &code[pc++];                                          \
		goto *op[in->op];                                          \
	} while (0)
#define BIN(lab, expr)                                                     \
	lab:                                                               \
	a = (uint64_t)sp[-2];                                              \
	b = (uint64_t)sp[-1];                                              \
	sp[-2] = (int64_t)(expr);                                          \
	sp--;                                                              \
	NEXT;
#define JUMP                                                               \
	do {                                                               \
		uint64_t npc = (uint64_t)pc + (uint32_t)in->imm;           \
		if (npc >= len)                                            \
			goto l_end;                                        \
		pc = (uint32_t)npc;                                        \
	} while (0)

	NEXT;
l_push:	*sp++ = in->imm; NEXT;
l_field: *sp++ = (int64_t)c->slot[in->idx]; NEXT;
l_param: *sp++ = (int64_t)c->params[in->idx]; NEXT;
l_ldvar: *sp++ = c->vars[in->idx]; NEXT;
l_stvar: c->vars[in->idx] = *--sp; NEXT;
l_ldglob: *sp++ = c->globals[in->idx]; NEXT;
l_stglob: c->globals[in->idx] = *--sp; NEXT;
l_tid:	*sp++ = (int64_t)c->tid; NEXT;
l_time:	*sp++ = (int64_t)c->time_ns; NEXT;
l_dup:	sp[0] = sp[-1]; sp++; NEXT;
l_pop:	sp--; NEXT;
	BIN(l_add, a + b)
	BIN(l_sub, a - b)
	BIN(l_mul, a * b)
	BIN(l_divs, vg_sdiv((int64_t)a, (int64_t)b))
	BIN(l_divu, b ? a / b : 0)
	BIN(l_mods, vg_smod((int64_t)a, (int64_t)b))
	BIN(l_modu, b ? a % b : a)
	BIN(l_and, a & b)
	BIN(l_or, a | b)
	BIN(l_xor, a ^ b)
	BIN(l_shl, a << (b & 63))
	BIN(l_shrs, (int64_t)a >> (b & 63))
	BIN(l_shru, a >> (b & 63))
	BIN(l_eq, a == b)
	BIN(l_ne, a != b)
	BIN(l_lts, (int64_t)a < (int64_t)b)
	BIN(l_les, (int64_t)a <= (int64_t)b)
	BIN(l_gts, (int64_t)a > (int64_t)b)
	BIN(l_ges, (int64_t)a >= (int64_t)b)
	BIN(l_ltu, a < b)
	BIN(l_leu, a <= b)
	BIN(l_gtu, a > b)
	BIN(l_geu, a >= b)
l_neg:	sp[-1] = (int64_t)(0 - (uint64_t)sp[-1]); NEXT;
l_not:	sp[-1] = sp[-1] == 0; NEXT;
l_bnot:	sp[-1] = ~sp[-1]; NEXT;
l_jmp:	JUMP; NEXT;
l_jz:	if (*--sp == 0) JUMP; NEXT;
l_jnz:	if (*--sp != 0) JUMP; NEXT;
l_end:
	return sp > st ? sp[-1] : 1;
#undef NEXT
#undef BIN
#undef JUMP
}
