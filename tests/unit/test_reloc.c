/* Unit tests of the in-process tier's relocator (user/reloc/reloc.h):
 * crafted byte sequences for each rule, and functions of this file
 * patched for real and called through the patch (libc's own functions:
 * test_reloc_libc.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <Zydis/Zydis.h>

#include "reloc/reloc.h"
#include "reloc_check.h"

#define FN 0x7f0000001000ull
#define GB (1ull << 30)

static int build(const uint8_t *b, uint32_t n, uint64_t fn, uint64_t at,
		 struct vg_reloc *r, char *why)
{
	return vg_reloc_build(b, n, fn, at, fn + 0x100000, r, why, 200);
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
	};

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
