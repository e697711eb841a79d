/* The in-process tier's step of kernel-tier properties (inproc/kstep.c),
 * hosted, on tables vigil's own pipeline makes (inproc_fixture.h): a
 * double free, the table full, a busy lock, a claimed slot, guards and
 * updates in their fast forms and as bytecode, an event whose guards are
 * asked before the slice is looked up (kpre), a bytecode error, and
 * threads meeting on slices. test_inproc_kstep_diff.c compares the step
 * with the user tier's monitor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>

#include "inproc_fixture.h"

/* ---- specs/lib/double_free.vigil ------------------------------------- */

struct df {
	struct fix f;
	int malloc_ev, free_ev;
	int init, live, freed, dfree;
};

static void df_init(struct df *d, uint32_t nslots, uint32_t max)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	const struct vg_property *p;

	assert_non_null(s);
	if (vg_spec_load_file(s, "specs/lib/double_free.vigil", &e))
		fail_msg("spec: %s", e.msg);
	fix_init(&d->f, s, nslots, max);
	assert_true(d->f.plan->props[0].kernel);
	p = &s->props[0];
	d->malloc_ev = event_of(s, "malloc", VG_EV_AFTER);
	d->free_ev = event_of(s, "free", VG_EV_BEFORE);
	d->init = state_named(p, "init");
	d->live = state_named(p, "live");
	d->freed = state_named(p, "freed");
	d->dfree = state_named(p, "double_free");
	assert_int_equal(d->init, 0);
}

static int df_malloc(struct df *d, uint64_t p, uint64_t size)
{
	uint64_t slot[VG_NSLOTS] = { [0] = size, [VG_SLOT_RET] = p };

	return step(&d->f, d->malloc_ev, slot);
}

static int df_free(struct df *d, uint64_t p)
{
	uint64_t slot[VG_NSLOTS] = { [0] = p };

	return step(&d->f, d->free_ev, slot);
}

static void expect_kstep(int i, int ev, int from, int to, uint16_t flags,
			 uint64_t key)
{
	assert_true(i < nrecs);
	assert_int_equal(recs[i].h.kind, VG_REC_KSTEP);
	assert_int_equal(recs[i].h.event, ev);
	assert_int_equal(recs[i].from, from);
	assert_int_equal(recs[i].to, to);
	assert_int_equal(recs[i].h.flags, flags | VG_RF_INPROC);
	assert_int_equal(recs[i].key[0], key);
	assert_int_equal(recs[i].key[1], 0);
	assert_int_equal(recs[i].prop, 0);
}

/* malloc, free, free: the double free stops the thread; again absorbed;
 * the address handed out again starts the slice's next life */
static void test_double_free(void **state)
{
	struct df d;
	struct vg_kslot *s;

	df_init(&d, 64, 16);
	assert_int_equal(df_malloc(&d, 0x1000, 16), 0);
	assert_int_equal(nrecs, 1);
	expect_kstep(0, d.malloc_ev, d.init, d.live, 0, 0x1000);
	assert_int_equal(recs[0].slot[VG_SLOT_RET], 0x1000);
	assert_int_equal(recs[0].slot[0], 16);
	/* the header: the env's process, thread and time */
	assert_int_equal(recs[0].h.pid, 4242);
	assert_int_equal(recs[0].h.tid, 4243);
	assert_int_equal(recs[0].h.time_ns, d.f.env.now_ns);
	assert_non_null(s = kslice(d.f.sh, 0, 0x1000, 0));
	assert_int_equal(s->state, d.live);
	assert_int_equal(s->lock, 0);
	assert_int_equal(kcount_of(d.f.sh), 1);

	assert_int_equal(df_free(&d, 0x1000), 0);
	assert_int_equal(nrecs, 2);
	expect_kstep(1, d.free_ev, d.live, d.freed, 0, 0x1000);
	assert_int_equal(s->state, d.freed);

	assert_int_equal(df_free(&d, 0x1000), VG_RF_STOPPED);
	assert_int_equal(nrecs, 3);
	expect_kstep(2, d.free_ev, d.freed, d.dfree,
		     VG_RF_VERDICT | VG_RF_STOPPED, 0x1000);
	assert_int_equal(s->state, d.dfree);

	/* the same violation again: absorbed, no stop */
	assert_int_equal(df_free(&d, 0x1000), 0);
	assert_int_equal(nrecs, 3);
	assert_int_equal(s->state, d.dfree);

	/* reborn: reported as from the initial state */
	assert_int_equal(df_malloc(&d, 0x1000, 32), 0);
	assert_int_equal(nrecs, 4);
	expect_kstep(3, d.malloc_ev, d.init, d.live, 0, 0x1000);
	assert_int_equal(s->state, d.live);
	assert_int_equal(kcount_of(d.f.sh), 1);

	/* a free of what was never allocated: the initial state has no
	 * transition on free, so no slice is made */
	assert_int_equal(df_free(&d, 0x2000), 0);
	assert_int_equal(nrecs, 4);
	assert_null(kslice(d.f.sh, 0, 0x2000, 0));
	assert_int_equal(kcount_of(d.f.sh), 1);
	for (int c = 0; c < VG_FCNT_N; c++)
		assert_int_equal(d.f.sh->cnt[c], 0);
	fix_free(&d.f);
}

/* The agent reads the clock only for a step that reports or asks the
 * time, once an event, and the record carries that instant */
static int clock_reads;

static __u64 fake_clock(struct vg_fast_shared *sh)
{
	(void)sh;
	return 5000 + (__u64)++clock_reads;
}

/* as step(), the event's time unread, as the agent starts each event */
static int step_unclocked(struct fix *f, int ev, const uint64_t *slots)
{
	__u64 slot[VG_NSLOTS];

	memcpy(slot, slots, sizeof(slot));
	f->env.now_ns = 0;
	return vg_inproc_kstep(&f->env, &f->plan->events[ev].conf,
			       (uint32_t)ev, slot,
			       f->spec->events[ev].kind == VG_EV_BEFORE);
}

static void test_lazy_clock(void **state)
{
	struct df d;
	uint64_t m[VG_NSLOTS] = { [0] = 16, [VG_SLOT_RET] = 0x1000 };
	uint64_t f1[VG_NSLOTS] = { [0] = 0x1000 }, f2[VG_NSLOTS] = { [0] = 0x2000 };

	df_init(&d, 64, 16);
	d.f.env.clock = fake_clock;
	clock_reads = 0;
	/* no slice for a free of what was never allocated: no record */
	assert_int_equal(step_unclocked(&d.f, d.free_ev, f2), 0);
	assert_int_equal(nrecs, 0);
	assert_int_equal(clock_reads, 0);
	assert_int_equal(step_unclocked(&d.f, d.malloc_ev, m), 0);
	assert_int_equal(nrecs, 1);
	assert_int_equal(clock_reads, 1);
	assert_int_equal(recs[0].h.time_ns, 5001);
	assert_int_equal(step_unclocked(&d.f, d.free_ev, f1), 0);
	assert_int_equal(clock_reads, 2);
	assert_int_equal(recs[1].h.time_ns, 5002);
	fix_free(&d.f);
}

/* kslot_max reached: VG_REC_KFULL and its counter, and nothing stored */
static void test_full(void **state)
{
	struct df d;

	df_init(&d, 64, 2);
	df_malloc(&d, 0x1000, 8);
	df_malloc(&d, 0x2000, 8);
	assert_int_equal(nrecs, 2);
	assert_int_equal(df_malloc(&d, 0x3000, 8), 0);
	assert_int_equal(nrecs, 3);
	assert_int_equal(recs[2].h.kind, VG_REC_KFULL);
	assert_int_equal(recs[2].h.event, d.malloc_ev);
	assert_int_equal(recs[2].key[0], 0x3000);
	assert_int_equal(d.f.sh->cnt[VG_FCNT_KFULL], 1);
	assert_int_equal(kcount_of(d.f.sh), 2);
	assert_null(kslice(d.f.sh, 0, 0x3000, 0));
	/* the slices there still step */
	df_free(&d, 0x1000);
	assert_int_equal(nrecs, 4);
	expect_kstep(3, d.free_ev, d.live, d.freed, 0, 0x1000);
	/* a dropped record changes nothing of the table (emit counts it) */
	drop = true;
	df_free(&d, 0x2000);
	assert_int_equal(nrecs, 4);
	assert_int_equal(kslice(d.f.sh, 0, 0x2000, 0)->state, d.freed);
	fix_free(&d.f);
}

/* a lock another thread holds past VG_KLOCK_SPINS: VG_REC_KBUSY, the slice
 * untouched; then the lock free again, the step goes through */
static void test_busy(void **state)
{
	struct df d;
	struct vg_kslot *s;

	df_init(&d, 64, 16);
	df_malloc(&d, 0x1000, 8);
	assert_non_null(s = kslice(d.f.sh, 0, 0x1000, 0));
	s->lock = 1;
	assert_int_equal(df_free(&d, 0x1000), 0);
	assert_int_equal(nrecs, 2);
	assert_int_equal(recs[1].h.kind, VG_REC_KBUSY);
	assert_int_equal(recs[1].key[0], 0x1000);
	assert_int_equal(d.f.sh->cnt[VG_FCNT_KBUSY], 1);
	assert_int_equal(s->state, d.live);
	assert_int_equal(s->lock, 1);
	s->lock = 0;
	df_free(&d, 0x1000);
	assert_int_equal(nrecs, 3);
	expect_kstep(2, d.free_ev, d.live, d.freed, 0, 0x1000);
	fix_free(&d.f);
}

/* a slot another thread claimed and never published: the step waits
 * (bounded), then reports the slice busy rather than take the slot */
static void test_claimed_wait(void **state)
{
	struct df d;
	struct vg_kslot *t;
	uint32_t h;

	df_init(&d, 64, 16);
	t = kslots_of(d.f.sh);
	h = vg_kslot_home(0, vg_kslot_key0(0x1000, 0), 0) & d.f.sh->kslot_mask;
	t[h].use = VG_KSLOT_CLAIMED;
	assert_int_equal(df_malloc(&d, 0x1000, 8), 0);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].h.kind, VG_REC_KBUSY);
	assert_int_equal(d.f.sh->cnt[VG_FCNT_KBUSY], 1);
	assert_int_equal(t[h].use, VG_KSLOT_CLAIMED);
	assert_null(kslice(d.f.sh, 0, 0x1000, 0));
	fix_free(&d.f);
}

/* ---- guards, updates, variables: fast forms and bytecode -------------- */

/* queue: `max = size` and `n = n + 1` are fast forms; `n < max && n >= 0`
 * and the two-statement update with a product are bytecode; `owner = tid`
 * reads the thread. A reaction on `ready` makes its self-loops reported. */
static const char *queue_spec =
	"property q \"x\"\n"
	"slice on ptr q\n"
	"int n = 0, max = 0, owner = 0, w = 3\n"
	"state init accepting {\n"
	"  after queue_new(size) returns q when q != 0 { max = size; } -> ready\n"
	"}\n"
	"state ready accepting {\n"
	"  before queue_push(q, v) when n < max && n >= 0 { n = n + 1; owner = tid; } -> ready\n"
	"  before queue_push(q, v) -> overflow\n"
	"  before queue_pop(q) when n > 0 { n = n - 1; w = w * 7 + n; } -> ready\n"
	"  before queue_pop(q) -> underflow\n"
	"}\n"
	"state overflow violation\n"
	"state underflow violation\n"
	"on enter ready: log \"ready {n}\"\n"
	"on enter overflow: stop\n";

struct qf {
	struct fix f;
	int new_ev, push_ev, pop_ev;
};

static void qf_init(struct qf *q)
{
	fix_init(&q->f, load(queue_spec), 64, 16);
	q->new_ev = event_of(q->f.spec, "queue_new", VG_EV_AFTER);
	q->push_ev = event_of(q->f.spec, "queue_push", VG_EV_BEFORE);
	q->pop_ev = event_of(q->f.spec, "queue_pop", VG_EV_BEFORE);
}

static int q_ev(struct qf *q, int ev, uint64_t a0, uint64_t ret)
{
	uint64_t slot[VG_NSLOTS] = { [0] = a0, [VG_SLOT_RET] = ret };

	return step(&q->f, ev, slot);
}

static void test_guards_updates(void **state)
{
	struct qf q;
	struct vg_ktrans *t;
	struct vg_kslot *s;
	int ready;

	qf_init(&q);
	ready = state_named(&q.f.spec->props[0], "ready");
	/* both forms are there: the push's first guard is bytecode, its
	 * second transition's none; the new's update fast */
	t = &ktrans_of(q.f.sh)[VG_KTRANS_INDEX(0, ready, 1)];
	assert_int_equal(t->n, 2);
	assert_false(t->t[0].guard_fast);
	assert_true(t->t[0].guard_len > 0);
	t = &ktrans_of(q.f.sh)[VG_KTRANS_INDEX(0, 0, 0)];
	assert_true(t->t[0].guard_fast);
	assert_int_equal(t->t[0].upd_fast, 1);

	q_ev(&q, q.new_ev, 2, 0x500);		/* capacity 2 */
	assert_non_null(s = kslice(q.f.sh, 0, 0x500, 0));
	assert_int_equal(s->state, ready);
	assert_int_equal(s->vars[1], 2);
	assert_int_equal(nrecs, 1);
	q_ev(&q, q.push_ev, 0x500, 0);
	q_ev(&q, q.push_ev, 0x500, 0);
	/* ready -> ready, reported for the reaction on ready */
	assert_int_equal(nrecs, 3);
	assert_int_equal(recs[2].from, ready);
	assert_int_equal(recs[2].to, ready);
	assert_int_equal(recs[2].vars[0], 2);
	assert_int_equal(recs[2].vars[2], 4243);	/* owner = tid */
	assert_int_equal(s->vars[0], 2);
	q_ev(&q, q.pop_ev, 0x500, 0);
	assert_int_equal(s->vars[0], 1);
	assert_int_equal(s->vars[3], 3 * 7 + 1);
	q_ev(&q, q.push_ev, 0x500, 0);
	assert_int_equal(q_ev(&q, q.push_ev, 0x500, 0), VG_RF_STOPPED);
	assert_int_equal(recs[nrecs - 1].to,
			 state_named(&q.f.spec->props[0], "overflow"));
	assert_int_equal(recs[nrecs - 1].h.flags,
			 VG_RF_VERDICT | VG_RF_STOPPED | VG_RF_INPROC);
	/* a guard that fails: queue_new's one transition leaves the initial
	 * state under a guard that asks the event alone (kpre), so no slice
	 * is looked up or made (the kernel makes one, in the initial state),
	 * and nothing is reported; push's guards read n: no kpre */
	assert_int_equal(q.f.plan->events[q.new_ev].conf.kpre[0], 1);
	assert_int_equal(q.f.plan->events[q.push_ev].conf.kpre[0], 0);
	nrecs = 0;
	assert_int_equal(kcount_of(q.f.sh), 1);
	q_ev(&q, q.new_ev, 2, 0);
	assert_int_equal(nrecs, 0);
	assert_null(kslice(q.f.sh, 0, 0, 0));
	assert_int_equal(kcount_of(q.f.sh), 1);
	fix_free(&q.f);
}

/* specs/lib/fishy_size.vigil: malloc(n) moves the slice of n only when
 * n < 0, so the sizes a program asks for take no slot (a slice each,
 * before kpre), and the one that is negative is stopped at */
static void test_kpre_sizes(void **state)
{
	struct fix f;
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	int ev;

	assert_non_null(s);
	if (vg_spec_load_file(s, "specs/lib/fishy_size.vigil", &e))
		fail_msg("spec: %s", e.msg);
	fix_init(&f, s, 64, 16);
	ev = event_of(s, "malloc", VG_EV_BEFORE);
	assert_int_equal(f.plan->events[ev].conf.kpre[0],
			 1 + state_named(&s->props[0], "ok"));
	for (uint64_t n = 1; n <= 100; n++) {
		uint64_t slot[VG_NSLOTS] = { [0] = n * 16 };

		assert_int_equal(step(&f, ev, slot), 0);
	}
	/* more sizes than the table takes: none was refused either */
	assert_int_equal(kcount_of(f.sh), 0);
	assert_int_equal(nrecs, 0);
	assert_int_equal(f.sh->cnt[VG_FCNT_KFULL], 0);
	{
		uint64_t slot[VG_NSLOTS] = { [0] = (uint64_t)-8 };

		assert_int_equal(step(&f, ev, slot), VG_RF_STOPPED);
	}
	assert_int_equal(kcount_of(f.sh), 1);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].to, state_named(&s->props[0], "fishy"));
	fix_free(&f);
}

/* an update the VM fails on (a global's load: the user tier's only): the
 * step counts VG_FCNT_KERR and reports nothing; timeouts and checkpoints
 * are counted as not done here */
static void test_err_unsupported(void **state)
{
	struct qf q;
	struct vg_ktrans *t;
	struct vg_kslot *s;
	int ready;

	qf_init(&q);
	ready = state_named(&q.f.spec->props[0], "ready");
	t = &ktrans_of(q.f.sh)[VG_KTRANS_INDEX(0, ready, 2)];	/* pop */
	assert_false(t->t[0].upd_fast);
	kcode_of(q.f.sh)[t->t[0].upd_off].op = VG_OP_LDGLOB;
	q_ev(&q, q.new_ev, 2, 0x500);
	q_ev(&q, q.push_ev, 0x500, 0);
	assert_int_equal(nrecs, 2);
	q_ev(&q, q.pop_ev, 0x500, 0);
	assert_int_equal(nrecs, 2);
	assert_int_equal(q.f.sh->cnt[VG_FCNT_KERR], 1);
	assert_non_null(s = kslice(q.f.sh, 0, 0x500, 0));
	assert_int_equal(q.f.sh->cnt[VG_FCNT_KUNSUP], 0);
	kprops_of(q.f.sh)[0].timed_mask = 1u << ready;
	q_ev(&q, q.push_ev, 0x500, 0);
	assert_int_equal(q.f.sh->cnt[VG_FCNT_KUNSUP], 1);
	fix_free(&q.f);
}

/* ---- threads: one slice table, several threads stepping it ----------- */

static const char *count_spec =
	"property cnt \"x\"\n"
	"slice on ptr p\n"
	"int n = 0\n"
	"state s0 accepting { before inc(p) { n = n + 1; } -> s1 }\n"
	"state s1 accepting { before inc(p) { n = n + 1; } -> s1 }\n";

#define NTHREADS 3
#define NKEYS 2
#define PER_THREAD 200000

static int emitted_kstep, emitted_busy;

static int emit_mt(void *ctx, const void *rec, __u32 len, __u32 event)
{
	const struct vg_rec_kstep *r = rec;

	__atomic_fetch_add(r->h.kind == VG_REC_KSTEP ? &emitted_kstep
						     : &emitted_busy,
			   1, __ATOMIC_RELAXED);
	return 0;
}

struct worker {
	struct fix *f;
	int ev, id;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct vg_inproc_env env = w->f->env;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);

	env.tid = 5000 + (uint32_t)w->id;
	env.emit = emit_mt;
	for (int i = 0; i < PER_THREAD; i++) {
		__u64 slot[VG_NSLOTS] = { 0 };

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		slot[0] = 0x100 + 16 * (x % NKEYS);
		vg_inproc_kstep(&env, &w->f->plan->events[w->ev].conf,
				(uint32_t)w->ev, slot, 1);
	}
	return NULL;
}

/* Every event counted once in its slice, whichever threads met on it:
 * each slice made once (one s0 -> s1 step each), no update lost, what
 * a lock not taken in time dropped counted as such. */
static void test_threads(void **state)
{
	struct fix f;
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	int64_t sum = 0;

	fix_init(&f, load(count_spec), 64, 32);
	emitted_kstep = emitted_busy = 0;
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ &f, event_of(f.spec, "inc",
						     VG_EV_BEFORE), i };
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]),
				 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	for (int k = 0; k < NKEYS; k++) {
		struct vg_kslot *s = kslice(f.sh, 0, 0x100 + 16 * k, 0);

		assert_non_null(s);
		assert_int_equal(s->lock, 0);
		assert_int_equal(s->state, 1);
		sum += s->vars[0];
	}
	assert_int_equal(kcount_of(f.sh), NKEYS);
	assert_int_equal(emitted_kstep, NKEYS);
	assert_int_equal(emitted_busy, f.sh->cnt[VG_FCNT_KBUSY]);
	assert_int_equal(sum + (int64_t)f.sh->cnt[VG_FCNT_KBUSY],
			 NTHREADS * PER_THREAD);
	if (f.sh->cnt[VG_FCNT_KBUSY])
		print_message("(%llu steps found their slice busy)\n",
			      (unsigned long long)f.sh->cnt[VG_FCNT_KBUSY]);
	fix_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_double_free),
		cmocka_unit_test(test_lazy_clock),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_claimed_wait),
		cmocka_unit_test(test_guards_updates),
		cmocka_unit_test(test_kpre_sizes),
		cmocka_unit_test(test_err_unsupported),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
