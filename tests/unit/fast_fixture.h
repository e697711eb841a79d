/* The fixture of tests/unit/test_inproc.c: the in-process agent set up in
 * the test process itself, as vigil sets it up in a target. The blob
 * (vg_agent_blob) mapped read-execute, a region (struct vg_fast_shared,
 * the event table, the ring) shared and the per-thread table private
 * right after it, its first page MADV_WIPEONFORK; stubs from
 * user/fast/tramp.c within a jmp rel32 of the test functions (assembly,
 * below), whose first 5 bytes are patched to jump to them. */
#ifndef VG_TEST_FAST_FIXTURE_H
#define VG_TEST_FAST_FIXTURE_H

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vigil_fast.h"
#include "fast/agent_blob.h"
#include "fast/ring.h"
#include "fast/tramp.h"
/* Test functions, each with the prologue `endbr64; push %rbp` (4 + 1
 * bytes): relocated by copying them as they are. */
__asm__(".text\n"
	".globl vgt_add\n.type vgt_add,@function\n"
	"vgt_add:\n"
	"	endbr64\n	push %rbp\n	mov %rsp, %rbp\n"
	"	lea (%rdi,%rsi), %rax\n"
	"	pop %rbp\n	ret\n"
	/* vgt_sum(n) = n + vgt_sum(n - 1), vgt_sum(0) = 0 */
	".globl vgt_sum\n.type vgt_sum,@function\n"
	"vgt_sum:\n"
	"	endbr64\n	push %rbp\n	mov %rsp, %rbp\n"
	"	push %rbx\n	sub $8, %rsp\n	mov %rdi, %rbx\n"
	"	xor %eax, %eax\n	test %rdi, %rdi\n	jz 1f\n"
	"	lea -1(%rdi), %rdi\n	call vgt_sum\n	add %rbx, %rax\n"
	"1:	add $8, %rsp\n	pop %rbx\n	pop %rbp\n	ret\n"
	/* vgt_call(fn, arg) = fn(arg) */
	".globl vgt_call\n.type vgt_call,@function\n"
	"vgt_call:\n"
	"	endbr64\n	push %rbp\n	mov %rsp, %rbp\n"
	"	mov %rdi, %rax\n	mov %rsi, %rdi\n	call *%rax\n"
	"	pop %rbp\n	ret\n"
	/* vgt_mix(a..g) = a + 2b + 3c + 4d + 5e + 6f + 7g (g on the stack) */
	".globl vgt_mix\n.type vgt_mix,@function\n"
	"vgt_mix:\n"
	"	endbr64\n	push %rbp\n	mov %rsp, %rbp\n"
	"	lea (%rdi,%rsi,2), %rax\n	imul $3, %rdx, %rdx\n"
	"	add %rdx, %rax\n	lea (%rax,%rcx,4), %rax\n"
	"	imul $5, %r8, %r8\n	add %r8, %rax\n"
	"	imul $6, %r9, %r9\n	add %r9, %rax\n"
	"	imul $7, 16(%rbp), %rcx\n	add %rcx, %rax\n"
	"	pop %rbp\n	ret\n"
	/* vgt_pair(a, b) = { a, b }, in rax and rdx */
	".globl vgt_pair\n.type vgt_pair,@function\n"
	"vgt_pair:\n"
	"	endbr64\n	push %rbp\n	mov %rsp, %rbp\n"
	"	mov %rdi, %rax\n	mov %rsi, %rdx\n"
	"	pop %rbp\n	ret\n");
long vgt_mix(long a, long b, long c, long d, long e, long f, long g);
struct pair {
	long a, b;
};
struct pair vgt_pair(long a, long b);
long vgt_add(long a, long b);
long vgt_sum(long n);
long vgt_call(long (*fn)(long), long arg);

#define PATCH 5
#define CALLS 100000
enum { H_ADD, H_SUM, H_CALL, H_MIX, H_PAIR, NHOOKS };
enum { EV_ADD_IN, EV_ADD_OUT, EV_SUM_IN, EV_SUM_OUT, EV_CALL_IN, EV_CALL_OUT,
       EV_MIX_IN, EV_MIX_OUT, EV_PAIR_IN, EV_PAIR_OUT };

static void *fns[NHOOKS] = { (void *)vgt_add, (void *)vgt_sum,
			     (void *)vgt_call, (void *)vgt_mix,
			     (void *)vgt_pair };

static struct {
	struct vg_fast_shared *sh;
	size_t region_size, threads_size;
	uint8_t *blob, *code;
	uint32_t *owner;
} T;

/* the vDSO's own clock_gettime, as vigil gives the target's */
static void *vdso_clock_gettime(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)base;
	Elf64_Shdr *sh = (Elf64_Shdr *)(base + eh->e_shoff);

	for (int i = 0; i < eh->e_shnum; i++) {
		Elf64_Sym *sym = (Elf64_Sym *)(base + sh[i].sh_offset);
		const char *str;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		str = (const char *)(base + sh[sh[i].sh_link].sh_offset);
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++)
			if (!strcmp(str + sym[k].st_name,
				    "__vdso_clock_gettime"))
				return (void *)(base + sym[k].st_value);
	}
	return NULL;
}

static uint64_t tcb_self(void)
{
	uint64_t self;

	__asm__("mov %%fs:0x10, %0" : "=r"(self));
	return self;
}

/* where struct pthread keeps the tid: the first word that is gettid() */
static uint32_t find_tid_off(void)
{
	uint8_t *self = (uint8_t *)tcb_self();

	for (uint32_t off = 0; off < 0x1000; off += 4)
		if (*(uint32_t *)(self + off) == (uint32_t)gettid())
			return off;
	return 0;
}

static struct vg_ev_conf *conf_of(int ev)
{
	return (struct vg_ev_conf *)((char *)T.sh + T.sh->evconf_off) + ev;
}

static void plan_reg(struct vg_ev_conf *c, int i, int reg)
{
	c->flags |= VG_EVF_ARGS;
	c->arg[i].where = VG_ARG_REG;
	c->arg[i].reg = reg;
	c->arg[i].conv = VG_CONV_RAW;
	c->arg[i].size = 8;
}

static void set_events(void)
{
	for (int h = 0; h < NHOOKS; h++) {
		struct vg_ev_conf *in = conf_of(2 * h), *out = conf_of(2 * h + 1);

		for (int i = 0; i < VG_MAX_FIELDS; i++)
			in->arg[i].where = out->arg[i].where = VG_ARG_NONE;
		in->flags = out->flags = VG_EVF_USER;
		plan_reg(in, 0, 0);
		plan_reg(in, 1, 1);
		in->rec_slots = 2;
		plan_reg(out, 0, 0);
		out->flags |= VG_EVF_RETX;
		out->ret_conv = VG_CONV_RAW;
		out->rec_slots = VG_SLOT_RET + 1;
		T.sh->hooks[h].entry_ev[0] = 2 * h;
		T.sh->hooks[h].ret_ev[0] = 2 * h + 1;
		T.sh->hooks[h].nentry = T.sh->hooks[h].nret = 1;
		T.sh->hooks[h].ret_args = 1;
	}
}

static void patch(int h, int on)
{
	uint8_t *fn = fns[h];
	uintptr_t page = (uintptr_t)fn & ~4095ul;
	uint8_t jmp[PATCH] = { 0xe9 };
	int32_t rel = (int32_t)((int64_t)(T.code + 512 * h) -
				(int64_t)(fn + PATCH));

	assert_int_equal(mprotect((void *)page, 8192,
				  PROT_READ | PROT_WRITE | PROT_EXEC), 0);
	memcpy(jmp + 1, &rel, 4);
	if (on)
		memcpy(fn, jmp, PATCH);
	else
		memcpy(fn, T.code + 512 * h + 256, PATCH);
	assert_int_equal(mprotect((void *)page, 8192, PROT_READ | PROT_EXEC), 0);
}

/* A region with a ring of ring_size bytes, the agent and the stubs, all
 * hooks patched. */
static int setup_ring(size_t ring_size)
{
	size_t head = 65536, evconf = VG_MAX_EVENTS * sizeof(struct vg_ev_conf);
	struct vg_fast_shared *sh;
	uint8_t *p;

	T.region_size = (head + evconf + 4095) / 4096 * 4096 + ring_size;
	T.threads_size = VG_FAST_THREADS_HDR + 64 * sizeof(struct vg_fast_thread);
	/* the shared part, then the private thread table right after it */
	p = mmap(NULL, T.region_size + T.threads_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	assert_true(mmap(p, T.region_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p);
	assert_int_equal(madvise(p + T.region_size, VG_FAST_THREADS_HDR,
				 MADV_WIPEONFORK), 0);
	T.sh = sh = (struct vg_fast_shared *)p;
	sh->magic = VG_FAST_MAGIC;
	sh->version = VG_FAST_VERSION;
	sh->owner_off = 4096;
	T.owner = (uint32_t *)(p + sh->owner_off);
	*T.owner = gettid();	/* "vigil" holds it */
	sh->tgid = getpid();
	sh->tid_off = find_tid_off();
	assert_int_not_equal(sh->tid_off, 0);
	sh->clock_gettime = (uint64_t)vdso_clock_gettime();
	assert_int_not_equal(sh->clock_gettime, 0);
	sh->evconf_off = head;
	sh->ring_off = T.region_size - ring_size;
	sh->ring_size = ring_size;
	sh->threads_off = T.region_size;
	sh->threads_size = T.threads_size;
	((struct vg_fast_threads_hdr *)(p + T.region_size))->tgid = getpid();
	sh->nhooks = NHOOKS;
	set_events();

	T.blob = mmap(NULL, vg_agent_blob_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(T.blob != MAP_FAILED);
	memcpy(T.blob, vg_agent_blob, vg_agent_blob_len);
	((struct vg_agent_head *)T.blob)->region = (uint64_t)sh;
	assert_int_equal(((struct vg_agent_head *)T.blob)->magic,
			 VG_AGENT_MAGIC);
	assert_int_equal(mprotect(T.blob, vg_agent_blob_len,
				  PROT_READ | PROT_EXEC), 0);

	/* per hook, 512 bytes: entry stub, then at 256 the relocated
	 * prologue, at 384 the return stub */
	/* within a jmp rel32 of the functions, as vigil places its code */
	T.code = MAP_FAILED;
	for (uintptr_t at = ((uintptr_t)vgt_add & ~4095ul) + (16 << 20);
	     T.code == MAP_FAILED && at < (uintptr_t)vgt_add + (1u << 30);
	     at += 1 << 20)
		T.code = mmap((void *)at, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS |
				      MAP_FIXED_NOREPLACE, -1, 0);
	assert_true(T.code != MAP_FAILED);
	for (int h = 0; h < NHOOKS; h++) {
		const struct vg_agent_head *ah = (void *)T.blob;
		uint8_t *c = T.code + 512 * h, *fn = fns[h];
		uint64_t back = (uint64_t)fn + PATCH;

		assert_true(vg_tramp_entry_stub(c, 256, (uint64_t)c, h,
						(uint64_t)T.blob + ah->entry_off,
						(uint64_t)c + 256) > 0);
		memcpy(c + 256, fn, PATCH);
		memcpy(c + 256 + PATCH, "\xff\x25\0\0\0\0", 6);
		memcpy(c + 256 + PATCH + 6, &back, 8);
		assert_true(vg_tramp_return_stub(c + 384, 128,
						 (uint64_t)c + 384, h,
						 (uint64_t)T.blob +
							 ah->return_off) > 0);
		sh->hooks[h].fn = (uint64_t)fn;
		sh->hooks[h].reloc = (uint64_t)c + 256;
		sh->hooks[h].ret_stub = (uint64_t)c + 384;
		sh->hooks[h].patch_len = PATCH;
	}
	assert_int_equal(mprotect(T.code, 4096, PROT_READ | PROT_EXEC), 0);
	for (int h = 0; h < NHOOKS; h++)
		patch(h, 1);
	__atomic_store_n(&sh->enabled, 1, __ATOMIC_RELEASE);
	return 0;
}

static int setup_big(void **state)
{
	return setup_ring(64 << 20);
}

static int setup_small(void **state)
{
	return setup_ring(4096);
}

static int teardown(void **state)
{
	for (int h = 0; h < NHOOKS; h++)
		patch(h, 0);
	munmap(T.sh, T.region_size + T.threads_size);
	munmap(T.blob, vg_agent_blob_len);
	munmap(T.code, 4096);
	return 0;
}

/* --- reading the ring back ----------------------------------------- */

#define MAXREC (4 * CALLS + 16)
struct got {
	size_t n;
	struct vg_rec_event *r;	/* the records, slots zero-filled */
};

static int collect(void *ctx, const void *rec, size_t len)
{
	struct got *g = ctx;

	if (g->n < MAXREC) {
		memset(&g->r[g->n], 0, sizeof(g->r[0]));
		memcpy(&g->r[g->n], rec,
		       len < sizeof(g->r[0]) ? len : sizeof(g->r[0]));
	}
	g->n++;
	return 0;
}

static void got_init(struct got *g)
{
	g->n = 0;
	g->r = calloc(MAXREC, sizeof(*g->r));
	assert_non_null(g->r);
}

static long ten_to(int n)
{
	long v = 1;

	while (n--)
		v *= 10;
	return v;
}

/* the calling thread's entry in the table */
static struct vg_fast_thread *my_thread(void)
{
	struct vg_fast_thread *t = (struct vg_fast_thread *)
		((char *)T.sh + T.sh->threads_off + VG_FAST_THREADS_HDR);

	for (int i = 0; i < 64; i++)
		if (t[i].tid == (uint32_t)gettid())
			return &t[i];
	return NULL;
}

#endif
