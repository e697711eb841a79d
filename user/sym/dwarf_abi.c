/* Where a function's parameters and return value are at its entry and
 * return, by the x86-64 SysV psABI (3.2.3), from their DWARF types; and the
 * names and pt_regs offsets of the registers that places name. Split from
 * dwarf_func.c, which finds the function and its prototype, because the
 * classification rules are a job of their own. */
#include "dwarf_internal.h"

#include <stddef.h>
#include <string.h>
#include <sys/user.h>

/* --- registers ---------------------------------------------------------- */

const char *vg_reg_name(enum vg_reg r)
{
	static const char *const names[] = {
		[VG_REG_NONE] = "none", [VG_REG_RDI] = "rdi",
		[VG_REG_RSI] = "rsi",	[VG_REG_RDX] = "rdx",
		[VG_REG_RCX] = "rcx",	[VG_REG_R8] = "r8",
		[VG_REG_R9] = "r9",	[VG_REG_RAX] = "rax",
		[VG_REG_XMM0] = "xmm0", [VG_REG_XMM1] = "xmm1",
		[VG_REG_XMM2] = "xmm2", [VG_REG_XMM3] = "xmm3",
		[VG_REG_XMM4] = "xmm4", [VG_REG_XMM5] = "xmm5",
		[VG_REG_XMM6] = "xmm6", [VG_REG_XMM7] = "xmm7",
	};

	if ((unsigned)r >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[r];
}

int vg_reg_ptregs_offset(enum vg_reg r)
{
	switch (r) {
	case VG_REG_RDI: return offsetof(struct user_regs_struct, rdi);
	case VG_REG_RSI: return offsetof(struct user_regs_struct, rsi);
	case VG_REG_RDX: return offsetof(struct user_regs_struct, rdx);
	case VG_REG_RCX: return offsetof(struct user_regs_struct, rcx);
	case VG_REG_R8: return offsetof(struct user_regs_struct, r8);
	case VG_REG_R9: return offsetof(struct user_regs_struct, r9);
	case VG_REG_RAX: return offsetof(struct user_regs_struct, rax);
	default: return -1;
	}
}

/* --- x86-64 SysV classification (psABI 3.2.3) ----------------------------- */

enum cls { C_NONE, C_INT, C_SSE, C_SSEUP, C_X87, C_X87UP, C_CX87, C_MEM };

static enum cls merge(enum cls a, enum cls b)
{
	if (a == b)
		return a;
	if (a == C_NONE)
		return b;
	if (b == C_NONE)
		return a;
	if (a == C_MEM || b == C_MEM)
		return C_MEM;
	if (a == C_INT || b == C_INT)
		return C_INT;
	if (a == C_X87 || a == C_X87UP || a == C_CX87 || b == C_X87 ||
	    b == C_X87UP || b == C_CX87)
		return C_MEM;
	return C_SSE;
}

static void put(enum cls c[2], uint64_t off, enum cls k)
{
	if (off / 8 < 2)
		c[off / 8] = merge(c[off / 8], k);
	else
		c[0] = c[1] = C_MEM;
}

/* Is this 16-byte float the x87 long double, or a __float128 (SSE)? Both
 * are DW_ATE_float of size 16; only the name tells. */
static bool is_x87(struct vg_dwarf *dw, vg_type_id id)
{
	Dwarf_Die die;
	const char *n;
	bool x;

	if (!dw_die(dw, id, &die))
		return true;
	n = dw_name(dw, die);
	x = !n || strstr(n, "long double") != NULL;
	dwarf_dealloc_die(die);
	return x;
}

/* complex long double: a base type (not a 32-byte vector, an array) */
static bool is_cx87(struct vg_dwarf *dw, vg_type_id id)
{
	Dwarf_Die die;
	const char *n;
	bool x;

	if (!dw_die(dw, id, &die))
		return false;
	n = dw_name(dw, die);
	x = dw_tag(dw, die) == DW_TAG_base_type && n &&
	    strstr(n, "long double") != NULL;
	dwarf_dealloc_die(die);
	return x;
}

static int classify(struct vg_dwarf *dw, vg_type_id id, uint64_t off,
		    enum cls c[2], int depth, struct vg_err *e)
{
	struct vg_type t;
	Dwarf_Die die, m;

	if (depth > MAX_DEPTH)
		return vg_errf(e, "type nested too deep in %s", dw->path);
	if (dw_describe(dw, id, &t, 0, e))
		return -1;
	if (t.align > 1 && off % t.align) {
		c[0] = c[1] = C_MEM;	/* unaligned (packed): memory */
		return 0;
	}
	switch (t.kind) {
	case VG_TK_SINT:
	case VG_TK_UINT:
	case VG_TK_BOOL:
	case VG_TK_ENUM:
	case VG_TK_PTR:
		put(c, off, C_INT);
		if (t.size == 16)	/* __int128 */
			put(c, off + 8, C_INT);
		return 0;
	case VG_TK_FLOAT:
		if (t.size <= 8) {
			put(c, off, C_SSE);
		} else if (is_x87(dw, t.id)) {
			put(c, off, C_X87);
			put(c, off + 8, C_X87UP);
		} else {
			put(c, off, C_SSE);
			put(c, off + 8, C_SSEUP);
		}
		return 0;
	case VG_TK_OTHER:
		if (t.size == 8) {		/* complex float, 8-byte vector */
			put(c, off, C_SSE);
		} else if (t.size == 16 && t.align == 16) {	/* __m128 */
			put(c, off, C_SSE);
			put(c, off + 8, C_SSEUP);
		} else if (t.size == 16) {	/* complex double */
			put(c, off, C_SSE);
			put(c, off + 8, C_SSE);
		} else {			/* complex long double, ... */
			put(c, off, C_CX87);
		}
		return 0;
	case VG_TK_ARRAY: {
		struct vg_type el;

		if (dw_describe(dw, t.target, &el, 0, e))
			return -1;
		for (uint64_t i = 0; el.size && i < t.size / el.size; i++)
			if (classify(dw, t.target, off + i * el.size, c,
				     depth + 1, e))
				return -1;
		return 0;
	}
	case VG_TK_STRUCT:
	case VG_TK_UNION:
		if (!dw_die(dw, t.id, &die))
			return vg_errf(e, "bad DWARF type in %s", dw->path);
		for (bool ok = dw_child(dw, die, &m); ok; ok = dw_next(dw, &m)) {
			uint64_t mt = 0, bitpos, bitsize;
			struct vg_type mty;

			if (dw_tag(dw, m) != DW_TAG_member)
				continue;
			dw_ref(dw, m, DW_AT_type, &mt);
			if (dw_describe(dw, mt, &mty, 0, e)) {
				dwarf_dealloc_die(m);
				dwarf_dealloc_die(die);
				return -1;
			}
			dw_member_bits(dw, m, mty.size, &bitpos, &bitsize);
			if (bitsize) {
				put(c, off + bitpos / 8, C_INT);
				continue;
			}
			if (classify(dw, mt, off + bitpos / 8, c, depth + 1,
				     e)) {
				dwarf_dealloc_die(m);
				dwarf_dealloc_die(die);
				return -1;
			}
		}
		dwarf_dealloc_die(die);
		return 0;
	default:
		return vg_errf(e, "cannot pass a value of type %s (%s)",
			       t.name, dw->path);
	}
}

/* The classes of the eightbytes of a value of type id, before the
 * argument/return fix-ups. n8: how many eightbytes it has. */
static int raw_class(struct vg_dwarf *dw, vg_type_id id, enum cls c[2],
		     struct vg_type *t, int *n8, struct vg_err *e)
{
	c[0] = c[1] = C_NONE;
	if (dw_describe(dw, id, t, 0, e))
		return -1;
	*n8 = (int)((t->size + 7) / 8);
	if (t->size == 32 && t->kind == VG_TK_OTHER && is_cx87(dw, t->id)) {
		c[0] = C_CX87;	/* complex long double */
		c[1] = C_NONE;
		return 0;
	}
	if (t->size > 16) {
		c[0] = c[1] = C_MEM;
		return 0;
	}
	return classify(dw, id, 0, c, 0, e);
}

/* The post-merger cleanup of the psABI, for an argument. */
static bool in_memory(const enum cls c[2], int n8)
{
	for (int i = 0; i < n8 && i < 2; i++)
		if (c[i] == C_MEM || c[i] == C_X87 || c[i] == C_X87UP ||
		    c[i] == C_CX87)
			return true;
	return n8 > 2;
}

static const enum vg_reg int_regs[] = { VG_REG_RDI, VG_REG_RSI, VG_REG_RDX,
					VG_REG_RCX, VG_REG_R8, VG_REG_R9 };

int dw_locate_params(struct vg_dwarf *dw, struct vg_proto *p,
		     struct vg_err *e)
{
	int ni = 0, ns = 0;
	int32_t stack = 0;

	/* the return value first: if it goes to memory, the caller passes
	 * its address as a hidden first argument in %rdi */
	if (p->has_ret) {
		enum cls c[2];
		struct vg_type t;
		int n8, ri = 0, rs = 0;

		if (raw_class(dw, p->ret.id ? p->ret.id : 0, c, &t, &n8, e))
			return -1;
		memset(&p->ret_loc, 0, sizeof(p->ret_loc));
		if (c[0] == C_X87 || c[0] == C_CX87) {
			p->ret_loc.kind = VG_LOC_NONE;	/* %st0: unreadable */
		} else if (in_memory(c, n8)) {
			p->sret = true;
			ni = 1;
			p->ret_loc.kind = VG_LOC_REG;
			p->ret_loc.nregs = 1;
			p->ret_loc.reg[0] = VG_REG_RAX;
		} else {
			static const enum vg_reg iret[] = { VG_REG_RAX,
							    VG_REG_RDX };

			p->ret_loc.kind = n8 ? VG_LOC_REG : VG_LOC_NONE;
			for (int k = 0; k < n8; k++) {
				if (c[k] == C_INT)
					p->ret_loc.reg[p->ret_loc.nregs++] =
						iret[ri++];
				else if (c[k] == C_SSE)
					p->ret_loc.reg[p->ret_loc.nregs++] =
						VG_REG_XMM0 + rs++;
			}
		}
	}
	for (size_t i = 0; i < p->nparams; i++) {
		struct vg_param *pa = &p->params[i];
		struct vg_loc *l = &pa->loc;
		enum cls c[2];
		struct vg_type t;
		int n8, need_i = 0, need_s = 0;

		memset(l, 0, sizeof(*l));
		if (raw_class(dw, pa->type.id, c, &t, &n8, e))
			return -1;
		if (!t.size) {
			l->kind = VG_LOC_NONE;
			continue;
		}
		if (!in_memory(c, n8)) {
			for (int k = 0; k < n8; k++) {
				need_i += c[k] == C_INT;
				need_s += c[k] == C_SSE;
			}
			/* an argument goes to registers whole or not at all:
			 * when they run out, it goes to the stack and later,
			 * smaller arguments may still take registers */
			if (ni + need_i <= 6 && ns + need_s <= 8) {
				l->kind = VG_LOC_REG;
				for (int k = 0; k < n8; k++) {
					if (c[k] == C_INT)
						l->reg[l->nregs++] =
							int_regs[ni++];
					else if (c[k] == C_SSE)
						l->reg[l->nregs++] =
							VG_REG_XMM0 + ns++;
					/* SSEUP: the upper half of the same
					 * xmm register */
				}
				continue;
			}
		}
		/* memory: eightbyte slots, 16-aligned for 16-aligned types */
		if (t.align > 8)
			stack = (stack + 15) & ~15;
		l->kind = VG_LOC_STACK;
		l->stack_off = 8 + stack;
		stack += (int32_t)((t.size + 7) & ~(uint64_t)7);
	}
	return 0;
}
