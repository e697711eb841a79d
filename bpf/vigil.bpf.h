// SPDX-License-Identifier: GPL-2.0
/* What vigil's BPF units share (the units in bpf/vigil/, linked by `bpftool gen
 * object` into one object, build/bpf/vigil.bpf.o, whose skeleton user
 * space loads; see the Makefile):
 *
 *   bpf/vigil/probes.bpf.c     the call probes: vg_entry (`before f(...)`),
 *                              vg_stash + vg_return (`after f(...)`), their
 *                              kernel-tier builds vg_entry_k, vg_return_k
 *                              and sleepable ones vg_entry_s, vg_return_s
 *   bpf/vigil/kstep.bpf.c      vg_kstep, the kernel-tier interpreter the
 *                              _k builds tail-call (kstep.bpf.h)
 *   bpf/vigil/lifecycle.bpf.c  vg_signal, vg_exit, vg_fork, vg_exec,
 *                              vg_sys_enter: events from tracepoints
 *   bpf/vigil/watch.bpf.c      vg_watch: hardware watchpoints
 *
 * One program per probe kind, attached many times: the BPF cookie of each
 * attachment is the index of the event in the spec, so one uprobe program
 * serves every function a spec names.
 *
 * Each event then goes to the user tier (a VG_REC_EVENT record), to the
 * kernel tier (kstep.bpf.h: the automaton evaluated right here), or both,
 * as the vg_ev_conf map says.
 *
 * Nothing here writes user memory: the only effect on the target is the
 * SIGSTOP a violation may send, and, with it, the thread sent back to
 * the call of the function it stops at (rewind.bpf.h).
 *
 * The maps and variables every unit sees are defined here, and in
 * kstep.bpf.h and rewind.bpf.h, as VG_SHARED (weak) definitions: each
 * unit's object has them, and the linker keeps one of each, which all the
 * units' programs then use. A map or variable only one unit uses is
 * defined in that unit, as usual.
 */
#ifndef VIGIL_BPF_H
#define VIGIL_BPF_H

#define VG_SHARED __attribute__((weak))
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "vigil_event.h"
#include "vigil_ktimer.h"
#include "vigil_ops.h"

/* libbpf 1.1 stops at PARM5 on x86-64; the sixth integer argument is r9 */
#ifndef PT_REGS_PARM6
#define PT_REGS_PARM6(x) ((x)->r9)
#endif


/* kfunc (Linux 6.12): copies a C string from user memory, faulting pages
 * in; sleepable programs only. Weak, and called only when copy_str_ok
 * (set before load from user/probe/features.c): on an older kernel the
 * call is then dead code, which the verifier removes. Without it a
 * sleepable program faults the string's pages in with bpf_copy_from_user
 * and reads it from them (read_strings). */
extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz,
				  const void *unsafe_ptr__ign,
				  __u64 flags) __ksym __weak;
const volatile bool copy_str_ok VG_SHARED = false;

/* Set by user space before the programs are attached. */
__u32 target_tgid VG_SHARED = 0;
/* --follow-fork: the target's descendants are monitored too; their tgids
 * are in `followed` (added at fork, removed at exit) */
__u32 follow_forks VG_SHARED = 0;
/* Wake the consumer only once this much is waiting: a busy target then
 * costs one wake-up per batch, not per event. The consumer also polls on a
 * short timeout, so a lone event waits at most that long. */
__u64 wake_bytes VG_SHARED = 0;
/* Events that can lead a user-tier slice into a stop wake the consumer at
 * once, but at most once per wake_gap_ns: a forced wake-up costs the
 * target microseconds, and while records keep coming the consumer polls
 * every wake_gap_ns anyway (user/session/session.c), so the latency of a
 * stop stays about wake_gap_ns either way. */
__u64 wake_gap_ns VG_SHARED = 0;
__u64 last_wake_ns VG_SHARED = 0;
/* Set by user space while it drains on a timer instead of waiting on the
 * ring (user/session/session.c): a wake-up then wakes nobody, yet costs
 * the target several microseconds (irq_work, a self-IPI: a VM exit in a
 * guest), so the probes skip them. */
__u32 consumer_polls VG_SHARED = 0;
/* Kernel tier: entering a state with a `checkpoint` reaction stops the
 * target (so the image is of that very moment) once this time has come;
 * user space moves it on after each checkpoint (--checkpoint-gap), and
 * the first thread to pass it pushes it to "never" until then. */
__u64 ckpt_next_ns VG_SHARED = 0;
/* --dynamic (user/session/dynamic.c): bit e set while event e's probe is
 * attached; and, per CPU, how many arming events are between reading it
 * and submitting their record, so that user space knows when none that
 * read an old value is still on its way */
__u64 armed_mask VG_SHARED = 0;
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} inflight SEC(".maps") VG_SHARED;

/* The breakpoints by address (bpf/vigil/watch.bpf.c): the perf events that
 * threads created later inherit keep the program but not its BPF cookie,
 * and one program serves every breakpoint, globals and those armed per
 * slice alike. Here, not in that unit, so that the kstep object has it
 * too: its maps-only copy makes every map vg_watch reads, and vg_watch
 * can load beside the main object (user/probe/split_load.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, struct vg_wp_conf);
} watch_ev SEC(".maps") VG_SHARED;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);	/* resized by user space */
} events SEC(".maps") VG_SHARED;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_MAX_EVENTS);
	__type(key, __u32);
	__type(value, struct vg_ev_conf);
} ev_conf SEC(".maps") VG_SHARED;

/* per-event hit and loss counts, per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VG_MAX_EVENTS);
	__type(key, __u32);
	__type(value, __u64);
} ev_hits SEC(".maps") VG_SHARED;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VG_MAX_EVENTS);
	__type(key, __u32);
	__type(value, __u64);
} ev_lost SEC(".maps") VG_SHARED;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VG_CNT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps") VG_SHARED;

/* Entry arguments of `after` events, per thread and event, as a small
 * stack so that recursion pairs each return with its own entry. */
#define VG_STASH_DEPTH 8
struct stash_key {
	__u32 tid, event;
};
struct stash {
	__u32 depth;
	__u32 pad;
	__u64 args[VG_STASH_DEPTH][VG_MAX_FIELDS];
};

/* Allocated per entry, not up front: preallocating 65,536 values of
 * 520 bytes (34 MB) took ~8 ms of every run's start, for the few threads
 * a program has (bench/fixed_cost.py --only real). Kernel >= 6.1 for the
 * sleepable programs (bpf_mem_alloc). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct stash_key);
	__type(value, struct stash);
} stashes SEC(".maps") VG_SHARED;

/* scratch space: struct stash is too big for the BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stash);
} stash_init SEC(".maps") VG_SHARED;

static __always_inline void count(void *map, __u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(map, &idx);

	if (c)
		*c += 1;	/* per-CPU: no atomic needed */
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} followed SEC(".maps") VG_SHARED;

/* Is the current thread the target's (or, with --follow-fork, one of its
 * followed descendants')? The common case is one comparison; the map is
 * looked up only when following, for other processes running the probed
 * code. */
static __always_inline bool is_target_in(__u32 *tid, __u32 *tgid)
{
	__u64 id = bpf_get_current_pid_tgid();

	*tid = (__u32)id;
	*tgid = id >> 32;
	return *tgid == target_tgid ||
	       (follow_forks && bpf_map_lookup_elem(&followed, tgid));
}

static __always_inline bool is_target(__u32 *tid)
{
	__u32 tgid;

	return is_target_in(tid, &tgid);
}

/* the process of the current thread, for the records */
static __always_inline __u32 cur_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

/* A uprobe link is attached for one process (user/probe/probe_follow.c),
 * whose tgid is the high half of the cookie (0: none). The kernel filters
 * such a link by memory, not by process, so it also fires in a process
 * sharing that memory: a vfork child before its exec, and its parent.
 * Each of those has a link of its own, so a hit through another's link is
 * a duplicate -- except at a return whose entry was made by an ancestor
 * before a fork (the child inherits the pending return, with the
 * ancestor's link), which only the inherited return reports. */
static __always_inline bool others_link(__u64 cookie, bool at_return,
					__u32 tgid)
{
	__u32 owner = cookie >> 32;
	struct task_struct *t;
	void *mm;

	/* tgid: is_target_in's, not the helper again (a call and its return
	 * cost 10-20 ns on a kernel with return-thunk mitigations, as many
	 * as the floor's whole program) */
	if (!owner || owner == tgid)
		return false;
	if (!at_return)
		return true;
	t = (struct task_struct *)bpf_get_current_task();
	mm = BPF_CORE_READ(t, mm);
	for (int i = 0; i < 4 && t; i++) {
		t = BPF_CORE_READ(t, real_parent);
		if (t && BPF_CORE_READ(t, tgid) == owner)
			return BPF_CORE_READ(t, mm) == mm;
	}
	return true;
}

#include "evclock.bpf.h"

/* Every record's header. The clock is read only for what is reported: it
 * is a good part of the cost of a kernel-tier event that changes nothing. */
static __always_inline void fill_hdr(struct vg_rec_hdr *h, __u16 kind,
				     __u16 flags, __u32 event, __u32 tid)
{
	h->kind = kind;
	h->flags = flags;
	h->event = event;
	h->pid = cur_tgid();
	h->tid = tid;
	h->time_ns = ev_time();
}

static __always_inline __u64 wake_flags(void)
{
	if (consumer_polls)
		return BPF_RB_NO_WAKEUP;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wake_bytes
		       ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

#include "stacks.bpf.h"
#include "kstep.bpf.h"
#include "returns.bpf.h"
#include "callacc.bpf.h"

/* The kernel tier's step is a program of its own, vg_kstep, which both
 * probe builds (vg_entry_k, vg_return_k) tail-call into as their last
 * act: the verifier then checks the interpreter once, not once per build
 * (about 250 ms each). The probe's slots live in a per-CPU scratch the
 * step reads back; the tail call happens on the same CPU with migration
 * off, so no other probe run comes in between. */
struct kstep_args {
	__u32 event, tid;
	__u32 at_entry, pad;
	/* the probe's slots are m.slot; vg_kstep sets m.uip, usp and
	 * rewind for its properties' steps: an entry probe's ip and sp (0
	 * elsewhere), the call a stop sends the thread back to. m is the
	 * properties' interpreter in turn, tm vg_ktimer_enter's. */
	struct vm m, tm;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kstep_args);
} kstep_args SEC(".maps") VG_SHARED;
/* [0] = vg_kstep, set by user space once it is loaded */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} kstep_tail SEC(".maps") VG_SHARED;

/* the slots of a _k build: the scratch vg_kstep reads, zeroed */
static __always_inline struct kstep_args *kstep_scratch(void)
{
	__u32 zero = 0;
	struct kstep_args *a = bpf_map_lookup_elem(&kstep_args, &zero);

	if (a)
		__builtin_memset(a->m.slot, 0, sizeof(a->m.slot));
	return a;
}

/* The event's captures (struct vg_cap_plan): values read from target
 * memory now, at the probe, into VG_SLOT_CAP0.. */
/* Reading target memory: a sleepable program (the _s builds) may take
 * the page fault that brings in a page the target has not touched yet (a
 * string literal in .rodata before its first use); the others read only
 * what is present. */
static __always_inline long read_user(void *dst, __u32 n, const void *src,
				      bool sleep)
{
	return sleep ? bpf_copy_from_user(dst, n, src)
		     : bpf_probe_read_user(dst, n, src);
}

static __always_inline void capture(struct vg_ev_conf *conf, __u64 *slot,
				    bool sleep)
{
	for (int k = 0; k < VG_MAX_CAPS; k++) {
		struct vg_cap_plan *c = &conf->cap[k];
		__u64 addr, v = 0;
		int bad = 0;

		if (k >= conf->ncaps)
			break;
		if (c->src == VG_CAP_GLOBAL)	/* the program's text, as
						 * loaded: PIE or not */
			addr = BPF_CORE_READ(
				(struct task_struct *)bpf_get_current_task_btf(),
				mm, start_code);
		else
			addr = slot[c->src < VG_NSLOTS ? c->src : 0];
		for (int i = 0; i < VG_CAP_STEPS - 1; i++)
			if (i + 1 < c->nsteps &&
			    read_user(&addr, sizeof(addr),
				      (void *)(addr + c->off[i]), sleep))
				bad = 1;
		if (!bad) {
			__u32 last = c->nsteps ? c->nsteps - 1 : 0;
			__u32 n = c->size;

			if (n > 8)
				n = 8;
			/* 1..8 for the read in the register the call takes:
			 * a clamp by a branch bounds one register, and clang
			 * may pass a copy made before it, which Linux 6.1's
			 * verifier does not bound (the mask is exact for
			 * 1..8; the barrier keeps clang from dropping it) */
			barrier_var(n);
			addr += c->off[last < VG_CAP_STEPS ? last : 0];
			if (c->str == VG_CAPS_AT)	/* the string's address */
				v = addr;
			else if (c->str == VG_CAPS_PTR)
				bad = read_user(&v, sizeof(v), (void *)addr,
						sleep) != 0;
			else if (n == 0 ||
				 read_user(&v, ((n - 1) & 7) + 1, (void *)addr,
					   sleep))
				bad = 1;
			else if (c->is_signed && n < 8)
				v = (__u64)(((__s64)(v << (64 - 8 * n))) >>
					    (64 - 8 * n));
		}
		if (bad) {
			v = 0;
			count(&counters, VG_CNT_CAPFAULT);
		}
		slot[VG_SLOT_CAP0 + k] = v;
	}
}

/* Fill and submit a reserved event record that has room for nslots
 * slots (a constant: the verifier checks every store against the
 * reservation); the strings of a vg_rec_event_str are in place already. */
static __always_inline void send_event(struct vg_ev_conf *conf,
				       struct vg_rec_event *r, __u32 event,
				       __u32 tid, __u64 *slot,
				       const __u32 nslots, __u16 flags)
{
	fill_hdr(&r->h, VG_REC_EVENT, flags, event, tid);
	__builtin_memcpy(r->slot, slot, 8 * nslots);
	if (flags & VG_RF_ARMSTOP) {	/* the target waits for us */
		bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	} else if ((conf->flags & VG_EVF_WAKE) && !consumer_polls &&
		   r->h.time_ns - last_wake_ns >= wake_gap_ns) {
		last_wake_ns = r->h.time_ns;
		bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	} else {
		bpf_ringbuf_submit(r, wake_flags());
	}
}

/* The C strings of str(p) captures, from the addresses capture() left in
 * their slots, into the record; the slot keeps the address, or 0 when the
 * string could not be read (user space then sees "", as for NULL). */
static __always_inline void read_strings(struct vg_ev_conf *conf,
					 __u64 *slot,
					 struct vg_rec_event_str *rs,
					 bool sleep)
{
	for (int k = 0; k < VG_MAX_CAPS; k++) {
		struct vg_cap_plan *c = &conf->cap[k];
		const char *src;
		char *dst;

		if (k >= conf->ncaps)
			break;
		if (c->str == VG_CAPS_NONE)
			continue;
		dst = rs->str[c->str_idx & (VG_MAX_STRS - 1)];
		dst[0] = 0;
		if (!slot[VG_SLOT_CAP0 + k])	/* NULL: "", not a fault */
			continue;
		src = (const char *)slot[VG_SLOT_CAP0 + k];
		if (sleep && !copy_str_ok) {
			/* no kfunc: fault in the pages the string may lie on
			 * (its first byte's, its last possible byte's) with
			 * the sleepable helper, then read it from them */
			char c;

			bpf_copy_from_user(&c, 1, src);
			bpf_copy_from_user(&c, 1, src + VG_STR_MAX - 1);
		}
		if ((sleep && copy_str_ok
			     ? bpf_copy_from_user_str(dst, VG_STR_MAX, src, 0)
			     : bpf_probe_read_user_str(dst, VG_STR_MAX, src)) < 0) {
			dst[0] = 0;
			slot[VG_SLOT_CAP0 + k] = 0;
			count(&counters, VG_CNT_CAPFAULT);
		}
	}
}

/* Stop the target here, before this thread runs another instruction of
 * its own, when user space must act first: with --dynamic, the event may
 * lead a slice into a state that needs a probe that is not attached
 * (user/session/dynamic.c); with VG_EVF_HOLD, into a state that arms a
 * watchpoint, which must be in every thread before this one writes
 * (user/watchset/watchset.c); with hold, a watchpoint hit that may stop the
 * process at the faulting instruction. User space resumes it once it has
 * handled the record, unless a reaction wants it stopped. Only once the
 * record is reserved: a lost record would leave the target stopped with
 * nobody to resume it. */
/* Set by user space while every debug register is taken and
 * --watch-policy=refuse would leave any new slice unwatched: a VG_EVF_HOLD
 * event's hold would arm nothing, so it is not made. User space says so
 * as of the VG_EVF_UNWATCH events it has handled (futile_at): one sent
 * since may free a register, and then holds are made again. A slice user
 * space arms all the same is marked inconclusive (watchset.c). */
__u64 release_seq VG_SHARED = 0;		/* VG_EVF_UNWATCH events sent so far */
__u64 futile_at VG_SHARED = ~0ull;	/* futile while release_seq is this */

/* A VG_EVF_UNWATCH event whose arguments or return value name the address
 * of an armed breakpoint (armed_addrs: `*p @ n` is armed at p) may free a
 * register: count it. One that frees a register another way (a member's
 * watch, `q->count`) is not counted; a hold then skipped makes the slice
 * armed late inconclusive, not wrong (user/watchset/watchset.c). */
static __always_inline __u16 release_flag(struct vg_ev_conf *conf,
					  __u64 *slot)
{
	if (!(conf->flags & VG_EVF_UNWATCH))
		return 0;
	/* bpf/released.bpf.h: the slots that name the block, each (an
	 * argument register that merely holds an armed address must not
	 * hide them); a loop of its own, so that the verifier's paths meet
	 * again after each */
	for (int i = 0; i <= VG_SLOT_RET && i < VG_NSLOTS; i++) {
		/* a key on the stack: slot may be a global function's
		 * argument, memory Linux 6.1 takes for no map key */
		__u64 key = slot[i];
		__u8 *v;

		if ((conf->rel_slots >> i & 1) &&
		    (v = bpf_map_lookup_elem(&armed_addrs, &key)))
			*v = VG_ARMED_RELEASED;
	}
	for (int i = 0; i <= VG_SLOT_RET && i < VG_NSLOTS; i++) {
		__u64 key = slot[i];

		if ((i < 6 || i == VG_SLOT_RET) &&
		    bpf_map_lookup_elem(&armed_addrs, &key)) {
			__sync_fetch_and_add(&release_seq, 1);
			return VG_RF_RELEASE;
		}
	}
	return 0;
}

static __always_inline __u16 arm_stop(struct vg_ev_conf *conf, bool hold)
{
	bool futile = (conf->flags & VG_EVF_HOLD) &&
		      futile_at == release_seq;

	if (!hold && (!(conf->flags & VG_EVF_HOLD) || futile) &&
	    !(conf->arms & ~armed_mask))
		return 0;
	bpf_send_signal(SIGSTOP);
	return VG_RF_ARMSTOP;
}

/* Per thread, how deep it is in each function `outside` clauses name
 * (VG_EVF_ENTER/LEAVE, struct vg_inside): a watchpoint hit or a call by
 * a thread inside one is that function's business (an allocator writing
 * its free lists into the blocks it manages, sqlite3_exec preparing its
 * own statements), not an event. Only the thread itself updates its
 * entry, so plain increments do. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* as stashes */
	__type(key, __u32);
	__type(value, struct vg_inside);
} inside SEC(".maps") VG_SHARED;

static __always_inline void mark_inside(const struct vg_ev_conf *conf,
					__u32 tid)
{
	struct vg_inside *in = bpf_map_lookup_elem(&inside, &tid);
	__u32 i = conf->inside & (VG_MAX_INSIDE - 1);

	if (conf->flags & VG_EVF_ENTER) {
		if (!in) {
			struct vg_inside zero = {};

			bpf_map_update_elem(&inside, &tid, &zero, BPF_NOEXIST);
			in = bpf_map_lookup_elem(&inside, &tid);
			if (!in)
				return;
		}
		in->depth[i]++;
		in->total++;
	} else if (in && in->depth[i]) {	/* (a return whose entry came
						 * before vigil does not count) */
		in->depth[i]--;
		if (--in->total == 0)
			bpf_map_delete_elem(&inside, &tid);
	}
}

#include "fast_inside.bpf.h"
#include "released.bpf.h"

/* is the thread inside one of the functions of mask? (counted here, or
 * by the in-process tier) */
static __always_inline bool inside_any(__u16 mask, __u32 tid)
{
	struct vg_inside *in;

	if (!mask)
		return false;
	if ((mask & fast_inside) && fast_inside_any(mask, tid))
		return true;
	if (!(in = bpf_map_lookup_elem(&inside, &tid)))
		return false;
	for (int i = 0; i < VG_MAX_INSIDE; i++)
		if ((mask >> i & 1) && in->depth[i])
			return true;
	return false;
}

static __always_inline void rec_lost(__u32 event)
{
	count(&ev_lost, event);
	count(&counters, VG_CNT_RB_LOST);
}

/* A VG_REC_EVENT of nslots slots (vigil_event.h: VG_REC_SLOTS_*) */
static __always_inline void send_slots(struct vg_ev_conf *conf, __u32 event,
				       __u32 tid, __u64 *slot,
				       const __u32 nslots, bool hold,
				       __u16 mark)
{
	struct vg_rec_event *r;

	r = bpf_ringbuf_reserve(&events, VG_REC_EVENT_BYTES(nslots), 0);
	if (r)
	{
		/* a release first: it voids futile holds at once */
		__u16 f = release_flag(conf, slot);

		send_event(conf, r, event, tid, slot, nslots,
			   f | mark | arm_stop(conf, hold));
	}
	else
		rec_lost(event);
}

/* An event of conf: counts it, captures, sends its record (with the
 * record flags mark, VG_RF_*, besides the ones decided here) and holds
 * the thread when hold or the event asks. */
static __always_inline int handle_conf(struct pt_regs *ctx,
				       struct vg_ev_conf *conf, __u32 event,
				       __u32 tid, __u64 *slot, bool ktier,
				       bool at_entry, bool sleep, bool hold,
				       __u16 mark)
{
	bool skip;

	count(&ev_hits, event);
	/* f's own entry and return are outside f: the return counts down
	 * first, the entry up after */
	if (conf->flags & VG_EVF_LEAVE)
		mark_inside(conf, tid);
	skip = inside_any(conf->outside, tid);
	if (conf->flags & VG_EVF_ENTER)
		mark_inside(conf, tid);
	if (skip)
		return 0;
	if (conf->nrng && !touches_watched(conf, slot))
		return 0;	/* a call that keeps off freed memory */
	/* only where it matters: an event that also goes to user space (a
	 * recording, a user-tier property), whose record's time must be the
	 * kernel tier's, or one of a timed property (VG_EVF_KTIME) */
	if (ktier && conf->nkprops &&
	    (conf->flags & (VG_EVF_USER | VG_EVF_KTIME)))
		ev_clock_set(bpf_ktime_get_ns(), tid);
	if (conf->ncaps)
		capture(conf, slot, sleep);
	/* the stack, for the evidence, only for events that ask: walking the
	 * user stack costs more than the rest of the probe. (ctx is NULL for
	 * the lifecycle tracepoints, which have no user stack to offer.) */
	if (ctx && !sleep && (conf->flags & VG_EVF_STACK)) {
		slot[VG_SLOT_STACK] = (__u64)stack_id(ctx, tid);
		/* at a function's entry its frame is not built yet, so the
		 * frame-pointer walk skips the caller: its return address is
		 * on top of the stack */
		if (at_entry &&
		    !bpf_probe_read_user(&slot[VG_SLOT_CALLER], sizeof(__u64),
					 (void *)PT_REGS_SP(ctx)))
			slot[VG_SLOT_CALLER] = real_caller(PT_REGS_SP(ctx),
							   slot[VG_SLOT_CALLER]);
	}

	__u64 *busy = NULL;
	__u32 zero = 0;

	if (conf->arms && (busy = bpf_map_lookup_elem(&inflight, &zero)))
		__sync_fetch_and_add(busy, 1);	/* before reading armed_mask */
	if ((conf->flags & (VG_EVF_USER | VG_EVF_STRS)) ==
	    (VG_EVF_USER | VG_EVF_STRS)) {
		struct vg_rec_event_str *rs;

		rs = bpf_ringbuf_reserve(&events, sizeof(*rs), 0);
		if (rs) {
			read_strings(conf, slot, rs, sleep);
			__u16 f = release_flag(conf, slot);

			send_event(conf, &rs->ev, event, tid, slot, VG_NSLOTS,
				   f | mark | arm_stop(conf, hold));
		} else {
			rec_lost(event);
		}
	} else if (conf->flags & VG_EVF_USER) {
		if (conf->rec_slots <= VG_REC_SLOTS_S)
			send_slots(conf, event, tid, slot, VG_REC_SLOTS_S, hold,
				   mark);
		else if (conf->rec_slots <= VG_REC_SLOTS_M)
			send_slots(conf, event, tid, slot, VG_REC_SLOTS_M, hold,
				   mark);
		else
			send_slots(conf, event, tid, slot, VG_NSLOTS, hold,
				   mark);
	}
	if (busy)
		__sync_fetch_and_add(busy, -1);	/* its record is submitted */
	if (ktier && ctx && conf->nkprops) {
		__u32 zero = 0;
		struct kstep_args *a = bpf_map_lookup_elem(&kstep_args, &zero);

		/* slot is a->m.slot (kstep_scratch) */
		if (a) {
			a->event = event;
			a->tid = tid;
			a->at_entry = at_entry;
			bpf_tail_call(ctx, &kstep_tail, 0);
		}
	}
	/* the event's own time is over (without vg_kstep, whose end does it) */
	if (ktier && conf->nkprops &&
	    (conf->flags & (VG_EVF_USER | VG_EVF_KTIME)))
		ev_clock_set(0, 0);
	return 0;
}

static __always_inline int handle(struct pt_regs *ctx, __u32 event,
				  __u32 tid, __u64 *slot, bool ktier,
				  bool at_entry)
{
	struct vg_ev_conf *conf = bpf_map_lookup_elem(&ev_conf, &event);

	if (!conf)
		return 0;
	return handle_conf(ctx, conf, event, tid, slot, ktier, at_entry,
			   false, false, 0);
}

/* include/vigil_event.h's, shared with the in-process agent */
static __always_inline __u64 convert(__u64 v, __u8 conv, __u8 size)
{
	return vg_convert(v, conv, size);
}

#endif
