/* Where to put an entry probe. A uprobe on an instruction the kernel can
 * emulate (push, jmp, jcc, call, nop) costs ~0.8 us here; on one it must
 * single-step (test, lea, cmp, endbr64), ~11 us (DESIGN.md). When a
 * function starts with instructions that change neither the argument
 * registers, memory nor the stack, and never branch, the probe can move to
 * the first instruction after them with identical semantics: every call
 * passes there, with the same arguments. Register writes are skipped too
 * (a mov, a load, an add or and of an immediate, as pthread_mutex_lock
 * starts with) when they go to a register the caller gave up (rax, rcx,
 * rdx, rsi, rdi, r8-r11) that the probe does not read (`keep`), and
 * running them again gives the same values (a rewound stop does; when
 * they would not, the probe still moves and says `norewind`). The probe
 * may land on a tail call's jmp (`jmp`): a stop there takes effect at the
 * jmp's target, and the thread is put back on the jmp for gdb. A skipped
 * load that faults kills the program at the same instruction as without
 * vigil, but that last call is not seen. */
#ifndef VIGIL_PLACEMENT_H
#define VIGIL_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

struct vg_placement {
	uint64_t offset;	/* file offset to probe */
	int skipped;		/* instructions skipped */
	int emulated;		/* 1: the kernel emulates the probed insn */
	char insn[32];		/* what is probed, e.g. "push %rbp" */
	int norewind;		/* 1: the skipped writes, run again from the
				 * entry, would not give what they gave: a
				 * stop here must not be sent back to the
				 * call (bpf/rewind.bpf.h) */
	int jmp;		/* 1: the probed insn is a direct jmp (a tail
				 * call): a stop lands at its target */
	int64_t jmp_to;		/* then: target - the jmp's address */
};

/* Registers by x86 number (rax 0, rcx 1, rdx 2, rsi 6, rdi 7, r8 8..):
 * the six argument registers, rdi rsi rdx rcx r8 r9 */
#define VG_PLACE_ARG_REGS ((1u << 7) | (1u << 6) | (1u << 2) | (1u << 1) | \
			   (1u << 8) | (1u << 9))

/* The argument registers that the first n argument positions can occupy
 * (a 16-byte struct passed by value takes two) */
unsigned vg_place_arg_regs(int n);

/* Decide the placement of a probe on the function at file offset `offset`
 * of `path`; keep: the registers the probe reads there (bit per x86
 * register number), never written by a skipped instruction; size: the
 * function's (0: unknown), searched for a branch into the instructions
 * skipped, which keeps the entry. Never fails:
 * on any doubt the function's first instruction is kept. */
void vg_place_entry(const char *path, uint64_t offset, uint64_t size,
		    unsigned keep, struct vg_placement *pl);

/* The same over code bytes in memory, for tests. */
void vg_place_bytes(const uint8_t *code, size_t len, uint64_t offset,
		    unsigned keep, struct vg_placement *pl);

#endif
