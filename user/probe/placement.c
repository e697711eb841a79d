/* A tiny x86-64 decoder for the few instruction forms that begin
 * functions. It only has to recognise; anything it does not know ends the
 * scan, and the probe stays where it was. */
#include "placement.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool is_rex(uint8_t b)
{
	return (b & 0xf0) == 0x40;
}

/* Instructions that write only flags (or nothing) and fall through:
 * skipping them moves no argument, memory or stack effect. Returns their
 * length, 0 if not one of them. */
static size_t harmless_len(const uint8_t *c, size_t n)
{
	size_t i = 0;

	if (n >= 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e &&
	    c[3] == 0xfa)
		return 4;	/* endbr64 */
	if (n >= 1 && c[0] == 0x90)
		return 1;	/* nop */
	if (n >= 1 && is_rex(c[0]))
		i = 1;
	if (n < i + 2)
		return 0;
	/* test r, r / cmp r, r: register operands only (ModRM mod == 3) */
	if ((c[i] == 0x84 || c[i] == 0x85 || c[i] == 0x38 || c[i] == 0x39 ||
	     c[i] == 0x3a || c[i] == 0x3b) &&
	    (c[i + 1] & 0xc0) == 0xc0)
		return i + 2;
	/* cmp r, imm8 (83 /7 ib) */
	if (c[i] == 0x83 && (c[i + 1] & 0xc0) == 0xc0 &&
	    ((c[i + 1] >> 3) & 7) == 7 && n >= i + 3)
		return i + 3;
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

void vg_place_bytes(const uint8_t *code, size_t len, uint64_t offset,
		    struct vg_placement *pl)
{
	size_t pos = 0;
	int skipped = 0;

	memset(pl, 0, sizeof(*pl));
	pl->offset = offset;
	if (emulated(code, len, pl->insn, sizeof(pl->insn))) {
		pl->emulated = 1;
		return;
	}
	snprintf(pl->insn, sizeof(pl->insn), "single-stepped");
	/* at most a few: a function is not a run of tests */
	while (skipped < 4) {
		size_t l = harmless_len(code + pos, len - pos);

		if (!l)
			return;
		pos += l;
		skipped++;
		/* not onto a tail call (endbr64; jmp f, as libstdc++'s sized
		 * operator delete is): the emulated jmp would leave the
		 * thread in f, and a stop there out of this function */
		if (len - pos >= 1 && (code[pos] == 0xe9 || code[pos] == 0xeb))
			return;
		if (emulated(code + pos, len - pos, pl->insn,
			     sizeof(pl->insn))) {
			pl->offset = offset + pos;
			pl->skipped = skipped;
			pl->emulated = 1;
			return;
		}
	}
}

void vg_place_entry(const char *path, uint64_t offset, struct vg_placement *pl)
{
	uint8_t code[32];
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = pread(fd, code, sizeof(code), offset);
		close(fd);
	}
	if (n <= 0) {
		memset(pl, 0, sizeof(*pl));
		pl->offset = offset;
		snprintf(pl->insn, sizeof(pl->insn), "unread");
		return;
	}
	vg_place_bytes(code, n, offset, pl);
}
