/* Where to put an entry probe. A uprobe on an instruction the kernel can
 * emulate (push, jmp, jcc, call, nop) costs ~0.8 us here; on one it must
 * single-step (test, lea, cmp, endbr64), ~11 us (DESIGN.md). When a
 * function starts with instructions that change neither the argument
 * registers, memory nor the stack, and never branch, the probe can move to
 * the first instruction after them with identical semantics: every call
 * passes there, with the same arguments. */
#ifndef VIGIL_PLACEMENT_H
#define VIGIL_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

struct vg_placement {
	uint64_t offset;	/* file offset to probe */
	int skipped;		/* instructions skipped */
	int emulated;		/* 1: the kernel emulates the probed insn */
	char insn[32];		/* what is probed, e.g. "push %rbp" */
};

/* Decide the placement of a probe on the function at file offset `offset`
 * of `path`. Never fails: on any doubt the function's first instruction is
 * kept. */
void vg_place_entry(const char *path, uint64_t offset, struct vg_placement *pl);

/* The same over code bytes in memory, for tests. */
void vg_place_bytes(const uint8_t *code, size_t len, uint64_t offset,
		    struct vg_placement *pl);

#endif
