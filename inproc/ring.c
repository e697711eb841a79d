/* The producer side of the ring vigil reads (user/fast/ring.c): many
 * target threads at once. A record is reserved by moving head with a CAS,
 * checked against tail first, written, then published by a release store
 * of its state. A record never wraps: the rest of the ring is taken by a
 * VG_FAST_PAD record first.
 *
 * A full ring: the thread waits for room while vigil makes some (its
 * tail moves). A program that allocates in a tight loop makes records
 * faster than vigil's user tier takes them, and dropping them would leave
 * its verdicts inconclusive; a uprobe's trap slowed it to vigil's pace
 * anyway. vigil takes the ring a batch at a time (VG_FAST_BATCH records,
 * user/fast/ring.c), so its tail moves every few milliseconds while it
 * reads. When it makes no room for VG_RING_PATIENCE_NS (vigil stuck,
 * stopped, or gone), the record is dropped and counted, and every thread
 * drops without waiting until the ring is half empty again (no_wait): a
 * vigil that does not read costs the target one such wait, not one per
 * record.
 *
 * A record that asks vigil to arm a watchpoint before the thread goes on
 * (VG_RF_ARMSTOP) is waited for here too: vg_hold_wait. */
#include "agent.h"

#define VG_RING_PATIENCE_NS 100000000ull	/* 100 ms */

/* Wait for vigil to move tail past t. 1: it did; 0: it made no room in
 * time (no_wait is set) */
static int wait_room(struct vg_fast_shared *sh, __u64 t)
{
	__u64 start = vg_now_ns(sh), now = start;

	vg_count(sh, VG_FCNT_WAITED);
	while (now && now - start < VG_RING_PATIENCE_NS) {
		vg_yield();
		now = vg_now_ns(sh);
		if (__atomic_load_n(&sh->tail, __ATOMIC_ACQUIRE) != t)
			break;
	}
	if (now > start)
		__atomic_fetch_add(&sh->cnt[VG_FCNT_WAITED_NS], now - start,
				   __ATOMIC_RELAXED);
	if (__atomic_load_n(&sh->tail, __ATOMIC_ACQUIRE) != t)
		return 1;
	__atomic_store_n(&sh->no_wait, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Writes rec (len bytes, the record after its header) for event. 0, or -1
 * when the ring is full. */
VG_HIDDEN int vg_ring_write(struct vg_fast_shared *sh, __u32 event,
			    const void *rec, __u32 len, __u64 *end)
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
		if (__atomic_load_n(&sh->no_wait, __ATOMIC_RELAXED) &&
		    h - t <= size / 2)
			__atomic_store_n(&sh->no_wait, 0, __ATOMIC_RELAXED);
		if (total <= size && h + need - t > size &&
		    !__atomic_load_n(&sh->no_wait, __ATOMIC_RELAXED) &&
		    wait_room(sh, t)) {
			h = __atomic_load_n(&sh->head, __ATOMIC_RELAXED);
			continue;
		}
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
	if (end)
		*end = h + total;
	return 0;
}

#define VG_HOLD_CHECK_NS 10000000ull	/* vigil there? every 10 ms */
/* A hold is over in a few hundred microseconds, and vigil's arming sends
 * an IPI to the CPU this thread last ran on: one that runs it takes the
 * IPI at once, an idle one must first be woken (in a guest, by the
 * hypervisor); and vigil's thread pinned there (user/probe/watch_near.c)
 * runs as soon as this one yields. So the thread stays on its CPU a
 * while before it sleeps. */
#define VG_HOLD_SPIN_NS 1000000ull

/* vigil has made the holds of the ring up to end */
static int acked(struct vg_fast_shared *sh, __u64 end)
{
	return (__s64)(__atomic_load_n(&sh->hold_ack, __ATOMIC_ACQUIRE) -
		       end) >= 0;
}

/* The CPU this thread runs on, as the vDSO's getcpu reads it: the limit
 * of the segment Linux keeps per CPU (__CPUNODE_SEG, the low 12 bits);
 * ~0u where there is no such segment (LSL then leaves it as it was) */
static __u32 this_cpu(void)
{
	__u32 p = ~0u;

	__asm__ volatile("lsl %1, %0" : "+r"(p) : "r"(0x7bu) : "cc");
	return p == ~0u ? p : p & 0xfff;
}

/* A hold (VG_RF_ARMSTOP): this thread waits until vigil has handled the
 * ring up to end, its own record the last, and armed in every thread the
 * watchpoints those records asked for (hold_ack, vigil_fast.h). Only
 * this thread waits: the watchpoint is for its next instructions. (A
 * SIGSTOP of the whole process, as a probe's hold is, cost the program
 * its stop and its continue, and vigil a wait for the stop to land, at
 * every hold.) gen is read before ack: an ack after it changes gen, and
 * the futex then does not sleep. vigil gone, or letting the process go:
 * the thread goes on, as every call does then. */
VG_HIDDEN void vg_hold_wait(struct vg_fast_shared *sh, __u64 end)
{
	__u64 start, now;
	__u32 cpu = this_cpu();

	/* where this thread waits, for vigil to arm from there (its
	 * breakpoint calls run on this CPU whatever vigil's: an IPI each) */
	__atomic_store_n(&sh->hold_cpu, cpu == ~0u ? 0 : cpu + 1,
			 __ATOMIC_RELAXED);
	/* vigil polls the ring: told at once of a hold (the order of the
	 * two makes either this wake or the waker's look see the other) */
	__atomic_fetch_add(&sh->hold_req, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sh->waker_sleeps, __ATOMIC_SEQ_CST))
		vg_futex_wake(&sh->hold_req);
	for (start = now = vg_now_ns(sh);
	     now && now - start < VG_HOLD_SPIN_NS; now = vg_now_ns(sh)) {
		if (acked(sh, end))
			return;
		vg_yield();
	}
	for (;;) {
		__u32 gen = __atomic_load_n(&sh->hold_gen, __ATOMIC_ACQUIRE);

		if (acked(sh, end) ||
		    !__atomic_load_n(&sh->enabled, __ATOMIC_ACQUIRE) ||
		    !vg_owner_alive(sh))
			return;
		__atomic_fetch_add(&sh->hold_waiters, 1, __ATOMIC_ACQ_REL);
		vg_futex_wait(&sh->hold_gen, gen, VG_HOLD_CHECK_NS);
		__atomic_fetch_sub(&sh->hold_waiters, 1, __ATOMIC_ACQ_REL);
	}
}
