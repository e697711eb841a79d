/* What the relocator's tests check its output with (test_reloc.c,
 * test_reloc_libc.c): the relocated code decoded again, instruction by
 * instruction against the original's, and a page within reach of a
 * function for its trampoline. */
#ifndef VIGIL_TEST_RELOC_CHECK_H
#define VIGIL_TEST_RELOC_CHECK_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <Zydis/Zydis.h>

#include "reloc/reloc.h"


/* --- decoding the relocated code again --------------------------------- */

struct dins {
	ZydisDecodedInstruction i;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
};

static ZydisDecoder dec;

static bool dec1(const uint8_t *p, size_t n, struct dins *d)
{
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, p, n, &d->i, d->op));
}

/* the absolute branch target or RIP-relative address, 0 if none */
static uint64_t abs_of(const struct dins *d, uint64_t ip)
{
	for (int k = 0; k < d->i.operand_count; k++) {
		const ZydisDecodedOperand *o = &d->op[k];
		ZyanU64 a;

		if ((o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && o->imm.is_relative) ||
		    (o->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		     o->mem.base == ZYDIS_REGISTER_RIP)) {
			assert_true(ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&d->i, o, ip, &a)));
			return a;
		}
	}
	return 0;
}

/* Every relocated instruction is the original's mnemonic with the same
 * absolute target; the last one is jmp fn + patch_len; the patch is
 * jmp stub and int3s. */
static void compare(const uint8_t *orig, uint64_t fn, uint64_t at,
		    uint64_t stub, const struct vg_reloc *r)
{
	uint32_t o = 0, n = 0;
	struct dins a, b;

	while (o < r->patch_len) {
		assert_true(dec1(orig + o, 15, &a));
		assert_true(dec1(r->code + n, r->len - n, &b));
		assert_int_equal(a.i.mnemonic, b.i.mnemonic);
		assert_int_equal(abs_of(&a, fn + o), abs_of(&b, at + n));
		o += a.i.length;
		n += b.i.length;
	}
	assert_int_equal(o, r->patch_len);
	assert_true(dec1(r->code + n, r->len - n, &b));
	assert_int_equal(b.i.mnemonic, ZYDIS_MNEMONIC_JMP);
	assert_int_equal(n + b.i.length, r->len);
	assert_int_equal(abs_of(&b, at + n), fn + r->patch_len);
	assert_true(dec1(r->patch, 16, &b));
	assert_int_equal(b.i.mnemonic, ZYDIS_MNEMONIC_JMP);
	assert_int_equal(abs_of(&b, fn), stub);
	for (uint32_t k = 5; k < r->patch_len; k++)
		assert_int_equal(r->patch[k], 0xcc);
	assert_memory_equal(r->orig, orig, r->patch_len);
}

/* a page within reach (±1 GB) of addr, read-write-execute */
static uint8_t *near_page(uint64_t addr, size_t len)
{
	for (int k = 1; k < 256; k++) {
		for (int s = -1; s <= 1; s += 2) {
			uint64_t h = (addr & ~0xfffull) + s * (uint64_t)k * 0x400000;
			void *p = mmap((void *)h, len, PROT_READ | PROT_WRITE | PROT_EXEC,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
				       -1, 0);

			if (p == (void *)h)
				return p;
			if (p != MAP_FAILED)
				munmap(p, len);
		}
	}
	return NULL;
}

#endif
