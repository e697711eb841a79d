/* Unit tests of the in-process tier, in this very process: the agent's
 * blob (inproc/, embedded as vg_agent_blob) mapped read-execute, a region
 * as vigil maps it into a target, stubs from user/fast/tramp.c, and test
 * functions (assembly, below) whose first 5 bytes are patched to jump to
 * their entry stubs. The records are read back with vg_fast_ring_consume
 * (user/fast/ring.c). */
#include <dlfcn.h>
#include <elf.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

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

/* --- the tests --------------------------------------------------------- */

struct worker {
	long tag;
	uint32_t tid;
	long bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	for (long i = 0; i < CALLS; i++)
		if (vgt_add(i, w->tag) != i + w->tag)
			w->bad++;
	return NULL;
}

/* Two threads, 100k calls each, read while they run: every entry and
 * return recorded, in order per thread, with its arguments and result. */
static void test_two_threads(void **state)
{
	struct worker w[2] = { { 1l << 32 }, { 2l << 32 } };
	uint64_t last_ns[2] = { 0, 0 }, next[2][2] = { { 0 } };
	pthread_t th[2];
	struct got g;
	int running = 2, joined[2] = { 0, 0 };

	got_init(&g);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
	while (running) {
		vg_fast_ring_consume(T.sh, T.sh, collect, &g);
		for (int i = 0; i < 2; i++)
			if (!joined[i] && !pthread_tryjoin_np(th[i], NULL)) {
				joined[i] = 1;
				running--;
			}
	}
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(w[0].bad + w[1].bad, 0);
	assert_int_equal(T.sh->cnt[VG_FCNT_LOST], 0);
	assert_int_equal(g.n, 4 * CALLS);
	for (size_t i = 0; i < g.n; i++) {
		struct vg_rec_event *r = &g.r[i];
		int k = r->h.tid == w[1].tid, out;

		assert_int_equal(r->h.kind, VG_REC_EVENT);
		assert_int_equal(r->h.pid, getpid());
		assert_true(r->h.tid == w[0].tid || r->h.tid == w[1].tid);
		assert_true(r->h.event == EV_ADD_IN ||
			    r->h.event == EV_ADD_OUT);
		out = r->h.event == EV_ADD_OUT;
		/* per thread: entry i, return i, entry i + 1... */
		assert_int_equal(next[k][0], next[k][1] + (out ? 1 : 0));
		assert_int_equal(r->slot[0], next[k][out]);
		if (out)
			assert_int_equal(r->slot[VG_SLOT_RET],
					 next[k][1] + w[k].tag);
		else
			assert_int_equal(r->slot[1], w[k].tag);
		next[k][out]++;
		assert_true(r->h.time_ns >= last_ns[k]);
		last_ns[k] = r->h.time_ns;
	}
	for (int k = 0; k < 2; k++)
		for (int out = 0; out < 2; out++)
			assert_int_equal(next[k][out], CALLS);
	free(g.r);
}

/* Recursion: each return pairs with its own entry; past VG_FAST_SHADOW
 * frames the returns are not hijacked (counted), results unchanged. */
static void test_recursion(void **state)
{
	struct got g;
	long want[VG_FAST_SHADOW + 40] = { 0 };

	got_init(&g);
	assert_int_equal(vgt_sum(50), 50 * 51 / 2);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 2 * 51);
	for (long n = 1; n <= 50; n++)
		want[n] = want[n - 1] + n;
	for (size_t i = 0; i < 51; i++) {	/* entries: 50 down to 0 */
		assert_int_equal(g.r[i].h.event, EV_SUM_IN);
		assert_int_equal(g.r[i].slot[0], 50 - i);
	}
	for (size_t i = 51; i < g.n; i++) {	/* returns: 0 up to 50 */
		long n = i - 51;

		assert_int_equal(g.r[i].h.event, EV_SUM_OUT);
		assert_int_equal(g.r[i].slot[0], n);
		assert_int_equal(g.r[i].slot[VG_SLOT_RET], want[n]);
	}
	assert_int_equal(my_thread()->depth, 0);
	assert_int_equal(T.sh->cnt[VG_FCNT_SHADOW], 0);
	assert_int_equal(vgt_sum(VG_FAST_SHADOW + 20),
			 (VG_FAST_SHADOW + 20) * (VG_FAST_SHADOW + 21) / 2);
	assert_int_equal(T.sh->cnt[VG_FCNT_SHADOW], 21);
	assert_int_equal(my_thread()->depth, 0);
	free(g.r);
}

static sigjmp_buf jb;

static long jump_out(long arg)
{
	siglongjmp(jb, 1);
}

/* deeper than the caller of the next vgt_add */
static __attribute__((noinline)) long call_deep(void)
{
	volatile char pad[512];

	pad[0] = 1;
	pad[1] = vgt_call(jump_out, pad[0]);	/* not a tail call */
	return pad[1];
}

/* A longjmp out of a hooked function leaves its frame; the next call
 * from higher up drops it, and every return still finds its own. */
static void test_longjmp(void **state)
{
	if (!sigsetjmp(jb, 0)) {
		call_deep();
		fail_msg("jump_out returned");
	}
	assert_int_equal(my_thread()->depth, 1);	/* vgt_call's */
	assert_int_equal(vgt_add(3, 4), 7);
	assert_int_equal(my_thread()->depth, 0);
	assert_int_equal(vgt_call((long (*)(long))vgt_sum, 10), 55);
	assert_int_equal(my_thread()->depth, 0);
}

/* A full ring: the calls go on, every dropped record is counted. */
static void test_full_ring(void **state)
{
	struct got g;
	uint64_t lost_ev;

	got_init(&g);
	for (long i = 0; i < 1000; i++)
		assert_int_equal(vgt_add(i, 1), i + 1);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_true(g.n > 0 && g.n < 2000);
	assert_int_equal(g.n + T.sh->cnt[VG_FCNT_LOST], 2000);
	lost_ev = T.sh->ev_lost[EV_ADD_IN] + T.sh->ev_lost[EV_ADD_OUT];
	assert_int_equal(lost_ev, T.sh->cnt[VG_FCNT_LOST]);
	/* read, the ring takes records again */
	assert_int_equal(vgt_add(5, 5), 10);
	g.n = 0;
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 2);
	free(g.r);
}

/* A record reserved and not written yet reads as BUSY wherever it falls
 * in the records consumed before it (the consumer zeroed them): reading
 * stops there, and goes past it, counted, once it has been BUSY for a
 * second. */
static void test_ring_busy(void **state)
{
	struct vg_fast_rec *r;
	uint64_t h;
	struct got g;

	got_init(&g);
	for (long i = 0; i < 10; i++)
		assert_int_equal(vgt_add(i, 1), i + 1);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 20);
	/* what was read is zero again: BUSY wherever a header falls */
	for (uint64_t i = 0; i < T.sh->tail; i++)
		if (((char *)T.sh + T.sh->ring_off)[i])
			fail_msg("ring byte %lu not zeroed", (unsigned long)i);
	/* a producer's reservation, inside an old 104-byte record */
	h = T.sh->head;
	T.sh->head = h + 64;
	g.n = 0;
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 0);
	assert_int_equal(T.sh->tail, h);
	/* its length written, never its state: skipped after a second */
	r = (struct vg_fast_rec *)((char *)T.sh + T.sh->ring_off +
				   (h & (T.sh->ring_size - 1)));
	r->len = 64;
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(T.sh->tail, h);
	T.sh->stuck_ns -= 2 * VG_FAST_STUCK_NS;
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 0);
	assert_int_equal(T.sh->tail, h + 64);
	assert_int_equal(T.sh->cnt[VG_FCNT_STUCK], 1);
	assert_int_equal(vgt_add(5, 5), 10);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.r[1].slot[VG_SLOT_RET], 10);
	free(g.r);
}

struct node {
	long pad;
	struct node *next;
	int val;
};

static long add_inside(long arg)
{
	return vgt_add(arg, 1);
}

/* Captures through pointers (a bad one reads 0 and counts), argument
 * conversions, and `outside vgt_call`: vgt_add called from inside
 * vgt_call is no event. */
static void test_captures_outside(void **state)
{
	struct vg_ev_conf *in = conf_of(EV_ADD_IN);
	struct node b = { 0, NULL, -7 }, a = { 0, &b, 3 };
	struct got g;

	got_init(&g);
	/* cap0 = a->next->val (int); slot 2 = arg1 as it is, cap1 =
	 * *(unsigned *)slot 2 */
	in->ncaps = 2;
	in->cap[0] = (struct vg_cap_plan){ .src = 0, .nsteps = 2, .size = 4,
					   .is_signed = 1,
					   .off = { offsetof(struct node, next),
						    offsetof(struct node, val) } };
	in->cap[1] = (struct vg_cap_plan){ .src = 2, .nsteps = 1, .size = 4,
					   .is_signed = 0 };
	in->arg[1].conv = VG_CONV_SEXT;	/* arg1 as an int */
	in->arg[1].size = 4;
	plan_reg(in, 2, 1);
	in->rec_slots = VG_SLOT_CAP0 + 2;
	in->outside = conf_of(EV_ADD_OUT)->outside = 1 << 3;
	conf_of(EV_CALL_IN)->flags |= VG_EVF_ENTER;
	conf_of(EV_CALL_IN)->inside = 3;
	conf_of(EV_CALL_OUT)->flags |= VG_EVF_LEAVE;
	conf_of(EV_CALL_OUT)->inside = 3;

	assert_int_equal(vgt_add((long)&a, 0xffffffffl), (long)&a + 0xffffffffl);
	assert_int_equal(vgt_add(8, (long)&b.val), 8 + (long)&b.val);
	assert_int_equal(vgt_call(add_inside, 5), 6);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	/* add, add, call in, call out: not add's inside vgt_call */
	assert_int_equal(g.n, 2 + 2 + 2);
	assert_int_equal(g.r[0].h.event, EV_ADD_IN);
	assert_int_equal(g.r[0].slot[1], (uint64_t)-1);	/* sign-extended */
	assert_int_equal(g.r[0].slot[VG_SLOT_CAP0], (uint64_t)-7);
	assert_int_equal(g.r[0].slot[VG_SLOT_CAP0 + 1], 0);	/* (bad) */
	assert_int_equal(g.r[2].h.event, EV_ADD_IN);
	assert_int_equal(g.r[2].slot[VG_SLOT_CAP0], 0);	/* from 8: bad */
	assert_int_equal(g.r[2].slot[VG_SLOT_CAP0 + 1], (uint32_t)-7);
	assert_int_equal(T.sh->cnt[VG_FCNT_CAPFAULT], 2);
	assert_int_equal(g.r[4].h.event, EV_CALL_IN);
	assert_int_equal(g.r[5].h.event, EV_CALL_OUT);
	assert_int_equal(g.r[5].slot[VG_SLOT_RET], 6);
	assert_int_equal(my_thread()->in.total, 0);
	free(g.r);
}

/* Every argument register and a stack argument reach the function and
 * the records; both halves of a two-register result come back. */
static void test_registers(void **state)
{
	struct vg_ev_conf *in = conf_of(EV_MIX_IN);
	struct pair p;
	struct got g;

	got_init(&g);
	for (int i = 0; i < 6; i++)
		plan_reg(in, i, i);
	in->arg[6] = (struct vg_arg_plan){ .where = VG_ARG_STACK,
					   .conv = VG_CONV_RAW, .size = 8,
					   .stack_off = 8 };
	in->rec_slots = 7;
	assert_int_equal(vgt_mix(1, 10, 100, 1000, 10000, 100000, 1000000),
			 1 + 20 + 300 + 4000 + 50000 + 600000 + 7000000);
	p = vgt_pair(0x1111, 0x2222);
	assert_int_equal(p.a, 0x1111);
	assert_int_equal(p.b, 0x2222);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 4);
	for (int i = 0; i < 7; i++)
		assert_int_equal(g.r[0].slot[i], (uint64_t)ten_to(i));
	assert_int_equal(g.r[3].h.event, EV_PAIR_OUT);
	assert_int_equal(g.r[3].slot[VG_SLOT_RET], 0x1111);
	free(g.r);
}

static struct vg_rec_event_str strs[8];
static size_t nstrs;

static int collect_str(void *ctx, const void *rec, size_t len)
{
	if (nstrs < 8 && len == sizeof(strs[0]))
		memcpy(&strs[nstrs], rec, len);
	nstrs++;
	return 0;
}

/* str(p) captures: a string cut at VG_STR_MAX - 1 bytes, one that ends
 * right before an unmapped page, NULL ("" and no fault), a bad pointer
 * ("", 0, a fault). */
static void test_strings(void **state)
{
	struct vg_ev_conf *in = conf_of(EV_ADD_IN);
	char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char longs[200];

	assert_true(pg != MAP_FAILED);
	assert_int_equal(mprotect(pg + 4096, 4096, PROT_NONE), 0);
	strcpy(pg + 4096 - 4, "abc");
	memset(longs, 'x', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = 0;
	in->flags |= VG_EVF_STRS;
	in->ncaps = 1;
	in->cap[0] = (struct vg_cap_plan){ .src = 0, .nsteps = 1,
					   .str = VG_CAPS_AT, .str_idx = 2 };
	vgt_add((long)longs, 0);
	vgt_add((long)(pg + 4096 - 4), 0);
	vgt_add(0, 0);
	vgt_add((long)(pg + 4096), 0);
	nstrs = 0;
	vg_fast_ring_consume(T.sh, T.sh, collect_str, NULL);
	assert_int_equal(nstrs, 8);	/* 4 returns of fewer bytes */
	assert_int_equal(strlen(strs[0].str[2]), VG_STR_MAX - 1);
	assert_int_equal(strs[0].ev.slot[VG_SLOT_CAP0], (uint64_t)longs);
	assert_string_equal(strs[2].str[2], "abc");
	assert_string_equal(strs[4].str[2], "");
	assert_string_equal(strs[6].str[2], "");
	assert_int_equal(strs[6].ev.slot[VG_SLOT_CAP0], 0);
	assert_int_equal(T.sh->cnt[VG_FCNT_CAPFAULT], 1);
	munmap(pg, 8192);
}

static long owner_dies(long arg)
{
	*T.owner |= 0x40000000;	/* FUTEX_OWNER_DIED */
	return arg + 1;
}

/* vigil gone: nothing more recorded, a return hijacked before still
 * comes back right */
static void test_vigil_gone(void **state)
{
	struct got g;

	got_init(&g);
	assert_int_equal(vgt_call(owner_dies, 41), 42);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 1);	/* vgt_call's entry only */
	assert_int_equal(g.r[0].h.event, EV_CALL_IN);
	for (long i = 0; i < 100; i++)
		assert_int_equal(vgt_add(i, i), 2 * i);
	assert_int_equal(T.sh->head, T.sh->tail);
	assert_int_equal(my_thread()->depth, 0);
	*T.owner = 0;	/* no owner: gone too */
	assert_int_equal(vgt_sum(5), 15);
	assert_int_equal(T.sh->head, T.sh->tail);
	free(g.r);
}

/* A call made while the thread is inside the agent (as from a signal
 * handler that interrupted it) records nothing and is counted. */
static void test_reenter(void **state)
{
	struct vg_fast_thread *t;
	uint64_t head;

	assert_int_equal(vgt_add(1, 2), 3);
	t = my_thread();
	assert_non_null(t);
	head = T.sh->head;
	t->busy = 1;
	assert_int_equal(vgt_add(2, 3), 5);
	assert_int_equal(T.sh->head, head);
	assert_int_equal(T.sh->cnt[VG_FCNT_REENTER], 1);
	assert_int_equal(t->depth, 0);
	t->busy = 0;
	assert_int_equal(vgt_add(2, 3), 5);
	assert_true(T.sh->head > head);
}

static volatile long handler_calls, handler_bad;

static void on_prof(int sig)
{
	handler_calls++;
	if (vgt_add(handler_calls, 1) != handler_calls + 1)
		handler_bad++;
}

static volatile int kicking;

/* SIGPROF at the main thread, about every 20 us, while kicking */
static void *kicker(void *arg)
{
	pthread_t main_thread = *(pthread_t *)arg;
	struct timespec ts = { 0, 20000 };

	while (kicking) {
		pthread_kill(main_thread, SIGPROF);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Real signals, landing anywhere (in the agent, in a stub, in the
 * function): every call the handler makes either records its entry and
 * return, or, made while the thread was inside the agent, nothing and
 * one count; every result right. */
static void test_signals(void **state)
{
	struct sigaction sa = { .sa_handler = on_prof };
	pthread_t self = pthread_self(), kick;
	long calls = 0, bad = 0;
	struct timespec t0, t1;
	struct got g;

	got_init(&g);
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGPROF, &sa, NULL), 0);
	kicking = 1;
	assert_int_equal(pthread_create(&kick, NULL, kicker, &self), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++, calls++)
			if (vgt_add(calls, 2) != calls + 2)
				bad++;
		vg_fast_ring_consume(T.sh, T.sh, collect, &g);
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (t1.tv_sec - t0.tv_sec < 1 && calls < 200000);
	kicking = 0;
	pthread_join(kick, NULL);
	signal(SIGPROF, SIG_DFL);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(bad + handler_bad, 0);
	assert_true(handler_calls > 0);
	assert_int_equal(T.sh->cnt[VG_FCNT_LOST], 0);
	assert_int_equal(g.n, 2 * (calls + handler_calls -
				   T.sh->cnt[VG_FCNT_REENTER]));
	assert_int_equal(my_thread()->depth, 0);
	print_message("%ld calls, %ld in the handler, %llu inside the agent\n",
		      calls, handler_calls, T.sh->cnt[VG_FCNT_REENTER]);
	free(g.r);
}

static long fork_inside(long arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* the child: a call of its own records nothing */
		if (vgt_add(20, 22) != 42)
			_exit(1);
		return 1000 + arg;
	}
	return pid;
}

/* fork inside a hooked function: the child returns through the frame
 * its parent's thread pushed (its own copy), records nothing */
static void test_fork(void **state)
{
	uint64_t head = T.sh->head;
	long r = vgt_call(fork_inside, 7);
	int status;

	if (r == 1007)	/* the child, back from vgt_call */
		_exit(42);
	assert_true(r > 0);
	assert_int_equal(waitpid(r, &status, 0), r);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);
	/* the parent: entry and return of vgt_call, nothing of the child */
	assert_int_equal(T.sh->head, head + 2 * 8 + VG_REC_EVENT_BYTES(4) +
					     VG_REC_EVENT_BYTES(VG_SLOT_RET + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_threads, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_recursion, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_longjmp, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_full_ring, setup_small,
						teardown),
		cmocka_unit_test_setup_teardown(test_ring_busy, setup_small,
						teardown),
		cmocka_unit_test_setup_teardown(test_registers, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_strings, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_captures_outside,
						setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_vigil_gone, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_reenter, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_signals, setup_big,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
