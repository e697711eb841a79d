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

static void counts(void *ctx, int event, uint64_t *hits, uint64_t *lost)
{
	struct vg_fast_run *f = ctx;

	if (event >= 0 && event < VG_MAX_EVENTS) {
		*hits = __atomic_load_n(&f->sh->ev_hits[event], __ATOMIC_RELAXED);
		*lost = __atomic_load_n(&f->sh->ev_lost[event], __ATOMIC_RELAXED);
	}
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

void vg_fast_source_set(struct vg_fast_run *f)
{
	vg_probe_set_source(f->probe, &(struct vg_probe_source){
		.drain = drain, .counts = counts, .counter = counter, .ctx = f });
}
