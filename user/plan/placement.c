/* A tiny x86-64 decoder for the few instruction forms that begin
 * functions. It only has to recognise; anything it does not know ends the
 * scan, and the probe stays where it was. */
#include "placement.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool is_rex(uint8_t b)
{
	return (b & 0xf0) == 0x40;
}

/* Instructions that write only flags (or nothing) and fall through:
 * skipping them moves no argument, memory or stack effect. Returns their
 * length, 0 if not one of them. */
static size_t harmless_len(const uint8_t *c, size_t n, unsigned *src)
{
	size_t i = 0;
	unsigned rex = 0;

	*src = 0;

	if (n >= 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e &&
	    c[3] == 0xfa)
		return 4;	/* endbr64 */
	if (n >= 1 && c[0] == 0x90)
		return 1;	/* nop */
	if (n >= 1 && is_rex(c[0]))
		rex = c[i++];
	if (n < i + 2)
		return 0;
	/* the registers read: ModRM's reg and r/m */
	*src = 1u << ((c[i + 1] >> 3 & 7) | (rex & 4) << 1) |
	       1u << ((c[i + 1] & 7) | (rex & 1) << 3);
	/* test r, r / cmp r, r: register operands only (ModRM mod == 3) */
	if ((c[i] == 0x84 || c[i] == 0x85 || c[i] == 0x38 || c[i] == 0x39 ||
	     c[i] == 0x3a || c[i] == 0x3b) &&
	    (c[i + 1] & 0xc0) == 0xc0)
		return i + 2;
	/* cmp r, imm8 (83 /7 ib) */
	*src = 1u << ((c[i + 1] & 7) | (rex & 1) << 3);
	if (c[i] == 0x83 && (c[i + 1] & 0xc0) == 0xc0 &&
	    ((c[i + 1] >> 3) & 7) == 7 && n >= i + 3)
		return i + 3;
	*src = 0;
	return 0;
}

/* x86 register numbers (ModRM order, REX extends to 8..15) */
enum { R_AX, R_CX, R_DX, R_BX, R_SP, R_BP, R_SI, R_DI };

/* Registers a called function may clobber (System V AMD64): rax, rcx,
 * rdx, rsi, rdi, r8-r11. A skipped write may only go to one of these; rsp,
 * rbp, rbx and r12-r15 are never written. */
#define CALLER_SAVED ((1u << R_AX) | (1u << R_CX) | (1u << R_DX) | \
		      (1u << R_SI) | (1u << R_DI) | (0xfu << 8))

/* A register write that falls through and stores nothing: a mov between
 * registers, of an immediate or from memory (a load), and add/or/and/sub/
 * xor of an immediate or of two registers. Sets the register written and
 * the registers read (address registers included); returns the length, 0
 * for anything else. No 0x66 (16-bit) forms: a 32- or 64-bit write
 * replaces the whole register. */
static size_t regwrite_len(const uint8_t *c, size_t n, unsigned *dst,
			   unsigned *src, bool *load)
{
	size_t i = 0, l;
	unsigned rex = 0, mod, reg, rm;

	*load = false;
	if (n >= 1 && is_rex(c[0]))
		rex = c[i++];
	if (n < i + 1)
		return 0;
	/* b8+r: mov imm32 (imm64 with REX.W) */
	if (c[i] >= 0xb8 && c[i] <= 0xbf) {
		l = i + 1 + ((rex & 8) ? 8 : 4);
		if (n < l)
			return 0;
		*dst = (c[i] - 0xb8) | (rex & 1) << 3;
		*src = 0;
		return l;
	}
	if (n < i + 2)
		return 0;
	mod = c[i + 1] >> 6;
	reg = (c[i + 1] >> 3 & 7) | (rex & 4) << 1;
	rm = (c[i + 1] & 7) | (rex & 1) << 3;
	switch (c[i]) {
	case 0x89:		/* mov r/m <- reg */
	case 0x01: case 0x09: case 0x21: case 0x29: case 0x31:
		/* add/or/and/sub/xor r/m, reg */
		if (mod != 3)
			return 0;
		*dst = rm;
		*src = 1u << reg | (c[i] == 0x89 ? 0 : 1u << rm);
		if ((c[i] == 0x31 || c[i] == 0x29) && reg == rm)
			*src = 0;	/* xor %ecx,%ecx: a zero */
		return i + 2;
	case 0x8b:		/* mov reg <- r/m, a load when r/m is memory */
		*dst = reg;
		if (mod == 3) {
			*src = 1u << rm;
			return i + 2;
		}
		*load = true;
		*src = 0;
		l = i + 2;
		if ((c[i + 1] & 7) == 4) {	/* SIB */
			unsigned base, index;

			if (n < l + 1)
				return 0;
			base = (c[l] & 7) | (rex & 1) << 3;
			index = (c[l] >> 3 & 7) | (rex & 2) << 2;
			if (index != R_SP)
				*src |= 1u << index;
			if ((c[l] & 7) == 5 && mod == 0)
				l += 4;		/* disp32, no base */
			else
				*src |= 1u << base;
			l++;
		} else if ((c[i + 1] & 7) == 5 && mod == 0) {
			l += 4;			/* RIP-relative */
		} else {
			*src |= 1u << rm;
		}
		l += mod == 1 ? 1 : mod == 2 ? 4 : 0;
		return n >= l ? l : 0;
	case 0x83:		/* op r/m, imm8 */
	case 0x81:		/* op r/m, imm32 */
		reg &= 7;
		/* add, or, and, sub, xor: /0 /1 /4 /5 /6 (not adc/sbb/cmp) */
		if (mod != 3 || !(reg == 0 || reg == 1 || reg == 4 ||
				  reg == 5 || reg == 6))
			return 0;
		l = i + 2 + (c[i] == 0x83 ? 1 : 4);
		if (n < l)
			return 0;
		*dst = rm;
		*src = 1u << rm;
		return l;
	case 0xc7:		/* mov r/m, imm32 */
		if (mod != 3 || (reg & 7) != 0 || n < i + 6)
			return 0;
		*dst = rm;
		*src = 0;
		return i + 6;
	}
	return 0;
}

/* Instructions the kernel's uprobes emulate instead of single-stepping. */
static bool emulated(const uint8_t *c, size_t n, char *name, size_t len)
{
	if (n >= 1 && c[0] >= 0x50 && c[0] <= 0x57) {
		static const char *r[] = { "rax", "rcx", "rdx", "rbx",
					   "rsp", "rbp", "rsi", "rdi" };
		snprintf(name, len, "push %%%s", r[c[0] - 0x50]);
		return true;
	}
	if (n >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57) {
		snprintf(name, len, "push %%r%d", 8 + c[1] - 0x50);
		return true;
	}
	if (n >= 1 && c[0] >= 0x70 && c[0] <= 0x7f) {
		snprintf(name, len, "jcc rel8");
		return true;
	}
	if (n >= 2 && c[0] == 0x0f && c[1] >= 0x80 && c[1] <= 0x8f) {
		snprintf(name, len, "jcc rel32");
		return true;
	}
	if (n >= 1 && (c[0] == 0xe8 || c[0] == 0xe9 || c[0] == 0xeb)) {
		snprintf(name, len, c[0] == 0xe8 ? "call" : "jmp");
		return true;
	}
	if (n >= 1 && c[0] == 0x90) {
		snprintf(name, len, "nop");
		return true;
	}
	return false;
}

/* A direct jmp probed (a tail call: endbr64; jmp f, or inflateInit_'s
 * movs then jmp inflateInit2_): the kernel emulates it before a stop
 * takes effect, so a stopped thread is at its target, maybe in another
 * function. pl->jmp_to is the target from the jmp's own address, for
 * putting the thread back on the jmp (probe/jmp_stop.h). */
static void place_jmp(const uint8_t *c, size_t n, struct vg_placement *pl)
{
	if (n >= 2 && c[0] == 0xeb)
		pl->jmp_to = 2 + (int8_t)c[1];
	else if (n >= 5 && c[0] == 0xe9)
		pl->jmp_to = 5 + (int32_t)(c[1] | c[2] << 8 | c[3] << 16 |
					   (uint32_t)c[4] << 24);
	else
		return;
	pl->jmp = 1;
}

unsigned vg_place_arg_regs(int n)
{
	static const int order[6] = { R_DI, R_SI, R_DX, R_CX, 8, 9 };
	unsigned m = 0;

	for (int i = 0; i < 6 && i < 2 * n; i++)
		m |= 1u << order[i];
	return m;
}

void vg_place_bytes(const uint8_t *code, size_t len, uint64_t offset,
		    unsigned keep, struct vg_placement *pl)
{
	size_t pos = 0;
	int skipped = 0;
	/* over the skipped writes: registers written, and registers read
	 * before any skipped write to them (what the function got) */
	unsigned written = 0, live_in = 0;

	memset(pl, 0, sizeof(*pl));
	pl->offset = offset;
	if (emulated(code, len, pl->insn, sizeof(pl->insn))) {
		pl->emulated = 1;
		place_jmp(code, len, pl);
		return;
	}
	snprintf(pl->insn, sizeof(pl->insn), "single-stepped");
	/* at most a few: a function is not a run of tests */
	while (skipped < 6) {
		unsigned dst, src;
		size_t l = harmless_len(code + pos, len - pos, &src);
		bool load;

		if (l) {
			/* flags for the probed jcc, from what it read: a
			 * re-run must read the same */
			live_in |= src & ~written;
		} else {
			l = regwrite_len(code + pos, len - pos, &dst, &src,
					 &load);
			/* only into a register the caller gave up, that the
			 * probe does not read */
			if (!l || !(CALLER_SAVED >> dst & 1) ||
			    (keep >> dst & 1))
				return;
			live_in |= src & ~written;
			written |= 1u << dst;
		}
		pos += l;
		skipped++;
		if (emulated(code + pos, len - pos, pl->insn,
			     sizeof(pl->insn))) {
			/* A stop sent back to the call (bpf/rewind.bpf.h)
			 * runs the skipped writes again: they give what they
			 * gave only when none overwrote a register one of
			 * them read as the function got it (inflateInit_'s
			 * mov %edx,%ecx; mov %rsi,%rdx). Else the probe may
			 * still move, but its stops are not rewound. */
			pl->norewind = (live_in & written) != 0;
			pl->offset = offset + pos;
			pl->skipped = skipped;
			pl->emulated = 1;
			place_jmp(code + pos, len - pos, pl);
			return;
		}
	}
}

/* Could a branch inside the function land in (start, start+moved]? Then
 * a probe there would fire again for one call (a loop back to the second
 * instruction). Every byte from there on is tried as the start of a
 * direct jmp, jcc or call, so a false match only keeps the probe at the
 * entry. */
static bool branch_into(const uint8_t *f, size_t n, size_t moved)
{
	/* the skipped instructions were decoded: none is a branch */
	for (size_t i = moved; i < n; i++) {
		int64_t t;

		if (((f[i] >= 0x70 && f[i] <= 0x7f) || f[i] == 0xeb) &&
		    i + 2 <= n)
			t = (int64_t)(i + 2) + (int8_t)f[i + 1];
		else if ((f[i] == 0xe9 || f[i] == 0xe8) && i + 5 <= n)
			t = (int64_t)(i + 5) + (int32_t)(f[i + 1] |
				f[i + 2] << 8 | f[i + 3] << 16 |
				(uint32_t)f[i + 4] << 24);
		else if (f[i] == 0x0f && i + 6 <= n && f[i + 1] >= 0x80 &&
			 f[i + 1] <= 0x8f)
			t = (int64_t)(i + 6) + (int32_t)(f[i + 2] |
				f[i + 3] << 8 | f[i + 4] << 16 |
				(uint32_t)f[i + 5] << 24);
		else
			continue;
		if (t > 0 && t <= (int64_t)moved)
			return true;
	}
	return false;
}

void vg_place_entry(const char *path, uint64_t offset, uint64_t size,
		    unsigned keep, struct vg_placement *pl)
{
	uint8_t code[32], *f = NULL;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		n = pread(fd, code, sizeof(code), offset);
	if (n <= 0) {
		if (fd >= 0)
			close(fd);
		memset(pl, 0, sizeof(*pl));
		pl->offset = offset;
		snprintf(pl->insn, sizeof(pl->insn), "unread");
		return;
	}
	vg_place_bytes(code, n, offset, keep, pl);
	if (pl->offset != offset) {
		/* the whole function, when its size is known and sane */
		if (size > 1 << 20 || !(f = malloc(size ? size : 1)) ||
		    (size && pread(fd, f, size, offset) != (ssize_t)size) ||
		    branch_into(f, size, pl->offset - offset)) {
			memset(pl, 0, sizeof(*pl));
			pl->offset = offset;
			snprintf(pl->insn, sizeof(pl->insn), "single-stepped");
		}
		free(f);
	}
	close(fd);
}
