/* Running bytecode that needs no event: constant initializers (compile.c)
 * and guards that always or never hold (lint.c). The semantics are those
 * of include/vigil_code.h, which the monitor and the BPF interpreter
 * implement too. */
#include "spec_internal.h"
#include "vigil_ops.h"

static int64_t binary(enum vg_opcode op, int64_t a, int64_t b)
{
	int err = 0;

	return vg_binop(op, a, b, &err);	/* non-binary ops give 0 */
}

int vg_code_eval_const(const struct vg_insn *code, uint32_t len, int64_t *out)
{
	int64_t st[VG_STACK_MAX];
	int sp = 0;

	for (uint32_t pc = 0; pc < len; pc++) {
		const struct vg_insn *i = &code[pc];

		switch (i->op) {
		case VG_OP_END:
			*out = sp ? st[sp - 1] : 0;
			return 0;
		case VG_OP_PUSH:
			if (sp == VG_STACK_MAX)
				return -1;
			st[sp++] = i->imm;
			break;
		case VG_OP_DUP:
			if (sp == 0 || sp == VG_STACK_MAX)
				return -1;
			st[sp] = st[sp - 1];
			sp++;
			break;
		case VG_OP_POP:
			if (sp == 0)
				return -1;
			sp--;
			break;
		case VG_OP_NEG:
		case VG_OP_NOT:
		case VG_OP_BNOT:
			if (sp == 0)
				return -1;
			st[sp - 1] = i->op == VG_OP_NEG ? (int64_t)(0 - (uint64_t)st[sp - 1])
				   : i->op == VG_OP_NOT ? st[sp - 1] == 0
				   : ~st[sp - 1];
			break;
		case VG_OP_JMP:
		case VG_OP_JZ:
		case VG_OP_JNZ: {
			bool jump = true;

			if (i->imm < 0 || (uint64_t)i->imm >= len - pc)
				return -1;
			if (i->op != VG_OP_JMP) {
				if (sp == 0)
					return -1;
				sp--;
				jump = (st[sp] == 0) == (i->op == VG_OP_JZ);
			}
			if (jump)
				pc += (uint32_t)i->imm;
			break;
		}
		default:
			if (i->op < VG_OP_ADD || i->op > VG_OP_GEU)
				return -1;	/* reads an event, a slice or the clock */
			if (sp < 2)
				return -1;
			sp--;
			st[sp - 1] = binary(i->op, st[sp - 1], st[sp]);
			break;
		}
	}
	*out = sp ? st[sp - 1] : 0;
	return 0;
}
