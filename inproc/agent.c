/* The in-process agent: what the entry and return stubs vigil puts in the
 * target call (user/fast/tramp.c), doing for a patched function what the
 * uprobe programs do for a probed one (bpf/vigil/probes.bpf.c: entry,
 * vg_stash, ret; bpf/vigil.bpf.h: handle_conf) without the trap.
 *
 * Position-independent, freestanding, copied by vigil into the target as
 * one flat blob (inproc/agent.lds): no libc, no writable data of its own,
 * nothing to relocate. Its one piece of data, the region's address, is in
 * the blob's head (struct vg_agent_head), which vigil writes.
 *
 * It must never crash the target and never block it: target memory is
 * read through process_vm_readv (sys.c), a full ring drops, a full table
 * does not hijack, and a call made while the thread is already in here
 * (a signal handler's) records nothing. */
#include "agent.h"
#include "event.h"
#include "objmap.h"

#define SIGSEGV 11

extern const volatile struct vg_agent_head vg_agent_head VG_HIDDEN;

static inline struct vg_fast_shared *region(void)
{
	return (struct vg_fast_shared *)vg_agent_head.region;
}

/* glibc's struct pthread of this thread (its `header.self`, %fs:0x10) */
static inline __u64 tcb_self(void)
{
	__u64 self;

	__asm__("mov %%fs:0x10, %0" : "=r"(self));
	return self;
}

/* vigil gone, seen by a call: its patches taken back (takeback.c) at
 * the first such call, and, while that is not safe yet (more threads),
 * tried again at every 256th, at most every 50 ms; once done, a load */
static inline void orphan(struct vg_fast_shared *sh,
			  struct vg_fast_threads_hdr *th)
{
	__u64 n = __atomic_fetch_add(&sh->cnt[VG_FCNT_ORPHAN], 1,
				     __ATOMIC_RELAXED);
	__u32 back = __atomic_load_n(&th->back, __ATOMIC_RELAXED);

	if (back == VG_BACK_NONE &&
	    (!__atomic_load_n(&th->back_next, __ATOMIC_RELAXED) ||
	     !(n & 255)))
		vg_take_back(sh);
}

/* Is vigil there, is this the process it set up (or, with `follow`, a
 * child forked from it)? The process's tgid, 0: record nothing. One load
 * each: the owner word of the mutex vigil holds (the kernel marks it when
 * vigil dies), and the tgid vigil wrote in a page a fork wipes; a
 * followed child's first call writes its own there (its copy of the
 * page), with one system call. */
static inline __u32 live(struct vg_fast_shared *sh)
{
	struct vg_fast_threads_hdr *th = vg_at(sh, sh->threads_off);
	__u32 me;

	if (!__atomic_load_n(&sh->enabled, __ATOMIC_ACQUIRE))
		return 0;
	me = __atomic_load_n(&th->tgid, __ATOMIC_RELAXED);
	if (me != sh->tgid) {	/* a forked child */
		if (!__atomic_load_n(&sh->follow, __ATOMIC_RELAXED))
			return 0;
		if (!me) {
			me = (__u32)vg_sys6(39 /* getpid */, 0, 0, 0, 0, 0, 0);
			__atomic_store_n(&th->tgid, me, __ATOMIC_RELAXED);
		}
	}
	if (!vg_owner_alive(sh)) {
		orphan(sh, th);
		return 0;
	}
	return me;
}

static inline struct vg_fast_thread *threads(struct vg_fast_shared *sh,
					     __u32 *mask)
{
	*mask = (__u32)vg_fast_nthreads(sh->threads_size) - 1;
	return (struct vg_fast_thread *)((char *)vg_at(sh, sh->threads_off) +
					 VG_FAST_THREADS_HDR);
}

/* The thread's entry, claimed when claim (by CAS on tid: other threads
 * claim entries of the same table). A new thread that reuses a dead
 * one's tid has another struct pthread: the entry starts afresh. */
static struct vg_fast_thread *thread_of(struct vg_fast_shared *sh, __u32 tid,
					__u64 self, int claim)
{
	__u32 mask, h = vg_fast_thread_hash(tid);
	struct vg_fast_thread *t = threads(sh, &mask);

	if (!tid || mask == (__u32)-1)
		return 0;
	for (__u32 i = 0; i < VG_FAST_THREAD_PROBES && i <= mask; i++) {
		struct vg_fast_thread *e = &t[(h + i) & mask];
		__u32 cur = __atomic_load_n(&e->tid, __ATOMIC_ACQUIRE);

		if (!cur) {
			if (!claim)
				return 0;
			if (!__atomic_compare_exchange_n(&e->tid, &cur, tid, 0,
							 __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE)) {
				if (cur != tid)
					continue;	/* another's now */
			} else {
				e->busy = 0;
				e->depth = 0;
				vg_memset(&e->in, 0, sizeof(e->in));
				e->self = self;
				return e;
			}
		}
		if (cur != tid)
			continue;
		if (e->self != self && claim) {
			e->busy = 0;
			e->depth = 0;
			vg_memset(&e->in, 0, sizeof(e->in));
			e->self = self;
		}
		return e;
	}
	/* no free entry on tid's path: one of a thread that has ended (a
	 * program that made more threads than the table holds, most of them
	 * gone) is taken over; a system call each, on this rare path only */
	for (__u32 i = 0; claim && i < VG_FAST_THREAD_PROBES && i <= mask; i++) {
		struct vg_fast_thread *e = &t[(h + i) & mask];
		__u32 cur = __atomic_load_n(&e->tid, __ATOMIC_ACQUIRE);

		if (!cur || cur == tid || !vg_thread_gone(vg_me(sh), cur) ||
		    !__atomic_compare_exchange_n(&e->tid, &cur, tid, 0,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		e->busy = 0;
		e->depth = 0;
		vg_memset(&e->in, 0, sizeof(e->in));
		e->self = self;
		return e;
	}
	if (claim)
		vg_count(sh, VG_FCNT_THREADS);
	return 0;
}

/* A forked child returning from a call its parent's thread entered: its
 * tid is new, but its struct pthread is the one that made the frame, in
 * the child's own copy of the table. Rare; a walk of the table. */
static struct vg_fast_thread *thread_by_self(struct vg_fast_shared *sh,
					     __u64 self)
{
	__u32 mask;
	struct vg_fast_thread *t = threads(sh, &mask);

	if (mask == (__u32)-1)
		return 0;
	for (__u64 i = 0; i <= mask; i++)
		if (t[i].tid && t[i].self == self && t[i].depth)
			return &t[i];
	return 0;
}

/* The thread's tid, from its struct pthread (vigil gives the offset) */
static inline __u32 tid_of(struct vg_fast_shared *sh, __u64 self)
{
	return *(volatile __u32 *)(self + sh->tid_off);
}

/* Push the return frame and hijack the return address: only once the
 * frame is in, so that every return through a stub has its frame. */
/* event ev's entry in the event table vigil wrote */
static inline const struct vg_ev_conf *conf_of(struct vg_fast_shared *sh,
					       __u32 ev)
{
	return (const struct vg_ev_conf *)vg_at(sh, sh->evconf_off) + ev;
}

static void push_frame(struct vg_fast_shared *sh, struct vg_fast_thread *t,
		       struct vg_fast_regs *r, __u32 hook,
		       const struct vg_fast_hook *hk)
{
	const struct vg_ev_conf *conf;
	struct vg_fast_frame *f;
	__u64 slot[VG_NSLOTS];

	if (!hk->ret_stub)
		return;
	/* frames deeper than this call are of functions left without a
	 * return (longjmp, an exception): the stack is past them. (Equal is
	 * a tail call's caller, whose return is still to come.) */
	while (t->depth && t->fr[t->depth - 1].rsp < r->rsp)
		t->depth--;
	if (t->depth >= VG_FAST_SHADOW) {
		vg_count(sh, VG_FCNT_SHADOW);
		return;
	}
	f = &t->fr[t->depth];
	conf = conf_of(sh, hk->ret_ev[0]);
	/* as the BPF stash, which only an `after` event with fields has:
	 * without, its arguments read as 0 */
	vg_memset(slot, 0, sizeof(slot));
	if (hk->ret_args)
		vg_read_args(sh, r, conf, slot);
	vg_memcpy(f->args, slot, sizeof(f->args));
	f->ret = *(__u64 *)r->rsp;	/* the stub's caller put it there */
	f->rsp = r->rsp;
	f->hook = hook;
	/* a signal handler on this thread sees the frame whole or not at
	 * all: the compiler keeps the order, the CPU does for one thread */
	__asm__ volatile("" ::: "memory");
	t->depth++;
	__asm__ volatile("" ::: "memory");
	*(volatile __u64 *)r->rsp = hk->ret_stub;
}

/* Did vigil put this thread back on this call after a stop here
 * (user/fast/fast_rewind.c)? Then its events were handled already: once
 * only, the entry is taken back. One load when nothing was. */
static int rewound(struct vg_fast_shared *sh, __u32 tid, __u32 hook,
		   __u64 rsp)
{
	if (!__atomic_load_n(&sh->nrewound, __ATOMIC_ACQUIRE))
		return 0;
	for (int i = 0; i < VG_FAST_REWOUND; i++) {
		struct vg_fast_rewound *w = &sh->rewound[i];

		if (w->tid == tid && w->hook == hook + 1 && w->rsp == rsp) {
			w->tid = 0;
			__atomic_fetch_sub(&sh->nrewound, 1, __ATOMIC_RELEASE);
			return 1;
		}
	}
	return 0;
}

/* 1: the entry stub stops the thread before the function runs (a
 * kernel-tier stop state: event.h), 0: on it goes */
VG_HIDDEN int vg_agent_entry(struct vg_fast_regs *r, __u32 hook)
{
	struct vg_fast_shared *sh = region();
	const struct vg_fast_hook *hk;
	struct vg_fast_thread *t;
	int stop = 0, again;
	__u64 self;
	__u32 tid;

	if (!sh || hook >= VG_FAST_MAX_HOOKS || hook >= sh->nhooks ||
	    !live(sh))
		return 0;	/* (vg_me(sh) is the tgid it found) */
	self = tcb_self();
	tid = tid_of(sh, self);
	t = thread_of(sh, tid, self, 1);
	if (!t) {
		/* no entry for this thread: its events are lost, and said so
		 * (the verdicts that need them end inconclusive) */
		hk = &sh->hooks[hook];
		for (__u32 i = 0; i < hk->nentry && i < VG_FAST_HOOK_EVENTS; i++)
			if (hk->entry_ev[i] < VG_MAX_EVENTS) {
				vg_count(sh, VG_FCNT_LOST);
				__atomic_fetch_add(&sh->ev_lost[hk->entry_ev[i]],
						   1, __ATOMIC_RELAXED);
			}
		return 0;
	}
	if (t->busy) {
		vg_count(sh, VG_FCNT_REENTER);
		return 0;
	}
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	hk = &sh->hooks[hook];
	again = rewound(sh, tid, hook, r->rsp);
	if (!again)
		__atomic_fetch_add(&((struct vg_fast_hook *)hk)->hits, 1,
				   __ATOMIC_RELAXED);
	for (__u32 i = 0; !again && i < hk->nentry && i < VG_FAST_HOOK_EVENTS;
	     i++) {
		__u32 ev = hk->entry_ev[i];
		const struct vg_ev_conf *conf;
		__u64 slot[VG_NSLOTS];

		if (ev >= VG_MAX_EVENTS)
			continue;
		conf = conf_of(sh, ev);
		vg_memset(slot, 0, sizeof(slot));
		vg_read_args(sh, r, conf, slot);
		stop |= vg_handle_conf(sh, t, conf, ev, tid, slot, 1, r->rsp);
	}
	/* realloc's old block is free from here on: another thread's
	 * malloc may have it before this call returns */
	if (!again && hk->nret)
		vg_om_entry(sh, hk, r);
	/* a stopped call's frame is pushed when it goes on (again) */
	if (hk->nret && !stop)
		push_frame(sh, t, r, hook, hk);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
	return stop != 0;
}

/* The frame of the return now, copied to out: frames deeper than it (a
 * longjmp, or an exception, left their functions without returning) are
 * dropped, as the kernel drops a uretprobe's. Copied before it is popped:
 * a signal handler that comes right after may push its own frame into
 * the same place (this path is not under the busy flag). */
static int pop_frame(struct vg_fast_thread *t, __u64 rsp,
		     struct vg_fast_frame *out)
{
	while (t->depth) {
		struct vg_fast_frame *f = &t->fr[t->depth - 1];
		int mine = f->rsp + 8 >= rsp;	/* rsp: after the ret */

		if (mine)
			*out = *f;
		__asm__ volatile("" ::: "memory");
		t->depth--;
		if (mine)
			return 1;
	}
	return 0;
}

VG_HIDDEN __u64 vg_agent_return(struct vg_fast_regs *r, __u32 hook)
{
	struct vg_fast_shared *sh = region();
	struct vg_fast_thread *t;
	struct vg_fast_frame fr;
	__u64 self = tcb_self();
	__u32 tid = tid_of(sh, self), was_busy;
	const struct vg_fast_hook *hk;
	int found = 0;

	t = thread_of(sh, tid, self, 0);
	if (t && t->self == self)
		found = pop_frame(t, r->rsp, &fr);
	if (!found && (t = thread_by_self(sh, self)))
		found = pop_frame(t, r->rsp, &fr);
	if (!found) {
		/* no stub is installed without its frame, so this is a
		 * stack switched under us (inproc/README.md): nowhere to
		 * go. The crash is made here, where a core shows it. */
		vg_count(sh, VG_FCNT_NOFRAME);
		vg_kill_thread((__u32)vg_sys6(39 /* getpid */, 0, 0, 0, 0, 0,
					      0), tid, SIGSEGV);
		return 0;
	}
	was_busy = t->busy;
	if (was_busy || fr.hook >= VG_FAST_MAX_HOOKS || !live(sh) ||
	    tid != *(volatile __u32 *)&t->tid) {
		if (was_busy)
			vg_count(sh, VG_FCNT_REENTER);
		return fr.ret;
	}
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	hk = &sh->hooks[fr.hook];
	for (__u32 i = 0; i < hk->nret && i < VG_FAST_HOOK_EVENTS; i++) {
		__u32 ev = hk->ret_ev[i];
		const struct vg_ev_conf *conf;
		__u64 slot[VG_NSLOTS];

		if (ev >= VG_MAX_EVENTS)
			continue;
		conf = conf_of(sh, ev);
		vg_memset(slot, 0, sizeof(slot));
		vg_memcpy(slot, fr.args, sizeof(fr.args));
		slot[VG_SLOT_RET] = r->rax;
		if (conf->flags & VG_EVF_RETX)
			slot[VG_SLOT_RET] = vg_convert(r->rax, conf->ret_conv,
						       conf->ret_size);
		vg_handle_conf(sh, t, conf, ev, tid, slot, 0, 0);
	}
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
	return fr.ret;
}
