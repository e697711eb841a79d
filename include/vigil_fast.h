/* The in-process tier: what vigil and the agent it puts inside the target
 * share (inproc/agent.c runs in the target; user/fast/ is vigil's side).
 *
 * vigil maps one region into the target (a memfd, MAP_SHARED, mapped by
 * vigil too): this header's struct vg_fast_shared at its start, then the
 * kernel-tier tables the agent steps, its slice table and the ring of
 * records; the per-thread table follows in a private mapping of its own
 * (struct vg_fast_threads_hdr, below). Offsets, not pointers: the two processes
 * map it at different addresses. The agent's code sits in a second
 * mapping, read and execute, near the patched libraries (a patch is a
 * 5-byte jmp rel32); its first 8 bytes hold the region's address in the
 * target.
 *
 * Records in the ring have the layouts of the BPF ring's
 * (include/vigil_event.h: VG_REC_EVENT, VG_REC_KSTEP, VG_REC_KFULL,
 * VG_REC_KBUSY), each behind a struct vg_fast_rec header.
 */
#ifndef VIGIL_FAST_H
#define VIGIL_FAST_H

#include "vigil_event.h"

#define VG_FAST_MAGIC 0x76676661u	/* "vgfa" */
#define VG_FAST_VERSION 7
#define VG_FAST_MAX_HOOKS 64		/* patched functions in one run */
#define VG_FAST_SHADOW 64		/* return frames kept per thread */
#define VG_FAST_THREADS 4096		/* per-thread table (power of 2) */
#define VG_FAST_BATCH 8192		/* records vigil takes at a time:
					 * the ring's tail moves between
					 * batches (inproc/ring.c) */
#define VG_FAST_ARMED 64		/* armed watchpoint addresses (as the
					 * BPF armed_addrs) */
#define VG_FAST_RELEASED 8		/* released addresses remembered */

/* One patched function. The entry stub calls the agent with the hook's
 * index; the agent handles its entry events, hijacks the return address
 * when it has return events (or counts an `outside` depth there), and
 * the stub goes on at `reloc`, the relocated first instructions, which
 * jump back to fn + patch_len. A function may carry several events (two
 * properties asking different things of it), each an index of the plan's
 * event table, as a uprobe site's cookie. */
#define VG_FAST_HOOK_EVENTS 4
struct vg_fast_hook {
	__u64 fn;		/* the function's address in the target */
	__u64 reloc;		/* its relocated first instructions */
	__u64 ret_stub;		/* the return stub of this hook (0: none) */
	__u16 entry_ev[VG_FAST_HOOK_EVENTS];
	__u16 ret_ev[VG_FAST_HOOK_EVENTS];
	__u8 nentry, nret;
	__u8 ret_args;		/* its return events read arguments (the
				 * BPF side's stash site): saved at entry */
	__u8 pad;
	__u32 patch_len;
	__u64 hits;		/* calls seen (entry), for vigil's counters */
	/* [fn, fn + patch_len) before and after the patch: the agent
	 * writes orig back when vigil is gone (inproc/takeback.c), if the
	 * bytes there are still `patch` */
	__u8 orig[16];
	__u8 patch[16];
};

/* Ring record header: len counts the header and is a multiple of 8;
 * state says whether the record is written yet. A record never wraps:
 * the producer pads to the ring's end first (VG_FAST_PAD). */
enum { VG_FAST_BUSY = 0, VG_FAST_DONE = 1, VG_FAST_PAD = 2 };
struct vg_fast_rec {
	__u32 len;
	__u32 state;
};

/* Counters the agent keeps (vigil reads them in place) */
enum vg_fast_cnt {
	VG_FCNT_LOST,		/* ring full: a record dropped */
	VG_FCNT_REENTER,	/* called again inside the agent (a signal
				 * handler's call): not recorded */
	VG_FCNT_SHADOW,		/* return frames past VG_FAST_SHADOW: the
				 * return not seen */
	VG_FCNT_THREADS,	/* per-thread table full */
	VG_FCNT_CAPFAULT,	/* a capture's read failed */
	VG_FCNT_KFULL,		/* slice table full */
	VG_FCNT_KBUSY,		/* slice lock not taken in time */
	VG_FCNT_KERR,		/* bytecode error */
	VG_FCNT_ORPHAN,		/* records not written: vigil gone */
	VG_FCNT_KUNSUP,		/* a property with what this tier does not
				 * do (inproc/kstep.h): never, the plan
				 * keeps them in the kernel */
	VG_FCNT_STUCK,		/* records the consumer skipped: BUSY for
				 * more than a second (user/fast/ring.c) */
	VG_FCNT_WAITED,		/* ring full: a thread waited for room
				 * (inproc/ring.c) */
	VG_FCNT_NOFRAME,	/* a return with no frame of its own: cannot
				 * happen by design (but a stack switched
				 * under the agent); the target gets a
				 * SIGSEGV there */
	VG_FCNT_WAITED_NS,	/* how long those waits for room took */
	VG_FCNT_N
};

/* What an event does to the object map the agent keeps (include/
 * vigil_objmap.h) for the memory predicates of the kernel-tier properties
 * it steps: vigil fills one per event (user/fast/fast_objmap.c) from the
 * allocator table of user/objmap/allocs.c, so that both tiers follow the
 * same calls. Positions are slots (VG_SLOT_*, VG_SLOT_CAP0 + k); 0xff:
 * none. */
enum vg_omev_role {
	VG_OMEV_NONE,
	VG_OMEV_ALLOC,		/* the block is the return value; its length
				 * slot[size1] (* slot[size2]) */
	VG_OMEV_STRDUP,		/* the return value, its length the string's
				 * there + 1 (strdup, strndup) */
	VG_OMEV_OUT,		/* the block at slot[ptr] (posix_memalign's
				 * `*p` capture) when the call returned 0 */
	VG_OMEV_REALLOC,	/* the old block slot[ptr] freed at the entry
				 * (before the call can give it out again),
				 * taken back if the call failed; the new one
				 * filed at the return as VG_OMEV_ALLOC */
	VG_OMEV_FREE,		/* slot[ptr] freed (at the entry) */
	/* the program's own allocator (`$alloc`, `$release`): a pool's
	 * block, VG_OM_POOL, as VG_OMEV_ALLOC and VG_OMEV_FREE */
	VG_OMEV_POOL,
	VG_OMEV_POOL_FREE,
};
#define VG_OMEV_NOSLOT 0xff
struct vg_fast_omev {
	__u8 role, ptr, size1, size2;
};

/* does an event of this role file a live block (its length, its event as
 * the site)? */
static inline int vg_omev_files(__u32 role)
{
	return role == VG_OMEV_ALLOC || role == VG_OMEV_STRDUP ||
	       role == VG_OMEV_OUT || role == VG_OMEV_REALLOC ||
	       role == VG_OMEV_POOL;
}

/* A thread vigil put back on a call the entry stub had stopped
 * (user/fast/fast_rewind.c): its next entry there, at that %rsp, is the
 * same call going on, whose events were handled */
#define VG_FAST_REWOUND 16
struct vg_fast_rewound {
	__u32 tid;		/* 0: free */
	__u32 hook;		/* hook index + 1 */
	__u64 rsp;
};

struct vg_fast_shared {
	__u32 magic, version;
	/* vigil's liveness: the futex word of a robust, process-shared
	 * mutex vigil holds for as long as it runs (pthread_mutex_t's first
	 * word in glibc). When vigil dies, the kernel sets
	 * FUTEX_OWNER_DIED in it (its robust list), and the agent records
	 * nothing more: one load per event. */
	__u32 owner_off;	/* offset of the mutex in the region */
	__u32 enabled;		/* vigil sets 1 once everything is in */
	__u32 tgid;		/* the target: a forked child records nothing,
				 * unless `follow` */
	__u32 tid_off;		/* struct pthread's tid, from %fs:0x10
				 * (libc's _thread_db_pthread_tid) */
	__u64 clock_gettime;	/* the target's vDSO clock_gettime */
	/* the main thread's stack mapping at install ([stack]): the agent
	 * reads there without a system call (inproc/sys.c) */
	__u64 stack_lo, stack_hi;
	__u32 nhooks;
	__u32 nkprops;		/* kernel-tier properties stepped here */
	__u64 kprops_off, ktrans_off, kcode_off;	/* tables */
	__u64 evconf_off;	/* struct vg_ev_conf[VG_MAX_EVENTS] */
	/* The kernel tier's slice table: the BPF map itself, mapped into
	 * the target (its address there), so that a slice has one state
	 * whichever tier steps it; kslot_count: the BPF global that counts
	 * its slices, mapped likewise (its address in the target) */
	__u64 kslots_addr;	/* struct vg_kslot[kslot_mask + 1] */
	__u64 kslot_count_addr;	/* __u32, atomic */
	__u32 kslot_mask, kslot_max;
	__u64 threads_off;	/* per-thread table (agent's own layout) */
	__u64 threads_size;
	__u64 ring_off, ring_size;	/* ring_size: a power of two */
	/* head and tail are byte counts that only grow (a record is at
	 * count & (ring_size - 1)); the consumer zeroes what it consumed,
	 * so that a reserved record not yet written reads as BUSY */
	__u64 head __attribute__((aligned(64)));	/* producers */
	__u32 no_wait;		/* the ring was full and vigil made no room in
				 * time: drop, do not wait (inproc/ring.c) */
	__u64 tail __attribute__((aligned(64)));	/* vigil */
	/* the consumer's own: the BUSY record it waits on, since when */
	__u64 stuck_at, stuck_ns;
	struct vg_fast_rewound rewound[VG_FAST_REWOUND];
	__u32 nrewound;		/* entries in use */
	/* --follow-fork: a forked child records too, as itself (its pid
	 * in the records, its own memory read); else it records nothing */
	__u32 follow;
	/* a thread of the target had a seccomp filter at install: the
	 * agent makes no system call of its own when vigil is gone (a
	 * filter may kill the process for one it does not expect), and the
	 * patches stay (inproc/takeback.c) */
	__u32 seccomp;
	char name[16];		/* "vigil-fast": the target's name of the
				 * threads' mapping (PR_SET_VMA_ANON_NAME),
				 * which the leak check leaves out */
	/* Holds for watchpoints, as bpf/vigil.bpf.h's release_flag and
	 * arm_stop do them for VG_EVF_HOLD and VG_EVF_UNWATCH events taken
	 * in-process (the plan puts all such events in one tier): vigil
	 * writes the addresses armed (0: a free entry; narmed bounds the
	 * used ones) and futile_at; the agent counts release_seq. A read
	 * racing vigil's write can miss a release: then a hold is skipped
	 * and the slice armed late is inconclusive, never wrong. */
	__u64 release_seq __attribute__((aligned(64)));
	__u64 futile_at;	/* holds futile while release_seq is this */
	__u32 narmed, pad2;
	__u64 armed[VG_FAST_ARMED];
	/* The armed addresses the agent's VG_RF_RELEASE events named last,
	 * in turn (released_next counts them): a watchpoint hit on a block
	 * the program was given again before vigil could disarm it stops
	 * nothing (bpf/released.bpf.h). vigil clears an address here when
	 * it arms it again. */
	__u64 released[VG_FAST_RELEASED];
	__u32 released_next, pad3;
	/* A hold: the thread whose record asked for it waits in the agent
	 * (inproc/ring.c, vg_hold_wait) until vigil has handled the ring
	 * up to the record's end and armed what the records asked for;
	 * vigil then moves hold_ack past them (only forward), bumps
	 * hold_gen (the futex word) and wakes the hold_waiters. The
	 * agent wakes vigil for it: it bumps hold_req, and wakes that
	 * futex when vigil's waker sleeps on it (user/fast/fast_wake.c).
	 * hold_cpu: the CPU + 1 the last thread to ask waits on, 0 once
	 * vigil has let the holds go (vigil moves breakpoints from there:
	 * user/probe/watch_near.c). */
	__u64 hold_ack __attribute__((aligned(64)));
	__u32 hold_gen, hold_waiters;
	__u32 hold_req, waker_sleeps;
	__u32 hold_cpu, pad4;
	__u64 cnt[VG_FCNT_N] __attribute__((aligned(64)));
	/* The object map (include/vigil_objmap.h), in this region at
	 * objmap_off (0: none), objmap_size bytes: vigil sizes it from
	 * --max-objects (vg_om_nbuckets), initialises it and files the
	 * program's globals; the agent files the heap's blocks at the
	 * allocation events (omev) and answers the memory predicates of
	 * the kernel tier from it (inproc/kstep.c). heap_lo: the brk
	 * heap's start (0: the heap's range is not filed, an attached
	 * process's); heap_hi: how far the agent filed it, as an
	 * VG_OM_ARENA (a pointer there in no block is no object). */
	__u64 objmap_off, objmap_size;
	__u64 heap_lo, heap_hi;
	/* steps of kernel-tier property k where a memory predicate was
	 * unknown (its guard not taken), and of those the ones that left
	 * the slice out of its initial state (user/fast/fast.c gives them
	 * to the monitor, as the user tier counts its own) */
	__u64 kunknown[VG_KMAX_PROPS];
	__u64 kunknown_kept[VG_KMAX_PROPS];
	struct vg_fast_omev omev[VG_MAX_EVENTS];
	__u64 ev_hits[VG_MAX_EVENTS];	/* calls seen, by event (as the
					 * BPF ev_hits: before `outside`) */
	__u64 ev_lost[VG_MAX_EVENTS];	/* records dropped, by event */
	struct vg_fast_hook hooks[VG_FAST_MAX_HOOKS];
};

/* Registers the stubs save, in this order in memory (user/fast/tramp.c
 * pushes them): the integer argument registers, the other scratch ones,
 * and %rsp as at the function's entry (entry stub: pointing at the
 * return address) or after its `ret` (return stub). */
struct vg_fast_regs {
	__u64 rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11, rsp;
};

/* The agent's blob (inproc/, build/inproc/agent_blob.c) starts with this:
 * vigil writes `region` in its copy before the mapping becomes
 * executable; the offsets are of the entry points from the blob's start. */
#define VG_AGENT_MAGIC 0x76676167u	/* "vgag" */
struct vg_agent_head {
	__u64 region;		/* struct vg_fast_shared, in the target */
	__u32 magic;
	__u32 entry_off;	/* vg_agent_entry(regs, hook) */
	__u32 return_off;	/* __u64 vg_agent_return(regs, hook) */
	__u32 pad;
};

/* The per-thread table, at region + threads_off, is the agent's: vigil
 * maps it PRIVATE and anonymous right after the shared region (so that a
 * forked child has its own copy of the return frames it inherits), with
 * the first page MADV_WIPEONFORK: vigil writes the target's tgid in
 * `tgid` there, and a forked child finds 0 (it records nothing, with one
 * load per event and no system call). Entries follow from
 * VG_FAST_THREADS_HDR on, as many as fit, rounded down to a power of
 * two. */
#define VG_FAST_THREADS_HDR 4096
struct vg_fast_threads_hdr {
	__u32 tgid;		/* 0 in a forked child (until the agent, with
				 * `follow`, writes the child's own there) */
	__u32 back;		/* vigil gone: this process's patches taken
				 * back (inproc/takeback.c, VG_BACK_*) */
	__u64 back_next;	/* CLOCK_MONOTONIC ns: not tried before */
};
enum { VG_BACK_NONE, VG_BACK_BUSY, VG_BACK_DONE };

/* a return frame: what the hijacked return needs */
struct vg_fast_frame {
	__u64 ret;		/* the original return address */
	__u64 rsp;		/* %rsp at entry (at the return address) */
	__u32 hook, pad;
	__u64 args[VG_MAX_FIELDS];	/* by the first return event's plan */
};

struct vg_fast_thread {
	__u32 tid;		/* 0: free; claimed by CAS */
	__u32 busy;		/* inside the agent */
	__u64 self;		/* its struct pthread: another at this tid
				 * is a new thread, and the entry is reset */
	__u32 depth;		/* frames in use */
	__u32 pad;
	struct vg_inside in;	/* `outside` depths */
	struct vg_fast_frame fr[VG_FAST_SHADOW];
};

/* A thread's entry is found by open addressing from its tid's hash, at
 * most VG_FAST_THREAD_PROBES entries on (the agent claims it there;
 * vigil reads it there for gdb) */
#define VG_FAST_THREAD_PROBES 32
static inline __u32 vg_fast_thread_hash(__u32 tid)
{
	return tid * 0x9e3779b1u;
}

/* The table's entries, for a table of threads_size bytes (the agent's and
 * vigil's count: the largest power of two that fits after the header) */
static inline __u64 vg_fast_nthreads(__u64 threads_size)
{
	__u64 n = (threads_size - VG_FAST_THREADS_HDR) /
		  sizeof(struct vg_fast_thread);

	while (n & (n - 1))
		n &= n - 1;
	return n;
}

#endif
