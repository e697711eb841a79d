/* The producer side of the ring vigil reads (user/fast/ring.c): many
 * target threads at once, never waiting for vigil. A record is reserved
 * by moving head with a CAS, checked against tail first (full: the record
 * is dropped and counted, the target goes on), written, then published by
 * a release store of its state. A record never wraps: the rest of the ring
 * is taken by a VG_FAST_PAD record first. */
#include "agent.h"

/* Writes rec (len bytes, the record after its header) for event. 0, or -1
 * when the ring is full. */
VG_HIDDEN int vg_ring_write(struct vg_fast_shared *sh, __u32 event,
			    const void *rec, __u32 len)
{
	__u64 size = sh->ring_size, mask = size - 1, h, pad, need;
	__u32 total = (sizeof(struct vg_fast_rec) + len + 7) & ~7u;
	char *ring = vg_at(sh, sh->ring_off);
	struct vg_fast_rec *r;

	h = __atomic_load_n(&sh->head, __ATOMIC_RELAXED);
	for (;;) {
		__u64 t = __atomic_load_n(&sh->tail, __ATOMIC_ACQUIRE);
		__u64 to_end = size - (h & mask);

		if ((__s64)(h - t) < 0) {
			/* h is stale (the consumer read past it since): the
			 * CAS would fail, and the check below be wrong */
			h = __atomic_load_n(&sh->head, __ATOMIC_RELAXED);
			continue;
		}
		pad = total > to_end ? to_end : 0;
		need = pad + total;
		if (total > size || h + need - t > size) {
			vg_count(sh, VG_FCNT_LOST);
			if (event < VG_MAX_EVENTS)
				__atomic_fetch_add(&sh->ev_lost[event], 1,
						   __ATOMIC_RELAXED);
			return -1;
		}
		if (__atomic_compare_exchange_n(&sh->head, &h, h + need, 1,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;	/* else h is the head now: again */
	}
	if (pad) {
		r = (struct vg_fast_rec *)(ring + (h & mask));
		r->len = (__u32)pad;
		__atomic_store_n(&r->state, VG_FAST_PAD, __ATOMIC_RELEASE);
		h += pad;
	}
	r = (struct vg_fast_rec *)(ring + (h & mask));
	/* the length first: a consumer that waits too long on this record
	 * skips it by its length (user/fast/ring.c) */
	__atomic_store_n(&r->len, total, __ATOMIC_RELAXED);
	vg_memcpy(r + 1, rec, len);
	__atomic_store_n(&r->state, VG_FAST_DONE, __ATOMIC_RELEASE);
	return 0;
}
