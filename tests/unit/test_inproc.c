/* Unit tests of the in-process tier, in this very process: the agent's
 * blob (inproc/, embedded as vg_agent_blob) with a region as vigil maps it
 * into a target, stubs from user/fast/tramp.c, and test functions whose
 * first 5 bytes are patched to jump to their entry stubs (all set up by
 * fast_fixture.h). The records are read back with vg_fast_ring_consume
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
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fast_fixture.h"

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
/* Everything in the ring, a batch at a time as vigil takes it: a call
 * takes no more than VG_FAST_BATCH records (the producers see room
 * between batches, inproc/ring.c) */
static void consume_all(struct got *g)
{
	while (__atomic_load_n(&T.sh->head, __ATOMIC_ACQUIRE) != T.sh->tail) {
		size_t before = g->n;

		vg_fast_ring_consume(T.sh, T.sh, collect, g);
		assert_true(g->n - before <= VG_FAST_BATCH);
		if (g->n == before)
			break;	/* a record being written: not here */
	}
}

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
	consume_all(&g);
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

/* process_vm_readv fails with EPERM on this thread from now on (a
 * seccomp filter is the thread's own): a capture that still reads did
 * not go through the kernel */
static void no_vm_readv(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	assert_int_equal(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	assert_int_equal(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog), 0);
}

struct stack_reads {
	struct got g;
	int on_stack;
	uint64_t faults[3];
};

static void *stack_reads(void *arg)
{
	struct stack_reads *sr = arg;
	pthread_attr_t at;
	void *lo;
	size_t size;
	int heap_val = 0;

	/* the agent is told this thread's stack, as vigil tells it the
	 * main thread's (fast_install.c's locate) */
	assert_int_equal(pthread_getattr_np(pthread_self(), &at), 0);
	assert_int_equal(pthread_attr_getstack(&at, &lo, &size), 0);
	pthread_attr_destroy(&at);
	no_vm_readv();
	T.sh->stack_lo = (uint64_t)lo;
	T.sh->stack_hi = (uint64_t)lo + size;
	sr->on_stack = 41;
	vgt_add((long)&sr->on_stack, 0);	/* sr is on the heap: refused */
	sr->faults[0] = T.sh->cnt[VG_FCNT_CAPFAULT];
	heap_val = 7;
	vgt_add((long)&heap_val, 0);	/* on the stack too: reads */
	vgt_add((long)T.sh, 0);		/* not: the kernel, refused */
	sr->faults[1] = T.sh->cnt[VG_FCNT_CAPFAULT];
	T.sh->stack_lo = T.sh->stack_hi = 0;
	vgt_add((long)&heap_val, 0);	/* no stack known: the kernel */
	sr->faults[2] = T.sh->cnt[VG_FCNT_CAPFAULT];
	return NULL;
}

/* A capture from the stack the agent runs on is a plain read, no system
 * call: with process_vm_readv refused, stack reads still read and any
 * other read counts a fault. */
static void test_stack_reads(void **state)
{
	struct vg_ev_conf *in = conf_of(EV_ADD_IN);
	struct stack_reads *sr = calloc(1, sizeof(*sr));
	pthread_t th;

	got_init(&sr->g);
	in->ncaps = 1;
	in->cap[0] = (struct vg_cap_plan){ .src = 0, .nsteps = 1, .size = 4 };
	in->rec_slots = VG_SLOT_CAP0 + 1;
	assert_int_equal(pthread_create(&th, NULL, stack_reads, sr), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	vg_fast_ring_consume(T.sh, T.sh, collect, &sr->g);
	assert_int_equal(sr->g.n, 8);
	assert_int_equal(sr->faults[0], 1);
	assert_int_equal(sr->g.r[2].slot[VG_SLOT_CAP0], 7);
	assert_int_equal(sr->faults[1], 2);
	assert_int_equal(sr->g.r[6].slot[VG_SLOT_CAP0], 0);
	assert_int_equal(sr->faults[2], 3);
	free(sr->g.r);
	free(sr);
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

static void *call_once(void *arg)
{
	*(long *)arg = vgt_add(20, 22);
	return NULL;
}

static pthread_barrier_t all_called;

/* call_once, then alive until every such thread has called */
static void *call_and_wait(void *arg)
{
	*(long *)arg = vgt_add(20, 22);
	pthread_barrier_wait(&all_called);
	return NULL;
}

/* Threads: a new thread at a known tid (another struct pthread) starts
 * afresh; an ended thread's entry is taken over by a new thread, so that
 * a program that makes more threads than the table holds, one after the
 * other, loses nothing; with more threads alive at once than it holds,
 * the newest record nothing, their events counted lost, and still run
 * right. */
static void test_thread_table(void **state)
{
	struct vg_fast_thread *t;
	uint64_t self, full;
	long r[80];
	pthread_t th[80];
	struct got g;

	got_init(&g);
	assert_int_equal(vgt_add(1, 1), 2);
	t = my_thread();
	self = t->self;
	t->self = 0x1000;	/* as a dead thread's, at this tid */
	t->in.total = t->in.depth[3] = 5;
	conf_of(EV_ADD_IN)->outside = 1 << 3;
	assert_int_equal(vgt_add(1, 2), 3);
	assert_int_equal(t->self, self);
	assert_int_equal(t->in.total, 0);
	conf_of(EV_ADD_IN)->outside = 0;
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(g.n, 4);	/* the second call's entry too */

	/* 100 threads one after the other, in a table of 64 */
	g.n = 0;
	for (int i = 0; i < 100; i++) {
		r[0] = 0;
		assert_int_equal(pthread_create(&th[0], NULL, call_once, &r[0]), 0);
		pthread_join(th[0], NULL);
		assert_int_equal(r[0], 42);
	}
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	assert_int_equal(T.sh->cnt[VG_FCNT_THREADS], 0);
	assert_int_equal(g.n, 2 * 100);

	/* 80 alive at once */
	g.n = 0;
	assert_int_equal(pthread_barrier_init(&all_called, NULL, 80), 0);
	for (int i = 0; i < 80; i++)
		assert_int_equal(pthread_create(&th[i], NULL, call_and_wait,
						&r[i]), 0);
	for (int i = 0; i < 80; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(r[i], 42);
	}
	pthread_barrier_destroy(&all_called);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	full = T.sh->cnt[VG_FCNT_THREADS];
	assert_true(full >= 80 - 63);	/* 64 entries, one the main's */
	assert_int_equal(g.n, 2 * (80 - full));
	assert_int_equal(T.sh->ev_lost[EV_ADD_IN], full);
	assert_true(T.sh->cnt[VG_FCNT_LOST] >= full);
	free(g.r);
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

/* --follow-fork (sh->follow): the child's own call is recorded, as the
 * child's (its pid), in the ring it shares with the parent; its return
 * through the parent's frame is not (that call is the parent's) */
static void test_fork_followed(void **state)
{
	struct got g;
	long r;
	int status, child = 0;

	T.sh->follow = 1;
	got_init(&g);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	g.n = 0;
	r = vgt_call(fork_inside, 7);
	if (r == 1007)	/* the child, back from vgt_call */
		_exit(42);
	assert_true(r > 0);
	assert_int_equal(waitpid(r, &status, 0), r);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);
	vg_fast_ring_consume(T.sh, T.sh, collect, &g);
	for (size_t i = 0; i < g.n; i++) {
		if (g.r[i].h.pid == (uint32_t)r) {
			child++;
			assert_int_equal(g.r[i].h.tid, (uint32_t)r);
		} else {
			assert_int_equal(g.r[i].h.pid, getpid());
		}
	}
	/* the child's vgt_add: its entry and its return */
	assert_int_equal(child, 2);
	/* the parent's: vgt_call's entry and return */
	assert_int_equal(g.n, 4);
	T.sh->follow = 0;
	free(g.r);
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
		cmocka_unit_test_setup_teardown(test_thread_table, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_strings, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_stack_reads, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_captures_outside,
						setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_vigil_gone, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_reenter, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork_followed, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork, setup_big,
						teardown),
		cmocka_unit_test_setup_teardown(test_signals, setup_big,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
