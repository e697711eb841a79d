/* The in-process tier's step (inproc/kstep.c) against the user tier's
 * monitor (user/monitor/): the same random events to both, on the same
 * spec, must take the same transitions and leave the same slices; and a
 * violation that would only repeat itself, which the random walks meet
 * rarely. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "inproc_fixture.h"
#include "monitor/monitor.h"

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
	assert_int_equal(recs[0].h.flags,
			 VG_RF_VERDICT | VG_RF_STOPPED | VG_RF_INPROC);
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
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_violation_again),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_differential_double_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
