/* Guard and update bytecode, shared by the user monitor (user/monitor/vm.c)
 * and the in-kernel tier (bpf/vigil.bpf.c).
 *
 * It is a tiny stack machine over 64-bit values. Both interpreters must agree
 * exactly, so the semantics written here are the contract:
 *
 *  - Every value is 64 bits. Signedness lives in the opcode (LTS vs LTU...).
 *  - Arithmetic wraps (two's complement). Shift counts are taken modulo 64.
 *  - x / 0 == 0 and x % 0 == x, as in the BPF instruction set, so a guard can
 *    never fault. INT64_MIN / -1 == INT64_MIN.
 *  - Jumps are forward only (imm = instructions to skip after this one). The
 *    program counter therefore only grows, which is what lets the BPF
 *    verifier accept the interpreter as a bounded loop.
 *  - A guard program leaves its verdict on top of the stack at END
 *    (non-zero = holds). An empty guard holds.
 *  - An update program stores through STVAR/STGLOB and leaves nothing.
 *  - The stack holds at most VG_STACK_MAX values; the compiler guarantees it.
 *
 * Strings are interned by the user side before they reach a program, so EQ
 * and NE compare them; no other operator takes a string.
 *
 * Event values are addressed by slot: 0..VG_MAX_FIELDS-1 are the positional
 * parameters of the event (function arguments, CSV fields), VG_SLOT_RET is the
 * return value of an `after` event, and VG_SLOT_CAP0.. hold the values the
 * probe read from target memory for the event's `p->field` and `*p`
 * expressions (its captures, struct vg_capture in user/spec/spec.h).
 */
#ifndef VIGIL_CODE_H
#define VIGIL_CODE_H

#ifdef __bpf__
/* vmlinux.h provides __u8 ... __s64 */
#else
#include <linux/types.h>
#endif

#define VG_MAX_FIELDS 8
#define VG_SLOT_RET VG_MAX_FIELDS
#define VG_MAX_CAPS 4
#define VG_MAX_STRS 4		/* of the captures, C strings (str(p));
				 * a power of two */
#define VG_STR_MAX 64		/* bytes of a string read, with its NUL */
#define VG_MAX_INSIDE 16	/* distinct functions `outside` clauses name
				 * in a run (struct vg_inside) */
#define VG_SLOT_CAP0 (VG_SLOT_RET + 1)
/* a capture whose address starts at the program's text (::global), not
 * at a slot: struct vg_capture.src, struct vg_cap_plan.src */
#define VG_CAP_GLOBAL 0xfe
/* Two slots no program addresses, filled by live probes for the evidence
 * (include/vigil_event.h): the caller's return address at an entry probe,
 * and the id of the captured user stack. */
#define VG_SLOT_CALLER (VG_SLOT_CAP0 + VG_MAX_CAPS)
#define VG_SLOT_STACK (VG_SLOT_CALLER + 1)
#define VG_NSLOTS (VG_SLOT_STACK + 1)
#define VG_STACK_MAX 8
/* The fields of a write/read/access event: the value after the access,
 * the last value vigil saw there before it (user space fills it), the
 * address; and for a watchpoint armed per slice, the parameters of the
 * slice that armed it (user space fills them: the hit goes to that slice
 * alone). */
#define VG_WSLOT_VALUE 0
#define VG_WSLOT_OLD 1
#define VG_WSLOT_ADDR 2
#define VG_WSLOT_PARAM0 3	/* .. + VG_MAX_PARAMS - 1 */

enum vg_opcode {
	VG_OP_END = 0,	/* stop */
	VG_OP_PUSH,	/* push imm */
	VG_OP_FIELD,	/* push event slot idx */
	VG_OP_PARAM,	/* push the slice's parameter idx */
	VG_OP_LDVAR,	/* push slice variable idx */
	VG_OP_STVAR,	/* pop into slice variable idx */
	VG_OP_LDGLOB,	/* push property-global variable idx (user tier only) */
	VG_OP_STGLOB,	/* pop into property-global variable idx (user tier only) */
	VG_OP_TID,	/* push the thread id of the event */
	VG_OP_TIME,	/* push the event time, ns, CLOCK_MONOTONIC */
	VG_OP_DUP,
	VG_OP_POP,
	/* binary: pop b, pop a, push a OP b */
	VG_OP_ADD,
	VG_OP_SUB,
	VG_OP_MUL,
	VG_OP_DIVS,
	VG_OP_DIVU,
	VG_OP_MODS,
	VG_OP_MODU,
	VG_OP_AND,
	VG_OP_OR,
	VG_OP_XOR,
	VG_OP_SHL,
	VG_OP_SHRS,
	VG_OP_SHRU,
	VG_OP_EQ,
	VG_OP_NE,
	VG_OP_LTS,
	VG_OP_LES,
	VG_OP_GTS,
	VG_OP_GES,
	VG_OP_LTU,
	VG_OP_LEU,
	VG_OP_GTU,
	VG_OP_GEU,
	/* unary: pop a, push OP a */
	VG_OP_NEG,
	VG_OP_NOT,	/* logical: a == 0 */
	VG_OP_BNOT,	/* bitwise ~a */
	/* control, forward only */
	VG_OP_JMP,	/* pc += imm */
	VG_OP_JZ,	/* pop a; if a == 0: pc += imm */
	VG_OP_JNZ,	/* pop a; if a != 0: pc += imm */
	/* pop b, pop a, push the memory predicate imm (enum vg_mem_pred) of
	 * pointer a and length b (0 for the one-argument ones), answered by
	 * the object map of the run: vigil's (the user tier), or the
	 * in-process agent's (inproc/kstep.c, a kernel-tier property all of
	 * whose functions are patched: plan_memfast.c); the BPF interpreter
	 * does not have it, and the plan keeps such a property off it. When
	 * the map does not know a's object the answer is unknown: the VM
	 * pushes 0 and says so to its caller, which does not take a
	 * transition whose guard was unknown and marks the slice
	 * inconclusive (user/monitor/; the agent counts it). */
	VG_OP_MEM,
	VG_OP__COUNT
};

enum vg_mem_pred {
	VG_MEM_VALID,		/* valid(p, n): [p, p+n) in one live object,
				 * writable */
	VG_MEM_VALID_READ,	/* valid_read(p, n): the same, readable */
	VG_MEM_BLOCK_LENGTH,	/* block_length(p): bytes of p's object */
	VG_MEM_BLOCK_BASE,	/* block_base(p): its first address */
	VG_MEM_OFFSET,		/* offset(p): p - block_base(p) */
	VG_MEM_FREEABLE,	/* freeable(p): p is a live heap block's start */
	VG_MEM_FREED,		/* freed(p): p is in a block freed since */
	VG_MEM_STRLEN_AT,	/* strlen_at(p, max): the length of the string
				 * at p, read now, at most max */
	VG_MEM__COUNT
};

struct vg_insn {
	__u8 op;
	__u8 pad;
	__u16 idx;	/* slot or variable index */
	__u32 pad2;
	__s64 imm;	/* constant or jump distance */
};

#endif
