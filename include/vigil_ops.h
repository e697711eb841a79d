/* The binary operators of the guard/update bytecode (vigil_code.h), written
 * once and compiled into all three of its interpreters: the user monitor
 * (user/monitor/vm.c), the constant evaluator of the compiler
 * (user/spec/eval.c) and the kernel tier (bpf/kstep.bpf.h). One definition
 * is what makes the tiers agree on every corner: x / 0, INT64_MIN / -1,
 * shift counts. Arithmetic goes through unsigned types so that wrapping is
 * defined behaviour in C. */
#ifndef VIGIL_OPS_H
#define VIGIL_OPS_H

#include "vigil_code.h"

#ifdef __bpf__
#define VG_OPS_INLINE static __attribute__((always_inline)) inline
#else
#define VG_OPS_INLINE static inline
#endif

/* Signed division through magnitudes: INT64_MIN / -1 traps on x86 in C,
 * and BPF before v4 has no signed division at all. */
VG_OPS_INLINE __s64 vg_sdiv(__s64 a, __s64 b)
{
	__u64 ua, ub, q;
	int neg;

	if (b == 0)
		return 0;
	neg = (a < 0) != (b < 0);
	ua = a < 0 ? -(__u64)a : (__u64)a;
	ub = b < 0 ? -(__u64)b : (__u64)b;
	q = ua / ub;
	return (__s64)(neg ? -q : q);
}

/* The remainder takes the sign of the dividend, as in C; x % 0 == x. */
VG_OPS_INLINE __s64 vg_smod(__s64 a, __s64 b)
{
	if (b == 0)
		return a;
	return (__s64)((__u64)a - (__u64)vg_sdiv(a, b) * (__u64)b);
}

/* a OP b for a binary opcode; *err = 1 for anything else. */
VG_OPS_INLINE __s64 vg_binop(__u8 op, __s64 a, __s64 b, int *err)
{
	__u64 ua = (__u64)a, ub = (__u64)b;

	switch (op) {
	case VG_OP_ADD: return (__s64)(ua + ub);
	case VG_OP_SUB: return (__s64)(ua - ub);
	case VG_OP_MUL: return (__s64)(ua * ub);
	case VG_OP_DIVS: return vg_sdiv(a, b);
	case VG_OP_DIVU: return ub ? (__s64)(ua / ub) : 0;
	case VG_OP_MODS: return vg_smod(a, b);
	case VG_OP_MODU: return ub ? (__s64)(ua % ub) : a;
	case VG_OP_AND: return a & b;
	case VG_OP_OR: return a | b;
	case VG_OP_XOR: return a ^ b;
	case VG_OP_SHL: return (__s64)(ua << (ub & 63));
	/* gcc and clang shift signed values arithmetically */
	case VG_OP_SHRS: return a >> (ub & 63);
	case VG_OP_SHRU: return (__s64)(ua >> (ub & 63));
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

#endif
