/* The in-process tier's step of kernel-tier properties (inproc/kstep.c),
 * hosted, on tables vigil's own pipeline makes: a spec parsed, its plan
 * (vg_plan_build, no binary), the plan's kernel-tier tables laid out by
 * vg_ktier_fill into a region as include/vigil_fast.h describes it. Events
 * are fed by hand (the slots a probe would fill), the records caught by
 * the emit callback. Last, the same random events go to the user tier's
 * monitor (user/monitor/) and to the step, which must agree on every
 * transition and every slice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kstep.h"
#include "monitor/monitor.h"
#include "plan/plan.h"
#include "spec_load.h"

/* ---- the region ------------------------------------------------------ */

#define ALIGN64(x) (((x) + 63) & ~(size_t)63)
#define NKTRANS (VG_KMAX_PROPS * VG_KMAX_STATES * VG_KMAX_BINDINGS)

/* a region with the plan's tables and an empty slice table of nslots
 * (a power of two) taking at most max slices */
static struct vg_fast_shared *region_new(const struct vg_plan *p,
					 uint32_t nslots, uint32_t max)
{
	size_t off = ALIGN64(sizeof(struct vg_fast_shared));
	size_t kprops = off, ktrans, kcode, kslots;
	struct vg_fast_shared *sh;
	char *r;

	off = ALIGN64(off + VG_KMAX_PROPS * sizeof(struct vg_kprop));
	ktrans = off;
	off = ALIGN64(off + NKTRANS * sizeof(struct vg_ktrans));
	kcode = off;
	off = ALIGN64(off + VG_KMAX_CODE * sizeof(struct vg_insn));
	kslots = off;
	off += nslots * sizeof(struct vg_kslot);
	assert_non_null(r = aligned_alloc(64, ALIGN64(off)));
	memset(r, 0, ALIGN64(off));
	sh = (struct vg_fast_shared *)r;
	sh->magic = VG_FAST_MAGIC;
	sh->version = VG_FAST_VERSION;
	sh->nkprops = p->kt.nkprops;
	sh->kprops_off = kprops;
	sh->ktrans_off = ktrans;
	sh->kcode_off = kcode;
	sh->kslots_off = kslots;
	sh->kslot_mask = nslots - 1;
	sh->kslot_max = max;
	vg_ktier_fill(&p->kt, (struct vg_kprop *)(r + kprops),
		      (struct vg_ktrans *)(r + ktrans),
		      (struct vg_insn *)(r + kcode));
	return sh;
}

static struct vg_kprop *kprops_of(struct vg_fast_shared *sh)
{
	return (struct vg_kprop *)((char *)sh + sh->kprops_off);
}

static struct vg_ktrans *ktrans_of(struct vg_fast_shared *sh)
{
	return (struct vg_ktrans *)((char *)sh + sh->ktrans_off);
}

static struct vg_insn *kcode_of(struct vg_fast_shared *sh)
{
	return (struct vg_insn *)((char *)sh + sh->kcode_off);
}

static struct vg_kslot *kslots_of(struct vg_fast_shared *sh)
{
	return (struct vg_kslot *)((char *)sh + sh->kslots_off);
}

/* the slice (kprop k, key) in the table, NULL when absent */
static struct vg_kslot *kslice(struct vg_fast_shared *sh, uint32_t k,
			       uint64_t k0, uint64_t k1)
{
	struct vg_kslot *t = kslots_of(sh);

	for (uint32_t i = 0; i <= sh->kslot_mask; i++)
		if (t[i].use == VG_KSLOT_READY && t[i].prop == k &&
		    t[i].key[0] == k0 && t[i].key[1] == k1)
			return &t[i];
	return NULL;
}

/* ---- records --------------------------------------------------------- */

static struct vg_rec_kstep recs[256];
static int nrecs;
static bool drop;		/* the ring is full */

static int emit(void *ctx, const void *rec, __u32 len, __u32 event)
{
	assert_int_equal(len, sizeof(struct vg_rec_kstep));
	assert_int_equal(((const struct vg_rec_kstep *)rec)->h.event, event);
	if (drop)
		return -1;
	if (nrecs < 256)
		memcpy(&recs[nrecs], rec, len);
	nrecs++;
	return 0;
}

/* ---- the spec, its plan, the events ---------------------------------- */

struct fix {
	struct vg_spec *spec;
	struct vg_plan *plan;
	struct vg_fast_shared *sh;
	struct vg_inproc_env env;
};

static void fix_init(struct fix *f, struct vg_spec *s, uint32_t nslots,
		     uint32_t max)
{
	struct vg_plan_opts o = { .binary = NULL, .tier = VG_TIER_KERNEL,
				  .on_violation = VG_OV_STOP,
				  .no_ktimer = true };
	struct vg_err e = { 0 };

	memset(f, 0, sizeof(*f));
	f->spec = s;
	f->plan = vg_plan_build(s, &o, &e);
	if (!f->plan)
		fail_msg("plan: %s", e.msg);
	f->sh = region_new(f->plan, nslots, max);
	f->env = (struct vg_inproc_env){ .sh = f->sh, .tgid = 4242,
					 .tid = 4243, .now_ns = 1000,
					 .emit = emit };
	nrecs = 0;
	drop = false;
}

static void fix_free(struct fix *f)
{
	free(f->sh);
	vg_plan_free(f->plan);
	vg_spec_free(f->spec);
}

static int event_of(const struct vg_spec *s, const char *name,
		    enum vg_event_kind kind)
{
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].kind == kind && !strcmp(s->events[i].name, name))
			return i;
	fail_msg("no event %s", name);
	return -1;
}

/* event ev with the given slots; returns vg_inproc_kstep's */
static int step(struct fix *f, int ev, const uint64_t *slots)
{
	__u64 slot[VG_NSLOTS];

	memcpy(slot, slots, sizeof(slot));
	f->env.now_ns += 10;
	return vg_inproc_kstep(&f->env, &f->plan->events[ev].conf,
			       (uint32_t)ev, slot,
			       f->spec->events[ev].kind == VG_EV_BEFORE);
}

static int state_named(const struct vg_property *p, const char *name)
{
	for (int i = 0; i < p->nstates; i++)
		if (!strcmp(p->states[i].name, name))
			return i;
	fail_msg("no state %s", name);
	return -1;
}

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
	assert_int_equal(recs[i].h.flags, flags);
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
	assert_int_equal(d.f.sh->kslot_count, 1);

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
	assert_int_equal(d.f.sh->kslot_count, 1);

	/* a free of what was never allocated: the initial state has no
	 * transition on free, so no slice is made */
	assert_int_equal(df_free(&d, 0x2000), 0);
	assert_int_equal(nrecs, 4);
	assert_null(kslice(d.f.sh, 0, 0x2000, 0));
	assert_int_equal(d.f.sh->kslot_count, 1);
	for (int c = 0; c < VG_FCNT_N; c++)
		assert_int_equal(d.f.sh->cnt[c], 0);
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
	assert_int_equal(d.f.sh->kslot_count, 2);
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
	h = vg_kslot_hash(0, vg_kslot_key0(0x1000, 0), 0) & d.f.sh->kslot_mask;
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
			 VG_RF_VERDICT | VG_RF_STOPPED);
	/* a guard that fails: the initial state's transitions on the event
	 * move, so the slice is made (as in the kernel), and stays in the
	 * initial state, unreported */
	nrecs = 0;
	q_ev(&q, q.new_ev, 2, 0);
	assert_int_equal(nrecs, 0);
	assert_non_null(s = kslice(q.f.sh, 0, 0, 0));
	assert_int_equal(s->state, 0);
	assert_int_equal(s->vars[1], 0);
	fix_free(&q.f);
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

/* ---- the same random events to the user tier's monitor ---------------- */

/* Two properties on one event (free feeds both): memory with a
 * use-after-free and a size, and a two-parameter lock count. */
static const char *diff_spec =
	"property mem \"x\"\n"
	"slice on ptr p\n"
	"int size = 0, uses = 0\n"
	"state init accepting {\n"
	"  after malloc(n) returns p when p != 0 && n == 0 -> zero\n"
	"  after malloc(n) returns p when p != 0 { size = n; } -> live\n"
	"}\n"
	"state live accepting {\n"
	"  before use(p, k) when k >= size { uses = uses + 1; } -> overrun\n"
	"  before use(p, k) { uses = uses * 3 + k; } -> live\n"
	"  before free(p) -> freed\n"
	"}\n"
	"state freed accepting {\n"
	"  after malloc(n) returns p { size = n; uses = 0; } -> live\n"
	"  before free(p) -> dfree\n"
	"  before use(p, k) -> uaf\n"
	"}\n"
	"state dfree violation\n"
	"state uaf violation\n"
	"state overrun violation\n"
	"state zero violation\n"
	"on enter dfree: stop\n"
	"\n"
	"property locks \"y\"\n"
	"slice on q, t\n"
	"int n = 0, owner = 0\n"
	"state s0 accepting {\n"
	"  before lock(q, t) { n = 1; owner = tid; } -> s1\n"
	"}\n"
	"state s1 accepting {\n"
	"  before lock(q, t) when n >= 2 && owner == tid -> bad\n"
	"  before lock(q, t) { n = n + 1; } -> s1\n"
	"  before unlock(q, t) when n == 1 { n = 0; owner = 0; } -> s0\n"
	"  before unlock(q, t) { n = n - 1; } -> s1\n"
	"  before free(q, t) -> bad\n"
	"}\n"
	"state bad violation\n";

struct mcall {
	int prop, from, to;
	uint64_t p0, p1;
};
static struct mcall mcalls[64];
static int nmcalls;

static void on_trans(void *ctx, const struct vg_slice_view *s, int from,
		     int to, const struct vg_mon_event *ev)
{
	if (from == to)		/* the kernel tier reports state changes */
		return;
	assert_true(nmcalls < 64);
	mcalls[nmcalls++] = (struct mcall){ s->prop, from, to, s->params[0],
					    s->mask & 2 ? s->params[1] : 0 };
}

struct mfound {
	int prop, nvars;
	uint64_t p0, p1;
	int state;
	int64_t v[VG_KMAX_VARS];
};

static void find_cb(void *ctx, const struct vg_slice_view *s)
{
	struct mfound *w = ctx;

	if (s->prop != w->prop || s->params[0] != w->p0 ||
	    ((s->mask & 2) && s->params[1] != w->p1))
		return;
	w->state = s->state;
	for (int i = 0; s->vars && i < w->nvars; i++)	/* NULL: a tombstone */
		w->v[i] = s->vars[i];
}

/* the slice's state and variables in the monitor (absent: initial) */
static struct mfound mon_slice(struct vg_monitor *m, const struct vg_spec *sp,
			       int prop, uint64_t p0, uint64_t p1)
{
	struct mfound w = { .prop = prop, .nvars = sp->props[prop].nvars,
			    .p0 = p0, .p1 = p1 };

	for (int i = 0; i < w.nvars; i++)
		w.v[i] = sp->props[prop].vars[i].init;
	vg_monitor_foreach(m, find_cb, &w);
	return w;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

/* The same events to both: the monitor and the region's tables */
struct diff {
	struct fix f;
	struct vg_monitor *m;
	int verdicts, stops;
	uint32_t kinds[VG_KMAX_PROPS];	/* the states entered, by kprop */
};

static void diff_init(struct diff *d, struct vg_spec *s)
{
	static const struct vg_monitor_hooks hooks = { .transition = on_trans };
	struct vg_monitor_opts mo = { 0 };
	struct vg_err e = { 0 };

	memset(d, 0, sizeof(*d));
	fix_init(&d->f, s, 512, 256);
	for (int i = 0; i < s->nprops; i++) {
		assert_true(d->f.plan->props[i].kernel);
		assert_int_equal(d->f.plan->kt.kprop_map[i], i);
	}
	d->m = vg_monitor_new(s, &mo, &hooks, &e);
	if (!d->m)
		fail_msg("monitor: %s", e.msg);
}

static void diff_free(struct diff *d)
{
	for (int c = 0; c < VG_FCNT_N; c++)
		assert_int_equal(d->f.sh->cnt[c], 0);
	vg_monitor_free(d->m);
	fix_free(&d->f);
}

/* every slice of keys (16a, b), a <= 4, b <= 2 (b 0 alone for a
 * property of one parameter): its state and, out of a violation state,
 * its variables */
static void compare_slices(struct diff *d, int round)
{
	const struct vg_spec *sp = d->f.spec;

	for (int prop = 0; prop < sp->nprops; prop++)
		for (uint64_t a = 0; a <= 4; a++)
			for (uint64_t b = 0;
			     b <= (sp->props[prop].nparams > 1 ? 2u : 0u); b++) {
				struct mfound w = mon_slice(d->m, sp, prop,
							    a * 16, b);
				struct vg_kslot *s = kslice(d->f.sh, prop,
							    a * 16, b);
				const struct vg_kprop *kp =
					&kprops_of(d->f.sh)[prop];
				int ks = s ? s->state : 0;

				if (ks != w.state)
					fail_msg("round %d: %s(%#lx, %lu): kernel state %d, monitor %d",
						 round, sp->props[prop].name,
						 (unsigned long)(a * 16),
						 (unsigned long)b, ks, w.state);
				if ((kp->violation_mask >> ks) & 1)
					continue;	/* a tombstone's */
				for (int i = 0; i < w.nvars; i++) {
					int64_t kv = s ? s->vars[i]
						       : kp->init_vars[i];

					if (kv != w.v[i])
						fail_msg("round %d: %s(%#lx, %lu): var %d: kernel %ld, monitor %ld",
							 round,
							 sp->props[prop].name,
							 (unsigned long)(a * 16),
							 (unsigned long)b, i,
							 (long)kv, (long)w.v[i]);
				}
			}
}

/* one event to both; the steps each took must be the same */
static void diff_event(struct diff *d, struct vg_mon_event *ev, int round)
{
	struct vg_err e = { 0 };
	int n0 = nrecs, nk = 0, rc, stopped = 0;
	__u64 kslot[VG_NSLOTS];

	d->f.env.tid = ev->tid;
	d->f.env.now_ns = ev->time_ns = 1000 + (uint64_t)round;
	ev->pid = 4242;
	ev->seq = (uint64_t)round + 1;
	nmcalls = 0;
	if (vg_monitor_event(d->m, ev, &e))
		fail_msg("monitor: %s", e.msg);
	memcpy(kslot, ev->slot, sizeof(kslot));
	rc = vg_inproc_kstep(&d->f.env, &d->f.plan->events[ev->event].conf,
			     (uint32_t)ev->event, kslot,
			     d->f.spec->events[ev->event].kind == VG_EV_BEFORE);
	for (int i = n0; i < nrecs && i < 256; i++) {
		const struct vg_rec_kstep *r = &recs[i];
		const struct mcall *c;
		int prop;

		assert_int_equal(r->h.kind, VG_REC_KSTEP);
		prop = d->f.plan->kt.kprop_map[r->prop];
		if (r->from == r->to)
			continue;
		if (nk >= nmcalls)
			fail_msg("round %d: kernel step %d -> %d the monitor did not take",
				 round, r->from, r->to);
		c = &mcalls[nk++];
		if (c->prop != prop || c->from != r->from || c->to != r->to ||
		    c->p0 != r->key[0] || c->p1 != r->key[1])
			fail_msg("round %d: kernel %d:%d->%d, monitor %d:%d->%d",
				 round, prop, r->from, r->to, c->prop, c->from,
				 c->to);
		d->verdicts += (r->h.flags & VG_RF_VERDICT) != 0;
		stopped |= r->h.flags & VG_RF_STOPPED;
		d->kinds[r->prop] |= 1u << r->to;
	}
	/* stopped when a record says so, and only then */
	assert_int_equal(rc, stopped);
	d->stops += stopped != 0;
	if (nk != nmcalls)
		fail_msg("round %d: the monitor took %d steps, the kernel tier %d",
			 round, nmcalls, nk);
	nrecs = 0;
	/* the table is not emptied by hand: slices in the initial state
	 * stay, as the kernel tier's */
	compare_slices(d, round);
}

static void test_differential(void **state)
{
	static const char *names[] = { "malloc", "use", "free", "lock",
				       "unlock" };
	struct diff d;
	int evs[5];

	diff_init(&d, load(diff_spec));
	evs[0] = event_of(d.f.spec, "malloc", VG_EV_AFTER);
	for (int i = 1; i < 5; i++)
		evs[i] = event_of(d.f.spec, names[i], VG_EV_BEFORE);
	assert_int_equal(d.f.plan->events[evs[2]].conf.nkprops, 2);
	for (int round = 0; round < 20000; round++) {
		int which = (int)rnd(5);
		struct vg_mon_event ev = { .event = evs[which],
					   .tid = 4243 + (uint32_t)rnd(2) };

		ev.slot[0] = rnd(5) * 16;
		ev.slot[1] = which == 1 ? rnd(12) : rnd(3);
		if (which == 0) {	/* malloc(n) returns p, now and then 0 */
			ev.slot[VG_SLOT_RET] = ev.slot[0];
			ev.slot[0] = rnd(10);
			/* and now and then a block never seen, the only way
			 * into `zero` (a reborn slice would only repeat a
			 * violation there) */
			if (!rnd(50))
				ev.slot[VG_SLOT_RET] = 0x10000 + 16 * (uint64_t)round;
		}
		diff_event(&d, &ev, round);
	}
	/* the walk entered every state but the initial one of mem, every
	 * state of locks, violations and stops */
	assert_int_equal(d.kinds[0], 0x7e);
	assert_int_equal(d.kinds[1], 0x7);
	assert_true(d.verdicts > 10);
	assert_true(d.stops > 0);
	diff_free(&d);
}

/* specs/lib/double_free.vigil itself, every allocator it follows */
static void test_differential_double_free(void **state)
{
	static const char *allocs[] = { "malloc", "calloc", "realloc",
					"memalign", "valloc", "pvalloc" };
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };
	struct diff d;
	int evs[7];

	assert_non_null(s);
	if (vg_spec_load_file(s, "specs/lib/double_free.vigil", &e))
		fail_msg("spec: %s", e.msg);
	diff_init(&d, s);
	for (int i = 0; i < 6; i++)
		evs[i] = event_of(s, allocs[i], VG_EV_AFTER);
	evs[6] = event_of(s, "free", VG_EV_BEFORE);
	for (int round = 0; round < 20000; round++) {
		int which = (int)rnd(7);
		struct vg_mon_event ev = { .event = evs[which],
					   .tid = 4243 + (uint32_t)rnd(2) };

		if (which < 6) {	/* returns p, now and then 0 */
			ev.slot[VG_SLOT_RET] = rnd(5) * 16;
			ev.slot[0] = rnd(100);
		} else {
			ev.slot[0] = rnd(5) * 16;
		}
		diff_event(&d, &ev, round);
	}
	/* live, freed, double_free */
	assert_int_equal(d.kinds[0], 0xe);
	assert_true(d.stops > 10);
	diff_free(&d);
}

/* a slice in a violation state that a creating event would take into a
 * violation again (the address handed out again, and again of size 0):
 * absorbed; into a state that is not one: its next life */
static void test_violation_again(void **state)
{
	struct fix f;
	int malloc_ev, zero, live;
	struct vg_kslot *s;
	uint64_t m0[VG_NSLOTS] = { [0] = 0, [VG_SLOT_RET] = 0x40 };
	uint64_t m8[VG_NSLOTS] = { [0] = 8, [VG_SLOT_RET] = 0x40 };

	fix_init(&f, load(diff_spec), 64, 16);
	malloc_ev = event_of(f.spec, "malloc", VG_EV_AFTER);
	zero = state_named(&f.spec->props[0], "zero");
	live = state_named(&f.spec->props[0], "live");
	/* the plan stops at every violation (VG_OV_STOP) */
	assert_int_equal(step(&f, malloc_ev, m0), VG_RF_STOPPED);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].to, zero);
	assert_int_equal(recs[0].h.flags, VG_RF_VERDICT | VG_RF_STOPPED);
	assert_non_null(s = kslice(f.sh, 0, 0x40, 0));
	assert_int_equal(step(&f, malloc_ev, m0), 0);
	assert_int_equal(nrecs, 1);
	assert_int_equal(s->state, zero);
	step(&f, malloc_ev, m8);
	assert_int_equal(nrecs, 2);
	assert_int_equal(recs[1].from, 0);
	assert_int_equal(recs[1].to, live);
	assert_int_equal(s->vars[0], 8);
	fix_free(&f);
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
	assert_int_equal(f.sh->kslot_count, NKEYS);
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
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_claimed_wait),
		cmocka_unit_test(test_guards_updates),
		cmocka_unit_test(test_err_unsupported),
		cmocka_unit_test(test_violation_again),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_differential_double_free),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
