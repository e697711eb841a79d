/* What the agent's files share (inproc/: code that runs inside the
 * target, freestanding: no libc, raw system calls, no writable data of
 * its own; its state is in the region vigil maps, vigil_fast.h). */
#ifndef VG_INPROC_AGENT_H
#define VG_INPROC_AGENT_H

#include "vigil_fast.h"

#define VG_HIDDEN __attribute__((visibility("hidden")))

/* the kernel-tier step: inproc/kstep.c, or kstep_stub.c's weak one
 * until it is linked in */
#include "kstep.h"

/* sys.c */
long vg_sys6(long nr, long a, long b, long c, long d, long e, long f);
int vg_read_mem(const struct vg_fast_shared *sh, void *dst, __u64 src,
		__u64 n);
void vg_kill_thread(__u32 tgid, __u32 tid, int sig);
int vg_thread_gone(__u32 tgid, __u32 tid);
void vg_yield(void);
void vg_futex_wait(__u32 *word, __u32 val, __u64 ns);
void vg_futex_wake(__u32 *word);

/* takeback.c: vigil gone, this process's patches taken back when that
 * is safe (its comment says when); tried again later when not yet */
void vg_take_back(struct vg_fast_shared *sh);

/* event.c: CLOCK_MONOTONIC, from the target's vDSO (0: none) */
__u64 vg_now_ns(struct vg_fast_shared *sh);

/* ring.c (the producer). *end, when not NULL: the ring's position past
 * the record written, for vg_hold_wait */
int vg_ring_write(struct vg_fast_shared *sh, __u32 event, const void *rec,
		  __u32 len, __u64 *end);
void vg_hold_wait(struct vg_fast_shared *sh, __u64 end);

static inline void vg_count(struct vg_fast_shared *sh, int c)
{
	__atomic_fetch_add(&sh->cnt[c], 1, __ATOMIC_RELAXED);
}

static inline void *vg_at(struct vg_fast_shared *sh, __u64 off)
{
	return (char *)sh + off;
}

/* Does vigil still hold the robust mutex in the region? The kernel marks
 * its owner word (FUTEX_OWNER_DIED) when vigil dies; vigil clears it when
 * it lets the process go. */
static inline int vg_owner_alive(struct vg_fast_shared *sh)
{
	__u32 w = __atomic_load_n((__u32 *)vg_at(sh, sh->owner_off),
				  __ATOMIC_RELAXED);

	return (w & 0x3fffffffu /* FUTEX_TID_MASK */) &&
	       !(w & 0x40000000u /* FUTEX_OWNER_DIED */);
}

/* This process's tgid, as the agent's live() found it: the target's, or
 * a followed child's own (vigil_fast.h, struct vg_fast_threads_hdr) */
static inline __u32 vg_me(struct vg_fast_shared *sh)
{
	return ((struct vg_fast_threads_hdr *)vg_at(sh, sh->threads_off))->tgid;
}

/* No call to memset: there is none. Volatile stores keep the compiler
 * from making one, a word at a time: a byte loop over an event's slots
 * was 5 % of a six-spec run of allocs_bench, at every entry and return. */
static inline void vg_memset(void *d, int c, __u64 n)
{
	volatile __u64 *q = d;
	volatile char *p;
	__u64 w = (__u64)(__u8)c * 0x0101010101010101ull;

	for (; !((unsigned long)q & 7) && n >= 8; n -= 8)
		*q++ = w;
	for (p = (volatile char *)q; n; n--)
		*p++ = (char)c;
}

static inline void vg_memcpy(void *d, const void *s, __u64 n)
{
	__u64 *dq = d;
	const __u64 *sq = s;

	for (; n >= 8; n -= 8)	/* callers copy whole slots */
		*dq++ = *sq++;
	for (char *db = (char *)dq, *sb = (char *)sq; n; n--)
		*db++ = *sb++;
}

#endif
