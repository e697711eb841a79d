/* Unit tests of the in-process tier's relocator (user/reloc/reloc.h):
 * crafted byte sequences for each rule, functions of this file patched
 * for real and called through the patch, and libc's hot functions moved
 * next to libc, decoded again, and called through their trampolines.
 *
 * VG_RELOC_LIST=1 build/tests/test_reloc prints which of libc's functions
 * the relocator accepts on this machine, and why it refuses the others. */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <Zydis/Zydis.h>

#include "reloc/reloc.h"
#include "sym/dwarf_internal.h"
#include "sym/sym_internal.h"

#define FN 0x7f0000001000ull
#define GB (1ull << 30)

static int build(const uint8_t *b, uint32_t n, uint64_t fn, uint64_t at,
		 struct vg_reloc *r, char *why)
{
	return vg_reloc_build(b, n, fn, at, fn + 0x100000, r, why, 200);
}

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

/* --- crafted sequences ------------------------------------------------- */

/* lea rax, [rip+0x1000]; ret: moved 1 GB up and down, the same address */
static void test_rip_lea_moved(void **state)
{
	static const uint8_t b[] = { 0x48, 0x8d, 0x05, 0x00, 0x10, 0x00, 0x00, 0xc3 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), 0);
	assert_int_equal(r.patch_len, 7);
	assert_int_equal(r.len, 12);
	compare(b, FN, FN + GB, FN + 0x100000, &r);
	assert_int_equal(build(b, sizeof(b), FN, FN - GB, &r, why), 0);
	compare(b, FN, FN - GB, FN + 0x100000, &r);
	assert_false(r.indirect);
}

/* endbr64; push %rbp; lea rax, [rip+0x1000]: where each instruction of
 * the patch went in the relocated code (a thread stopped there is moved
 * to it), none in the middle of one */
static void test_at_of(void **state)
{
	static const uint8_t b[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55,
				     0x48, 0x8d, 0x05, 0x00, 0x10, 0x00, 0x00,
				     0xc3 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), 0);
	assert_int_equal(r.patch_len, 5);
	assert_int_equal(r.at_of[0], 1);
	assert_int_equal(r.at_of[4], 5);
	for (int k = 1; k < 4; k++)
		assert_int_equal(r.at_of[k], 0);
	assert_int_equal(build(b + 4, sizeof(b) - 4, FN, FN + GB, &r, why), 0);
	assert_int_equal(r.patch_len, 8);	/* push, lea: moved, longer */
	assert_int_equal(r.at_of[1], 2);
	assert_int_equal(r.at_of[2], 0);
}

/* cmp byte [rip+X], 0 has an immediate after its displacement */
static void test_rip_cmp_imm(void **state)
{
	static const uint8_t b[] = { 0x80, 0x3d, 0x44, 0x33, 0x22, 0x11, 0x00, 0xc3 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN - GB / 2, &r, why), 0);
	assert_int_equal(r.patch_len, 7);
	assert_int_equal(r.code[6], 0x00);
	compare(b, FN, FN - GB / 2, FN + 0x100000, &r);
}

/* 3 GB away a disp32 cannot reach the original address */
static void test_rip_out_of_reach(void **state)
{
	static const uint8_t b[] = { 0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00, 0xc3 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN + 3 * GB, &r, why), -1);
	assert_non_null(strstr(why, "rip-relative operand"));
	assert_non_null(strstr(why, "out of reach of the trampoline"));
}

/* test edi, edi; je +0x10; mov rax, rdi; ...: je rel8 becomes je rel32 */
static void test_jcc_widened(void **state)
{
	uint8_t b[0x20];
	struct vg_reloc r;
	char why[200];

	memset(b, 0x90, sizeof(b));
	memcpy(b, "\x85\xff\x74\x10\x48\x89\xf8", 7);
	b[0x1f] = 0xc3;
	assert_int_equal(build(b, sizeof(b), FN, FN - GB, &r, why), 0);
	assert_int_equal(r.patch_len, 7);
	assert_memory_equal(r.code, "\x85\xff\x0f\x84", 4);
	assert_int_equal(r.len, 2 + 6 + 3 + 5);
	compare(b, FN, FN - GB, FN + 0x100000, &r);
	/* the same target out of reach: refused */
	assert_int_equal(build(b, sizeof(b), FN, FN + 3 * GB, &r, why), -1);
	assert_non_null(strstr(why, "out of reach"));
}

/* call rel32 and jmp rel32 keep their absolute targets */
static void test_call_moved(void **state)
{
	static const uint8_t b[] = { 0x53, 0xe8, 0x00, 0x01, 0x00, 0x00,
				     0x5b, 0xc3 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), 0);
	assert_int_equal(r.patch_len, 6);
	assert_int_equal(r.code[1], 0xe8);
	compare(b, FN, FN + GB, FN + 0x100000, &r);
	/* call next; pop rbx: the pushed address is read */
	static const uint8_t pc[] = { 0x53, 0xe8, 0, 0, 0, 0, 0x5b, 0xc3 };
	assert_int_equal(build(pc, sizeof(pc), FN, FN + GB, &r, why), -1);
	assert_non_null(strstr(why, "takes its own address"));
}

/* a tail-call thunk: jmp rel32 alone is a whole 5-byte function */
static void test_jmp_thunk(void **state)
{
	static const uint8_t b[] = { 0xe9, 0x00, 0x02, 0x00, 0x00 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN - GB, &r, why), 0);
	compare(b, FN, FN - GB, FN + 0x100000, &r);
}

/* push rbp; mov rbp, rsp; sub rsp, 0x10; nops; jmp back to +0x4 */
static void test_branch_into_patch(void **state)
{
	uint8_t b[0x1f];
	struct vg_reloc r;
	char why[200];

	memset(b, 0x90, sizeof(b));
	memcpy(b, "\x55\x48\x89\xe5\x48\x83\xec\x10", 8);
	b[0x1c] = 0xeb;
	b[0x1d] = (uint8_t)(4 - 0x1e);
	b[0x1e] = 0xc3;
	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), -1);
	assert_string_equal(why, "a jump at +0x1c lands inside the patch (+0x4)");
	/* jne rel32 at +0x10 to +0x1 */
	memset(b, 0x90, sizeof(b));
	memcpy(b, "\x55\x48\x89\xe5\x48\x83\xec\x10", 8);
	memcpy(b + 0x10, "\x0f\x85\xeb\xff\xff\xff", 6);	/* 0x16 - 0x15 */
	b[0x1e] = 0xc3;
	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), -1);
	assert_string_equal(why, "a jump at +0x10 lands inside the patch (+0x1)");
	/* back to the start itself is a call again: allowed */
	b[0x12] = 0xea;
	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), 0);
	/* a branch of the patch into the patch */
	static const uint8_t c[] = { 0x74, 0x01, 0x90, 0x48, 0x89, 0xf8, 0xc3 };
	assert_int_equal(build(c, sizeof(c), FN, FN + GB, &r, why), -1);
	assert_string_equal(why, "a jump at +0x0 lands inside the patch (+0x3)");
}

static void test_too_short(void **state)
{
	static const uint8_t tiny[] = { 0x31, 0xc0, 0xc3 };
	static const uint8_t ret_pad[] = { 0x31, 0xc0, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc };
	static const uint8_t ret_more[] = { 0x31, 0xc0, 0xc3, 0x48, 0x89, 0xf8, 0xc3 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(tiny, sizeof(tiny), FN, FN + GB, &r, why), -1);
	assert_string_equal(why, "shorter than the 5-byte patch");
	assert_int_equal(build(tiny, 3, FN, FN + GB, &r, why), -1);
	assert_int_equal(build(ret_pad, 3, FN, FN + GB, &r, why), -1);
	assert_non_null(strstr(why, "shorter than the 5-byte patch"));
	assert_int_equal(build(ret_more, sizeof(ret_more), FN, FN + GB, &r, why), -1);
	assert_non_null(strstr(why, "too short: ret at +0x2"));
	assert_int_equal(build(ret_more, 0, FN, FN + GB, &r, why), -1);
	assert_non_null(strstr(why, "size is unknown"));
}

/* endbr64; push rbp; mov rbp, rsp: endbr64 moves, the patch is 5 bytes */
static void test_endbr_push_mov(void **state)
{
	static const uint8_t b[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89,
				     0xe5, 0x5d, 0xc3 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), 0);
	assert_int_equal(r.patch_len, 5);
	assert_int_equal(r.len, 10);
	assert_memory_equal(r.code, b, 5);
	compare(b, FN, FN + GB, FN + 0x100000, &r);
}

/* loop, jrcxz, xbegin and a breakpoint cannot be moved */
static void test_unmovable(void **state)
{
	static const struct { uint8_t b[8]; const char *why; } v[] = {
		{ { 0xe2, 0x10, 0x48, 0x89, 0xf8, 0xc3 }, "(+0x0: loop " },
		{ { 0x48, 0x89, 0xf8, 0xe3, 0x10, 0xc3 }, "(+0x3: jrcxz " },
		{ { 0xc7, 0xf8, 0x10, 0x00, 0x00, 0x00, 0xc3 }, "(+0x0: xbegin " },
		{ { 0xcc, 0x48, 0x89, 0xf8, 0x90, 0xc3 }, "breakpoint" },
	};
	struct vg_reloc r;
	char why[200];

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		assert_int_equal(build(v[k].b, 8, FN, FN + GB, &r, why), -1);
		if (!strstr(why, v[k].why) || !strstr(why, "cannot be moved"))
			fail_msg("case %zu: %s", k, why);
	}
}

/* syscall moves; a jmp rax later in the function is reported */
static void test_syscall_indirect(void **state)
{
	static const uint8_t b[] = { 0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05,
				     0x85, 0xc0, 0x74, 0x02, 0xff, 0xe0, 0xc3 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), 0);
	assert_int_equal(r.patch_len, 5);
	assert_true(r.indirect);
	/* jmp [rip+X] is a tail call through the GOT, not a jump table */
	static const uint8_t c[] = { 0x48, 0x89, 0xf8, 0x90, 0x90,
				     0xff, 0x25, 0x00, 0x10, 0x00, 0x00 };
	assert_int_equal(build(c, sizeof(c), FN, FN + GB, &r, why), 0);
	assert_false(r.indirect);
}

/* undecodable bytes after a ret are padding; elsewhere refused */
static void test_undecodable(void **state)
{
	uint8_t b[] = { 0x48, 0x89, 0xf8, 0x90, 0x90, 0xc3, 0x06, 0x06 };
	struct vg_reloc r;
	char why[200];

	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), 0);
	b[5] = 0x90;		/* 06 (push es) is invalid in 64-bit mode */
	assert_int_equal(build(b, sizeof(b), FN, FN + GB, &r, why), -1);
	assert_non_null(strstr(why, "cannot decode the function at +0x6"));
}

/* mempcpy's shape in glibc: code before memmove jumps to memmove+3, past
 * its first instruction; only a sweep of the text around sees it */
static void test_jump_from_before(void **state)
{
	uint8_t t[0x60];
	uint64_t text = FN - 0x40;
	struct vg_reloc r;
	char why[200];

	memset(t, 0x90, sizeof(t));
	memcpy(t, "\x48\x89\xf8\x48\x01\xd0\xeb", 7);	/* mov, add, jmp */
	t[7] = (uint8_t)(0x43 - 0x08);
	memcpy(t + 0x40, "\x48\x89\xf8\x48\x83\xfa\x40", 7);
	t[0x5f] = 0xc3;
	assert_int_equal(build(t + 0x40, 0x20, FN, FN + GB, &r, why), 0);
	assert_int_equal(r.patch_len, 7);
	assert_int_equal(vg_reloc_check_text(t, text, sizeof(t), FN, r.patch_len,
					     why, sizeof(why)), -1);
	assert_string_equal(why, "a jump at fn-0x3a, before the function, lands inside the patch (+0x3)");
	/* the function alone: nothing jumps in */
	assert_int_equal(vg_reloc_check_text(t + 0x40, FN, 0x20, FN, r.patch_len,
					     why, sizeof(why)), 0);
	/* a rel32 from after the function, and a jump to fn itself */
	t[7] = (uint8_t)(0x40 - 0x08);			/* to fn itself */
	memcpy(t + 0x50, "\xe9\xef\xff\xff\xff", 5);		/* to FN+0x4 */
	assert_int_equal(vg_reloc_check_text(t, text, sizeof(t), FN + 1, 5,
					     why, sizeof(why)), -1);
	assert_string_equal(why, "a jump at +0xf lands inside the patch (+0x3)");
	memcpy(t + 0x50, "\x90\x90\x90\x90\x90", 5);
	assert_int_equal(vg_reloc_check_text(t, text, sizeof(t), FN, r.patch_len,
					     why, sizeof(why)), 0);
}

/* --- this file's functions, patched and called for real ---------------- */

/* rt_add(x): x ? x + rt_base : -1, with a known prologue: test, je rel8,
 * a RIP-relative load (10 bytes covered). rt_call(x): push rbx, mov,
 * call rel32 (9 bytes) of rt_twice; 3 * x. */
int rt_base = 1000;
int rt_add(int x);
long rt_call(long x);
extern char rt_end[];
__asm__(
	"	.text\n"
	"	.p2align 12\n"
	"	.globl rt_add\n"
	"	.type rt_add,@function\n"
	"rt_add:\n"
	"	test %edi, %edi\n"
	"	je 1f\n"
	"	mov rt_base(%rip), %eax\n"
	"	add %edi, %eax\n"
	"	ret\n"
	"1:	mov $-1, %eax\n"
	"	ret\n"
	"	.size rt_add, .-rt_add\n"
	"	.globl rt_call\n"
	"	.type rt_call,@function\n"
	"rt_call:\n"
	"	push %rbx\n"
	"	mov %rdi, %rbx\n"
	"	call rt_twice\n"
	"	add %rbx, %rax\n"
	"	pop %rbx\n"
	"	ret\n"
	"	.size rt_call, .-rt_call\n"
	"rt_twice:\n"
	"	lea (%rdi,%rdi), %rax\n"
	"	ret\n"
	"	.globl rt_end\n"
	"rt_end:\n");

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

static volatile uint64_t stub_hits;

/* stub: movabs rax, &stub_hits; lock inc qword [rax]; jmp at */
static void put_stub(uint8_t *stub, uint64_t at)
{
	uint64_t hits = (uint64_t)(uintptr_t)&stub_hits;
	int32_t rel = (int32_t)(at - ((uint64_t)(uintptr_t)stub + 19));

	stub[0] = 0x48;
	stub[1] = 0xb8;
	memcpy(stub + 2, &hits, 8);
	memcpy(stub + 10, "\xf0\x48\xff\x00", 4);
	stub[14] = 0xe9;
	memcpy(stub + 15, &rel, 4);
}

/* patch fn, call it through the patch with check(), restore */
static void patched_call(void *fn, uint32_t size, uint32_t want_len,
			 void (*check)(void))
{
	uint64_t f = (uint64_t)(uintptr_t)fn;
	uint8_t *page = near_page(f, 4096), *stub, *at;
	uintptr_t pg = f & ~0xfffull;
	struct vg_reloc r;
	char why[200];

	assert_non_null(page);
	stub = page;
	at = page + 64;
	assert_int_equal(vg_reloc_build(fn, size, f, (uintptr_t)at,
					(uintptr_t)stub, &r, why, sizeof(why)), 0);
	assert_int_equal(r.patch_len, want_len);
	compare(fn, f, (uintptr_t)at, (uintptr_t)stub, &r);
	memcpy(at, r.code, r.len);
	put_stub(stub, (uintptr_t)at);
	assert_int_equal(mprotect((void *)pg, 8192, PROT_READ | PROT_WRITE | PROT_EXEC), 0);
	memcpy(fn, r.patch, r.patch_len);
	stub_hits = 0;
	check();
	assert_true(stub_hits > 0);
	memcpy(fn, r.orig, r.patch_len);
	assert_int_equal(mprotect((void *)pg, 8192, PROT_READ | PROT_EXEC), 0);
	munmap(page, 4096);
}

static int (*volatile add_p)(int) = rt_add;
static long (*volatile call_p)(long) = rt_call;

static void check_add(void)
{
	assert_int_equal(add_p(5), 1005);
	assert_int_equal(stub_hits, 1);
	assert_int_equal(add_p(0), -1);		/* the widened je */
	rt_base = 7;
	assert_int_equal(add_p(-3), 4);
	rt_base = 1000;
	assert_int_equal(stub_hits, 3);
}

static void check_call(void)
{
	assert_int_equal(call_p(14), 42);
	assert_int_equal(call_p(-2), -6);
}

static void test_patched_for_real(void **state)
{
	uint32_t add_size = (uint32_t)((uintptr_t)rt_call - (uintptr_t)rt_add);

	patched_call((void *)rt_add, add_size, 10, check_add);
	assert_int_equal(add_p(5), 1005);	/* restored */
	patched_call((void *)rt_call, (uint32_t)((uintptr_t)rt_end - (uintptr_t)rt_call),
		     9, check_call);
	assert_int_equal(call_p(1), 3);
}

/* --- libc's functions -------------------------------------------------- */

/* The size of libc's function at addr: its dynamic symbol's, or for an
 * IFUNC's implementation (__memmove_avx_unaligned_erms) its symbol's in
 * libc's separate debug file. 0 when unknown. */
static uint32_t libc_size(void *addr, char *name, size_t namelen)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	struct vg_elf_file f, d;
	struct vg_err e = { 0 };
	uint64_t vaddr;
	uint32_t size = 0;
	char *dbg;

	snprintf(name, namelen, "?");
	if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT))
		return 0;
	if (info.dli_saddr == addr && sym && sym->st_size) {
		snprintf(name, namelen, "%s", info.dli_sname);
		return (uint32_t)sym->st_size;
	}
	vaddr = (uintptr_t)addr - (uintptr_t)info.dli_fbase;
	if (vg_elf_file_open(info.dli_fname, &f, &e))
		return 0;
	dbg = dw_find_debug_file(f.elf, info.dli_fname);
	vg_elf_file_close(&f);
	if (!dbg || vg_elf_file_open(dbg, &d, &e)) {
		free(dbg);
		return 0;
	}
	free(dbg);
	for (Elf_Scn *s = NULL; !size && (s = elf_nextscn(d.elf, s));) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(s, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym gs;

			if (gelf_getsym(data, k, &gs) && gs.st_value == vaddr &&
			    GELF_ST_TYPE(gs.st_info) == STT_FUNC && gs.st_size) {
				size = (uint32_t)gs.st_size;
				snprintf(name, namelen, "%s",
					 elf_strptr(d.elf, sh.sh_link, gs.st_name));
				break;
			}
		}
	}
	vg_elf_file_close(&d);
	return size;
}

/* the executable segment of the object holding addr */
struct seg { uintptr_t addr, base; size_t len; };

static int seg_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct seg *s = arg;

	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    s->addr >= lo && s->addr < lo + ph->p_memsz) {
			s->base = lo;
			s->len = ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

static void *at_fn;	/* the trampoline being called */

/* libc's own allocator: under ASan malloc and free here are ASan's, and
 * a block of one must not go to the other */
static void *(*lc_malloc)(size_t);
static void (*lc_free)(void *);
static size_t (*lc_usable)(void *);

static bool ex_malloc(void)
{
	void *p = ((void *(*)(size_t))at_fn)(100);
	bool ok = p && lc_usable(p) >= 100;

	lc_free(p);
	return ok;
}
static bool ex_free(void)
{
	((void (*)(void *))at_fn)(lc_malloc(100));
	((void (*)(void *))at_fn)(NULL);
	return true;
}
static bool ex_calloc(void)
{
	int *p = ((void *(*)(size_t, size_t))at_fn)(16, sizeof(int));
	bool ok = p && p[0] == 0 && p[15] == 0;

	lc_free(p);
	return ok;
}
static bool ex_realloc(void)
{
	char *p = lc_malloc(4);

	memcpy(p, "abc", 4);
	p = ((void *(*)(void *, size_t))at_fn)(p, 4000);
	bool ok = p && !strcmp(p, "abc");

	lc_free(p);
	return ok;
}
static bool ex_memalign(void)
{
	void *p = ((void *(*)(size_t, size_t))at_fn)(256, 100);
	bool ok = p && !((uintptr_t)p & 255);

	lc_free(p);
	return ok;
}
static bool ex_posix_memalign(void)
{
	void *p = NULL;
	bool ok = ((int (*)(void **, size_t, size_t))at_fn)(&p, 256, 100) == 0 &&
		  !((uintptr_t)p & 255);

	lc_free(p);
	return ok;
}
static bool ex_strdup(void)
{
	char *p = ((char *(*)(const char *))at_fn)("hello");
	bool ok = p && !strcmp(p, "hello");

	free(p);	/* libc's strdup calls the malloc that won */
	return ok;
}
static bool ex_memcpy(void)
{
	char src[300], dst[300];

	for (int k = 0; k < 300; k++)
		src[k] = (char)k;
	((void *(*)(void *, const void *, size_t))at_fn)(dst, src, 300);
	return !memcmp(src, dst, 300);
}
static bool ex_memset(void)
{
	char b[300];

	((void *(*)(void *, int, size_t))at_fn)(b, 7, 300);
	return b[0] == 7 && b[299] == 7;
}
static bool ex_strlen(void)
{
	static const char s[] = "more than sixteen chars";

	return ((size_t (*)(const char *))at_fn)(s) == sizeof(s) - 1;
}
static bool ex_strcpy(void)
{
	char b[32];

	((char *(*)(char *, const char *))at_fn)(b, "copied");
	return !strcmp(b, "copied");
}
static pthread_mutex_t ex_mu = PTHREAD_MUTEX_INITIALIZER;
static bool ex_lock(void)
{
	bool ok = ((int (*)(pthread_mutex_t *))at_fn)(&ex_mu) == 0 &&
		  pthread_mutex_trylock(&ex_mu) != 0;

	pthread_mutex_unlock(&ex_mu);
	return ok;
}
static bool ex_unlock(void)
{
	pthread_mutex_lock(&ex_mu);
	return ((int (*)(pthread_mutex_t *))at_fn)(&ex_mu) == 0 &&
	       pthread_mutex_trylock(&ex_mu) == 0 &&
	       pthread_mutex_unlock(&ex_mu) == 0;
}
/* read or write 3 bytes through a pipe with the trampoline */
static bool ex_rw(bool rd)
{
	int p[2];
	char b[4] = { 0 };
	bool ok;

	if (pipe(p) || (rd && write(p[1], "abc", 3) != 3))
		return false;
	if (rd)
		ok = ((ssize_t (*)(int, void *, size_t))at_fn)(p[0], b, 3) == 3;
	else
		ok = ((ssize_t (*)(int, const void *, size_t))at_fn)(p[1], "abc", 3) == 3 &&
		     read(p[0], b, 3) == 3;
	close(p[0]);
	close(p[1]);
	return ok && !strcmp(b, "abc");
}
static bool ex_read(void) { return ex_rw(true); }
static bool ex_write(void) { return ex_rw(false); }
static bool ex_open(void)
{
	int fd = ((int (*)(const char *, int, ...))at_fn)("/dev/null", O_RDONLY);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static const struct { const char *name; bool (*ex)(void); } libc_fns[] = {
	{ "malloc", ex_malloc }, { "free", ex_free }, { "calloc", ex_calloc },
	{ "realloc", ex_realloc }, { "memalign", ex_memalign },
	{ "posix_memalign", ex_posix_memalign },
	{ "aligned_alloc", ex_memalign }, { "strdup", ex_strdup },
	{ "memcpy", ex_memcpy }, { "memmove", ex_memcpy },
	{ "memset", ex_memset }, { "strlen", ex_strlen },
	{ "strcpy", ex_strcpy }, { "pthread_mutex_lock", ex_lock },
	{ "pthread_mutex_unlock", ex_unlock }, { "read", ex_read },
	{ "write", ex_write }, { "open", ex_open },
};

static const char *hex(const uint8_t *b, uint32_t n)
{
	static char buf[64];

	for (uint32_t k = 0; k < n && k < 16; k++)
		snprintf(buf + 3 * k, 4, " %02x", b[k]);
	return buf;
}

/* Each accepted function is decoded again against its original, then
 * called through its trampoline (which jumps back into libc's own,
 * unpatched code). At least malloc, free and strlen must be accepted. */
static void test_libc(void **state)
{
	bool list = getenv("VG_RELOC_LIST") != NULL;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	int accepted = 0;

	assert_non_null(libc);
	assert_non_null(lc_malloc = dlsym(libc, "malloc"));
	assert_non_null(lc_free = dlsym(libc, "free"));
	assert_non_null(lc_usable = dlsym(libc, "malloc_usable_size"));
	for (size_t k = 0; k < sizeof(libc_fns) / sizeof(libc_fns[0]); k++) {
		const char *name = libc_fns[k].name;
		void *fn = dlsym(libc, name);
		char impl[128], why[200];
		uint32_t size;
		uint8_t *page;
		struct vg_reloc r;
		uint64_t f = (uintptr_t)fn;

		assert_non_null(fn);
		size = libc_size(fn, impl, sizeof(impl));
		page = near_page(f, 4096);
		assert_non_null(page);
		struct seg sg = { .addr = f };
		int rc;

		assert_int_not_equal(dl_iterate_phdr(seg_cb, &sg), 0);
		rc = vg_reloc_build(fn, size, f, (uintptr_t)page + 64,
				    (uintptr_t)page, &r, why, sizeof(why));
		if (!rc) {
			rc = vg_reloc_check_text((void *)sg.base, sg.base, sg.len,
						 f, r.patch_len, why, sizeof(why));
			/* glibc's memmove-vec-unaligned-erms.S: mempcpy
			 * jumps past memmove's first mov %rdi, %rax */
			if (!strcmp(name, "memmove") &&
			    !memcmp(fn, "\x48\x89\xf8", 3) &&
			    (rc == 0 || !strstr(why, "before the function, lands inside the patch (+0x3)")))
				fail_msg("memmove: mempcpy's jump to +0x3 not seen (%s)", why);
		}
		if (rc) {
			if (list)
				printf("refused  %-22s %-36s size %-5u %s\n",
				       name, impl, size, why);
			munmap(page, 4096);
			continue;
		}
		compare(fn, f, (uintptr_t)page + 64, (uintptr_t)page, &r);
		memcpy(page + 64, r.code, r.len);
		at_fn = page + 64;
		if (!libc_fns[k].ex())
			fail_msg("%s through its trampoline gave a wrong result", name);
		accepted++;
		if (list)
			printf("accepted %-22s %-36s size %-5u patch %2u bytes:%s%s\n",
			       name, impl, size, r.patch_len, hex(r.orig, r.patch_len),
			       r.indirect ? " (has indirect jumps)" : "");
		munmap(page, 4096);
	}
	dlclose(libc);
	if (list)
		printf("%d of %zu accepted\n", accepted,
		       sizeof(libc_fns) / sizeof(libc_fns[0]));
	assert_true(accepted >= 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rip_lea_moved),
		cmocka_unit_test(test_at_of),
		cmocka_unit_test(test_rip_cmp_imm),
		cmocka_unit_test(test_rip_out_of_reach),
		cmocka_unit_test(test_jcc_widened),
		cmocka_unit_test(test_call_moved),
		cmocka_unit_test(test_jmp_thunk),
		cmocka_unit_test(test_branch_into_patch),
		cmocka_unit_test(test_too_short),
		cmocka_unit_test(test_endbr_push_mov),
		cmocka_unit_test(test_unmovable),
		cmocka_unit_test(test_syscall_indirect),
		cmocka_unit_test(test_undecodable),
		cmocka_unit_test(test_jump_from_before),
		cmocka_unit_test(test_patched_for_real),
		cmocka_unit_test(test_libc),
	};

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
