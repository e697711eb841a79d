/* Relocating a function's first instructions for the in-process tier:
 * vigil writes a 5-byte `jmp rel32` over the start of a hot function (the
 * patch) to a stub that calls the agent, then runs the instructions the
 * patch covered, moved to a trampoline at `at`, which jumps back to
 * fn + patch_len. This module only makes bytes: the trampoline's code, the
 * patch, the original bytes, and says why a function cannot be patched. */
#ifndef VIGIL_FAST_RELOC_H
#define VIGIL_FAST_RELOC_H

#include <stddef.h>
#include <stdint.h>

#define VG_RELOC_MAX 96		/* bytes a relocated prologue may take */
#define VG_RELOC_PATCH 5	/* e9 + rel32 */

struct vg_reloc {
	uint8_t code[VG_RELOC_MAX];	/* relocated instructions + final
					 * jmp back, to be placed at `at` */
	uint32_t len;			/* bytes of code */
	uint32_t patch_len;		/* bytes of the original the patch
					 * covers (>= 5, whole instructions) */
	uint8_t patch[16];		/* jmp rel32 to `stub`, then int3
					 * padding up to patch_len */
	uint8_t orig[16];		/* the original [fn, fn+patch_len) */
	/* where each instruction the patch covers went: at_of[k], for an
	 * instruction at fn + k, is 1 + its offset in code (0: no
	 * instruction starts at k). A thread stopped at fn + k when the
	 * patch goes in is moved there instead of being stepped out. */
	uint8_t at_of[16];
	/* the function has an indirect jmp (a jump table, most likely)
	 * whose targets could not be checked against the patch */
	uint8_t indirect;
};

/* fn_bytes: the function's code as it is in the target ([fn, fn+fn_size));
 * fn_size: its ELF symbol size (0 if unknown: refused).
 * at: where `code` will live in the target; stub: where the patch jumps.
 * Returns 0, or -1 with why: one short sentence for `vigil lint`. */
int vg_reloc_build(const uint8_t *fn_bytes, uint32_t fn_size, uint64_t fn,
		   uint64_t at, uint64_t stub, struct vg_reloc *out,
		   char *why, size_t whylen);

/* vg_reloc_build sees only [fn, fn+fn_size); code outside it can jump
 * into the patch too: glibc's __mempcpy_avx512_unaligned_erms ends with
 * jmp memmove+3, inside memmove's patch. Sweep text ([text_addr,
 * text_addr+text_len), e.g. the library's executable segment, starting
 * at an instruction boundary) for direct branches into
 * (fn, fn+patch_len). Returns 0, or -1 with why. */
int vg_reloc_check_text(const uint8_t *text, uint64_t text_addr,
			uint64_t text_len, uint64_t fn, uint32_t patch_len,
			char *why, size_t whylen);

/* The same for many functions of one file: the sweep once
 * (vg_reloc_jumps: every direct branch, sorted by target; -1 when out of
 * memory), then each function's check against it */
struct vg_reloc_jump {
	uint64_t target, from;
};
int vg_reloc_jumps(const uint8_t *text, uint64_t text_addr,
		   uint64_t text_len, struct vg_reloc_jump **out, size_t *n);
int vg_reloc_check_jumps(const struct vg_reloc_jump *j, size_t n,
			 uint64_t fn, uint32_t patch_len, char *why,
			 size_t whylen);

#endif
