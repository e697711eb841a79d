/* The records' way to the session: the BPF ring's, and the second
 * source's (the in-process tier's ring, user/fast/), delivered in one
 * order, by time; and what the second source is told (the tables the
 * probes read of it). */
#include "probe_internal.h"
#include "watch.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vigil.skel.h"

static int deliver(void *ctx, void *data, size_t size);

#define DRAIN_ROUNDS 128	/* of the second source's batches, a pass */

/* The in-process tier's records of this drain (p->pend: each a size_t
 * length, then the record, 8-byte aligned) up to time `until`, first:
 * two rings, one order of events (a slice's malloc in-process before its
 * free by uprobe) */
static int deliver_pending(struct vg_probe *p, uint64_t until)
{
	while (p->pend.at < p->pend.len) {
		size_t n;
		struct vg_rec_hdr *h;

		memcpy(&n, p->pend.buf + p->pend.at, sizeof(n));
		h = (struct vg_rec_hdr *)(p->pend.buf + p->pend.at + 8);
		if (n >= sizeof(*h) && h->time_ns > until)
			break;
		p->pend.at += 8 + ((n + 7) & ~(size_t)7);
		if (deliver(p, h, n))
			return -1;
	}
	return 0;
}

static int keep_pending(void *ctx, void *data, size_t size)
{
	struct vg_probe *p = ctx;
	size_t need = p->pend.len + 8 + ((size + 7) & ~(size_t)7);

	if (need > p->pend.cap) {
		size_t cap = p->pend.cap ? p->pend.cap : 1 << 16;
		uint8_t *b;

		while (cap < need)
			cap *= 2;
		if (!(b = realloc(p->pend.buf, cap)))
			return -1;
		p->pend.buf = b;
		p->pend.cap = cap;
	}
	memcpy(p->pend.buf + p->pend.len, &size, sizeof(size));
	memcpy(p->pend.buf + p->pend.len + 8, data, size);
	p->pend.len = need;
	if (size >= sizeof(struct vg_rec_hdr))
		p->pend.last_ns = ((struct vg_rec_hdr *)data)->time_ns;
	return 0;
}

int vg_probe_on_record(void *ctx, void *data, size_t size)
{
	struct vg_probe *p = ctx;

	/* What happened before this record in-process may have reached
	 * that ring after it was drained for this pass: a block's malloc
	 * in the agent, then the program's write to it, seen by a
	 * watchpoint (a use after free only if the malloc came later); a
	 * fork, whose followed child's monitor is a copy of its parent's
	 * made now. Drained again first, batch after batch until past this
	 * record's time (the agent may be far ahead of vigil), and
	 * delivered in time order (a failure leaves them for the next pass,
	 * as before). One load of the ring's head when nothing is new. */
	if (size >= sizeof(struct vg_rec_hdr) && p->src.drain) {
		uint64_t t = ((struct vg_rec_hdr *)data)->time_ns;

		/* a record another thread is writing may stand before one
		 * that came earlier than this (a mutex unlocked in-process,
		 * then its thread's exit here): waited for, briefly */
		do {
			while (p->src.drain(p->src.ctx, keep_pending, p) > 0 &&
			       p->pend.last_ns <= t)
				;
		} while (p->pend.last_ns <= t && p->src.settle &&
			 p->src.settle(p->src.ctx));
	}
	if (size >= sizeof(struct vg_rec_hdr) && p->pend.at < p->pend.len &&
	    deliver_pending(p, ((struct vg_rec_hdr *)data)->time_ns)) {
		p->cb_failed = 1;
		return -1;
	}
	return deliver(p, data, size);
}

static int deliver(void *ctx, void *data, size_t size)
{
	struct vg_probe *p = ctx;
	struct vg_probe_rec r = { .h = data };
	struct vg_rec_event full;

	if (size < sizeof(*r.h))
		return 0;
	if (r.h->kind == VG_REC_EVENT) {
		/* the probe sent the slots its event uses (rec_slots): the
		 * others read as 0 */
		if (size >= sizeof(*r.ev)) {
			r.ev = data;
		} else {
			memcpy(&full, data, size);
			memset((char *)&full + size, 0, sizeof(full) - size);
			r.ev = &full;
		}
		if (size >= sizeof(*r.strs))
			r.strs = data;
	} else if (r.h->kind == VG_REC_STACK) {
		/* the probe layer's own: the stack an event record after it
		 * names */
		if (size >= sizeof(struct vg_rec_stack))
			vg_probe_keep_stack(p, data);
		return 0;
	} else if (r.h->kind == VG_REC_PROC && size >= sizeof(*r.proc)) {
		r.proc = data;
	} else if (r.h->kind != VG_REC_EVENT && size >= sizeof(*r.ks)) {
		r.ks = data;
	} else {
		return 0;
	}
	if (p->cb(p->cb_ctx, &r)) {
		p->cb_failed = 1;
		return -1;	/* stops ring_buffer__consume */
	}
	return 0;
}

static int drain_rounds(struct vg_probe *p, vg_probe_cb cb, void *ctx,
			struct vg_err *e)
{
	int n, m, total = 0;

	p->cb = cb;
	p->cb_ctx = ctx;
	p->cb_failed = 0;
	/* the in-process tier's records first copied out, a batch at a
	 * time (its producers wait while it is full: they see room after
	 * each batch, not after all of them are handled), then each
	 * delivered before the first BPF record that is later. Batches
	 * until it is empty; DRAIN_ROUNDS bounds a pass against a target
	 * that records as fast as vigil reads. */
	for (int round = 0; round < DRAIN_ROUNDS; round++) {
		p->pend.len = p->pend.at = 0;
		p->pend.last_ns = 0;
		n = p->src.drain ? p->src.drain(p->src.ctx, keep_pending, p)
				 : 0;
		if (n < 0)
			return vg_errf(e, "reading the in-process tier's ring");
		m = ring_buffer__consume(p->rb);
		if (!p->cb_failed && m >= 0 &&
		    deliver_pending(p, UINT64_MAX))
			p->cb_failed = 1;
		if (p->cb_failed)
			return -1;	/* cb filled e */
		if (m < 0)
			return vg_errf(e, "reading the ring buffer: %s",
				       strerror(-m));
		total += n + m;
		/* (none taken: the next is being written) */
		if (!n || !p->src.waiting || !p->src.waiting(p->src.ctx))
			break;
	}
	return total;
}

/* A watchpoint deleted while the records are handled is parked for an
 * arming later in the drain to move (probe_watch.c); none outlives it */
int vg_probe_drain(struct vg_probe *p, vg_probe_cb cb, void *ctx,
		   struct vg_err *e)
{
	int rc;

	p->draining = true;
	rc = drain_rounds(p, cb, ctx, e);
	p->draining = false;
	vg_probe_wp_flush(p);
	vg_watch_far();	/* the moves are made: the armer sleeps */
	return rc;
}

void vg_probe_set_source(struct vg_probe *p, const struct vg_probe_source *s)
{
	p->src = *s;
}

void vg_probe_fast_released(struct vg_probe *p, uint64_t at)
{
	if (p && p->skel && p->skel->bss)
		__atomic_store_n(&p->skel->bss->fast_released, at,
				 __ATOMIC_RELEASE);
}

void vg_probe_fast_inside(struct vg_probe *p, uint64_t table, uint32_t mask,
			  uint32_t depths)
{
	if (!p || !p->skel || !p->skel->bss)
		return;
	/* the table before the depths: a probe that sees the depths sees
	 * where to read them */
	p->skel->bss->fast_threads_mask = mask;
	__atomic_store_n(&p->skel->bss->fast_threads, table, __ATOMIC_RELEASE);
	__atomic_store_n(&p->skel->bss->fast_inside, table ? depths : 0,
			 __ATOMIC_RELEASE);
}

