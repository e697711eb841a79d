/* The in-process tier's ring and counts as the probe module's second
 * source (probe/probe.h's vg_probe_source): its records delivered with
 * the BPF ring's, its counts added to the probes'. */
#include "fast_run.h"

#include "fast/ring.h"
#include "probe/probe.h"

/* The probe module's second source (probe.h): the ring's records, as
 * the BPF ring's, counted */
struct feed {
	int (*deliver)(void *, void *, size_t);
	void *dctx;
	int n;
};

static int feed_one(void *ctx, const void *rec, size_t len)
{
	struct feed *d = ctx;

	d->n++;
	return d->deliver(d->dctx, (void *)rec, len);
}

static int drain(void *ctx, int (*deliver)(void *, void *, size_t),
		 void *dctx)
{
	struct vg_fast_run *f = ctx;
	struct feed d = { deliver, dctx, 0 };

	if (vg_fast_ring_consume(f->sh, f->sh, feed_one, &d))
		return -1;
	return d.n;
}

static bool settle(void *ctx)
{
	struct vg_fast_run *f = ctx;

	return f->sh && vg_fast_ring_settle(f->sh, f->sh, &f->settled);
}

static bool waiting(void *ctx)
{
	struct vg_fast_shared *sh = ((struct vg_fast_run *)ctx)->sh;

	return sh && __atomic_load_n(&sh->head, __ATOMIC_ACQUIRE) != sh->tail;
}

static void counts(void *ctx, int event, uint64_t *hits, uint64_t *lost)
{
	struct vg_fast_run *f = ctx;

	if (event >= 0 && event < VG_MAX_EVENTS) {
		*hits = __atomic_load_n(&f->sh->ev_hits[event], __ATOMIC_RELAXED);
		*lost = __atomic_load_n(&f->sh->ev_lost[event], __ATOMIC_RELAXED);
	}
}

/* The threads waiting in a hold for a record before ring position `to`
 * go on (inproc/ring.c, vg_hold_wait): hold_ack moves there (never
 * back), then hold_gen, and the sleepers are woken. */
void vg_fast_holds_done(struct vg_fast_shared *sh, uint64_t to)
{
	uint64_t ack = __atomic_load_n(&sh->hold_ack, __ATOMIC_RELAXED);

	if ((int64_t)(to - ack) <= 0)
		return;
	__atomic_store_n(&sh->hold_cpu, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->hold_ack, to, __ATOMIC_RELEASE);
	__atomic_fetch_add(&sh->hold_gen, 1, __ATOMIC_ACQ_REL);
	if (__atomic_load_n(&sh->hold_waiters, __ATOMIC_ACQUIRE))
		vg_fast_wake_all(&sh->hold_gen);
}

static uint64_t counter(void *ctx, int c)
{
	struct vg_fast_run *f = ctx;
	const __u64 *n = f->sh->cnt;

	switch (c) {
	case VG_CNT_KFULL:
		return n[VG_FCNT_KFULL];
	case VG_CNT_KBUSY:
		return n[VG_FCNT_KBUSY];
	case VG_CNT_KERR:
		return n[VG_FCNT_KERR];
	case VG_CNT_CAPFAULT:
		return n[VG_FCNT_CAPFAULT];
	case VG_CNT_RB_LOST:
		return n[VG_FCNT_LOST];
	}
	return 0;
}

/* The addresses armed, for the agent's release count (inproc/event.c):
 * a compact array, the last entry moved into a hole. The agent may read
 * it mid-change and miss an address: a release not counted, a hold
 * skipped, a slice armed late and inconclusive (vigil_fast.h). */
static void armed(void *ctx, uint64_t addr, bool on)
{
	struct vg_fast_shared *sh = ((struct vg_fast_run *)ctx)->sh;
	uint32_t n, i;

	if (!sh)
		return;
	n = sh->narmed;
	for (i = 0; i < n && sh->armed[i] != addr; i++)
		;
	/* armed again: a hit there is the program's use after free, not
	 * its new block's (bpf/released.bpf.h) */
	for (uint32_t k = 0; on && k < VG_FAST_RELEASED; k++)
		__atomic_compare_exchange_n(&sh->released[k], &(__u64){ addr },
					    0, false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	if (on && i == n && n < VG_FAST_ARMED) {
		__atomic_store_n(&sh->armed[n], addr, __ATOMIC_RELAXED);
		__atomic_store_n(&sh->narmed, n + 1, __ATOMIC_RELEASE);
	} else if (!on && i < n) {
		__atomic_store_n(&sh->armed[i], sh->armed[n - 1],
				 __ATOMIC_RELAXED);
		__atomic_store_n(&sh->narmed, n - 1, __ATOMIC_RELEASE);
		sh->armed[n - 1] = 0;
	}
}

static void futile(void *ctx, uint64_t releases)
{
	struct vg_fast_shared *sh = ((struct vg_fast_run *)ctx)->sh;

	if (sh)
		__atomic_store_n(&sh->futile_at, releases, __ATOMIC_RELEASE);
}

static void holds_done(void *ctx)
{
	struct vg_fast_run *f = ctx;

	if (f->sh)
		vg_fast_holds_done(f->sh, f->sh->tail);
}

static int hold_cpu(void *ctx)
{
	struct vg_fast_shared *sh = ((struct vg_fast_run *)ctx)->sh;

	return sh ? (int)__atomic_load_n(&sh->hold_cpu, __ATOMIC_RELAXED) - 1
		  : -1;
}

static void kunknown(void *ctx, int k, uint64_t *n, uint64_t *kept)
{
	struct vg_fast_shared *sh = ((struct vg_fast_run *)ctx)->sh;

	if (!sh || k < 0 || k >= VG_KMAX_PROPS)
		return;
	*n = __atomic_load_n(&sh->kunknown[k], __ATOMIC_RELAXED);
	*kept = __atomic_load_n(&sh->kunknown_kept[k], __ATOMIC_RELAXED);
}

static struct vg_objmap *objmap(void *ctx)
{
	return vg_fast_objmap(((struct vg_fast_run *)ctx)->sh);
}

static bool files(void *ctx, int event)
{
	struct vg_fast_run *f = ctx;

	return f->sh && f->sh->objmap_off && event >= 0 &&
	       event < VG_MAX_EVENTS &&
	       (f->om_filed[event / 64] >> (event % 64) & 1);
}

void vg_fast_source_set(struct vg_fast_run *f)
{
	vg_probe_set_source(f->probe, &(struct vg_probe_source){
		.drain = drain, .waiting = waiting, .settle = settle,
		.counts = counts, .counter = counter,
		.armed = armed, .futile = futile, .holds_done = holds_done,
		.hold_cpu = hold_cpu,
		.kunknown = kunknown,
		.objmap = objmap, .files = files, .ctx = f });
}
