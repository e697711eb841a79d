/* The consumer of the in-process tier's ring (the producers are the
 * agent's threads in the target, inproc/ring.c). What it consumed it
 * zeroes before moving tail on: a producer writes a record's header after
 * reserving it, so a reserved record must read as BUSY (0) until then,
 * wherever in old records its header falls. */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "fast/ring.h"

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/* The record at tail has been BUSY since a call before: past
 * VG_FAST_STUCK_NS (a producer that never finishes: a thread killed, or
 * a signal handler that longjmp'd out of the agent) it is skipped, when
 * its length is known. 1: skip it. */
static int stuck(struct vg_fast_shared *sh, __u64 t, __u32 len)
{
	__u64 now = mono_ns();

	if (sh->stuck_at != t + 1) {	/* + 1: 0 is "none" */
		sh->stuck_at = t + 1;
		sh->stuck_ns = now;
		return 0;
	}
	if (now - sh->stuck_ns < VG_FAST_STUCK_NS || !len)
		return 0;
	sh->stuck_at = 0;
	__atomic_fetch_add(&sh->cnt[VG_FCNT_STUCK], 1, __ATOMIC_RELAXED);
	return 1;
}

bool vg_fast_ring_settle(struct vg_fast_shared *sh, void *base,
			 __u64 *waited)
{
	__u64 t = sh->tail, start = mono_ns();
	struct vg_fast_rec *r = (struct vg_fast_rec *)
		((char *)base + sh->ring_off + (t & (sh->ring_size - 1)));

	/* a record that stayed BUSY through one wait (its writer stopped or
	 * killed) is left to stuck(): no wait again per record */
	if (t == __atomic_load_n(&sh->head, __ATOMIC_ACQUIRE) ||
	    *waited == t + 1)
		return false;
	*waited = t + 1;
	while (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == VG_FAST_BUSY) {
		if (mono_ns() - start > VG_FAST_BUSY_WAIT_NS)
			return false;
		sched_yield();
	}
	return true;
}

int vg_fast_ring_consume(struct vg_fast_shared *sh, void *base,
			 int (*fn)(void *ctx, const void *rec, size_t len),
			 void *ctx)
{
	__u64 mask = sh->ring_size - 1, t = sh->tail;
	__u64 h = __atomic_load_n(&sh->head, __ATOMIC_ACQUIRE);
	char *ring = (char *)base + sh->ring_off;
	int ret = 0;

	for (int n = 0; t < h && !ret && n < VG_FAST_BATCH; n++) {
		struct vg_fast_rec *r = (struct vg_fast_rec *)(ring + (t & mask));
		__u32 state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		__u32 len = r->len;

		if (len > sh->ring_size - (t & mask) || (len & 7))
			len = 0;	/* not written yet, or garbage */
		if (state == VG_FAST_BUSY || !len) {
			if (!stuck(sh, t, len))
				break;
		} else if (state == VG_FAST_DONE) {
			ret = fn(ctx, r + 1, len - sizeof(*r));
		}
		if (sh->stuck_at == t + 1)
			sh->stuck_at = 0;
		memset(r, 0, len);
		t += len;
		__atomic_store_n(&sh->tail, t, __ATOMIC_RELEASE);
	}
	return ret;
}
