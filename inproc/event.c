/* An event's handling in the agent, as bpf/vigil/probes.bpf.c's read_args
 * and bpf/vigil.bpf.h's handle_conf, capture and send_slots do it in the
 * kernel: same slots, same records, so that vigil reads the fast ring with
 * the code that reads the BPF ring.
 *
 * Holds for watchpoints (VG_EVF_HOLD, VG_EVF_UNWATCH) are made here as
 * the probes make them, from what vigil writes in the region (vigil_fast.h).
 *
 * Not here (vigil keeps such events on uprobes): --dynamic arms (a probe
 * must be attached while the thread waits), watched-call filters (nrng:
 * the watched pages are a BPF map; where no debug register fires there is
 * no filter, and such calls come here, every one sent), stack ids
 * (VG_EVF_STACK gets VG_SLOT_CALLER and a stack id of -1). */
#include "event.h"
#include "objmap.h"

#define CLOCK_MONOTONIC 1
#define SIGSTOP 19

struct vg_timespec {
	long sec, nsec;
};

/* the vDSO's clock_gettime, through the pointer vigil wrote */
VG_HIDDEN __u64 vg_now_ns(struct vg_fast_shared *sh)
{
	int (*cg)(int, struct vg_timespec *) =
		(int (*)(int, struct vg_timespec *))sh->clock_gettime;
	struct vg_timespec ts;

	if (!cg || cg(CLOCK_MONOTONIC, &ts))
		return 0;
	return (__u64)ts.sec * 1000000000ull + (__u64)ts.nsec;
}

VG_HIDDEN void vg_read_args(struct vg_fast_shared *sh,
			    const struct vg_fast_regs *r,
			    const struct vg_ev_conf *conf, __u64 *slot)
{
	__u64 reg[VG_NARGS] = { r->rdi, r->rsi, r->rdx, r->rcx, r->r8, r->r9 };

	if (!(conf->flags & VG_EVF_ARGS)) {
		for (int i = 0; i < VG_NARGS; i++)
			slot[i] = reg[i];
		return;
	}
	for (int i = 0; i < VG_MAX_FIELDS; i++) {
		const struct vg_arg_plan *a = &conf->arg[i];
		__u64 v = 0;

		if (a->where == VG_ARG_REG) {
			v = reg[a->reg < VG_NARGS ? a->reg : 0];
		} else if (a->where == VG_ARG_STACK) {
			/* the caller's frame: the stack is ours, but a plan
			 * that is wrong must not fault */
			if (vg_read_mem(sh, &v, r->rsp + a->stack_off,
					sizeof(v))) {
				v = 0;
				vg_count(sh, VG_FCNT_CAPFAULT);
			}
		}
		slot[i] = vg_convert(v, a->conv, a->size);
	}
}

/* bpf/vigil.bpf.h's mark_inside and inside_any, on the thread's entry */
static void mark_inside(const struct vg_ev_conf *conf,
			struct vg_fast_thread *t)
{
	__u32 i = conf->inside & (VG_MAX_INSIDE - 1);

	if (conf->flags & VG_EVF_ENTER) {
		t->in.depth[i]++;
		t->in.total++;
	} else if (t->in.depth[i]) {
		t->in.depth[i]--;
		t->in.total--;
	}
}

static int inside_any(__u16 mask, const struct vg_fast_thread *t)
{
	if (!mask || !t->in.total)
		return 0;
	for (int i = 0; i < VG_MAX_INSIDE; i++)
		if ((mask >> i & 1) && t->in.depth[i])
			return 1;
	return 0;
}

/* The event's captures (bpf/vigil.bpf.h's capture): every read through
 * vg_read_mem, a bad pointer gives 0 and a count. */
static void capture(struct vg_fast_shared *sh, const struct vg_ev_conf *conf,
		    __u64 *slot)
{
	for (__u32 k = 0; k < conf->ncaps && k < VG_MAX_CAPS; k++) {
		const struct vg_cap_plan *c = &conf->cap[k];
		__u32 last = c->nsteps ? c->nsteps - 1 : 0, n = c->size;
		__u64 addr, v = 0;
		int bad = 0;

		if (c->src == VG_CAP_GLOBAL) {
			/* mm->start_code is not at hand in here: vigil keeps
			 * such events on uprobes */
			bad = 1;
			addr = 0;
		} else {
			addr = slot[c->src < VG_NSLOTS ? c->src : 0];
		}
		if (last >= VG_CAP_STEPS)
			last = VG_CAP_STEPS - 1;
		for (__u32 i = 0; !bad && i < last; i++)
			bad = vg_read_mem(sh, &addr, addr + c->off[i],
					  sizeof(addr));
		if (!bad) {
			addr += c->off[last];
			if (n > 8)
				n = 8;
			if (c->str == VG_CAPS_AT)
				v = addr;
			else if (c->str == VG_CAPS_PTR)
				bad = vg_read_mem(sh, &v, addr, 8);
			else if (!n || vg_read_mem(sh, &v, addr, n))
				bad = 1;
			else if (c->is_signed && n < 8)
				v = (__u64)(((__s64)(v << (64 - 8 * n))) >>
					    (64 - 8 * n));
		}
		if (bad) {
			v = 0;
			vg_count(sh, VG_FCNT_CAPFAULT);
		}
		slot[VG_SLOT_CAP0 + k] = v;
	}
}

/* A C string, cut at VG_STR_MAX - 1 bytes: read up to its page's end
 * first, so that a string near the end of the last mapped page reads. */
static int read_str(const struct vg_fast_shared *sh, char *dst, __u64 src)
{
	__u64 n = 0;

	while (n < VG_STR_MAX - 1) {
		__u64 chunk = 4096 - ((src + n) & 4095);

		if (chunk > VG_STR_MAX - 1 - n)
			chunk = VG_STR_MAX - 1 - n;
		if (vg_read_mem(sh, dst + n, src + n, chunk))
			break;
		for (__u64 i = 0; i < chunk; i++)
			if (!dst[n + i])
				return 0;
		n += chunk;
	}
	dst[n] = 0;
	return n ? 0 : -1;
}

static void read_strings(struct vg_fast_shared *sh,
			 const struct vg_ev_conf *conf, __u64 *slot,
			 struct vg_rec_event_str *rs)
{
	for (__u32 k = 0; k < conf->ncaps && k < VG_MAX_CAPS; k++) {
		const struct vg_cap_plan *c = &conf->cap[k];
		char *dst;

		if (c->str == VG_CAPS_NONE)
			continue;
		dst = rs->str[c->str_idx & (VG_MAX_STRS - 1)];
		dst[0] = 0;
		if (!slot[VG_SLOT_CAP0 + k])
			continue;
		if (read_str(sh, dst, slot[VG_SLOT_CAP0 + k])) {
			dst[0] = 0;
			slot[VG_SLOT_CAP0 + k] = 0;
			vg_count(sh, VG_FCNT_CAPFAULT);
		}
	}
}

static void released(struct vg_fast_shared *sh, __u64 a)
{
	__u32 at = __atomic_fetch_add(&sh->released_next, 1, __ATOMIC_RELAXED);

	__atomic_store_n(&sh->released[at % VG_FAST_RELEASED], a,
			 __ATOMIC_RELEASE);
}

/* bpf/vigil.bpf.h's release_flag: an event that may take a slice out of a
 * watched state (VG_EVF_UNWATCH) and names an armed address may free a
 * register; counted, so that vigil stops calling holds futile */
static __u16 release_flag(struct vg_fast_shared *sh,
			  const struct vg_ev_conf *conf, const __u64 *slot)
{
	__u16 rf = 0;
	__u32 n;

	if (!(conf->flags & VG_EVF_UNWATCH))
		return 0;
	n = __atomic_load_n(&sh->narmed, __ATOMIC_ACQUIRE);
	if (n > VG_FAST_ARMED)
		n = VG_FAST_ARMED;
	/* every slot, as the probe's: an argument register that merely
	 * holds an armed address must not hide the one naming the block */
	for (__u32 k = 0; k < n; k++) {
		__u64 a = __atomic_load_n(&sh->armed[k], __ATOMIC_RELAXED);

		for (int i = 0; i <= VG_SLOT_RET; i++)
			if ((i < 6 || i == VG_SLOT_RET) && a && slot[i] == a) {
				/* where it names the block, a hit there
				 * stops nothing now (bpf/released.bpf.h) */
				if (conf->rel_slots >> i & 1)
					released(sh, a);
				rf = VG_RF_RELEASE;
			}
	}
	if (rf)
		__atomic_fetch_add(&sh->release_seq, 1, __ATOMIC_RELEASE);
	return rf;
}

/* bpf/vigil.bpf.h's arm_stop: an event that may take a slice into a
 * state that arms a watchpoint (VG_EVF_HOLD) stops the process until
 * vigil has armed it in every thread, unless vigil said holds are futile
 * (every register taken, --watch-policy=refuse) and no release came
 * since */
static int hold_wanted(struct vg_fast_shared *sh,
		       const struct vg_ev_conf *conf)
{
	return (conf->flags & VG_EVF_HOLD) &&
	       __atomic_load_n(&sh->futile_at, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&sh->release_seq, __ATOMIC_ACQUIRE);
}

static int send(struct vg_fast_shared *sh, const struct vg_ev_conf *conf,
		__u32 event, __u32 tid, __u64 *slot, __u64 now, __u16 flags,
		__u64 *end)
{
	struct vg_rec_event_str rs;	/* ~400 bytes of the target's stack */
	__u32 nslots = VG_NSLOTS, len;

	if (conf->flags & VG_EVF_STRS) {
		vg_memset(rs.str, 0, sizeof(rs.str));
		read_strings(sh, conf, slot, &rs);
		len = sizeof(rs);
	} else {
		nslots = vg_rec_slots_for(conf->rec_slots);
		len = VG_REC_EVENT_BYTES(nslots);
	}
	rs.ev.h.kind = VG_REC_EVENT;
	rs.ev.h.flags = flags | VG_RF_INPROC;
	rs.ev.h.event = event;
	rs.ev.h.pid = vg_me(sh);
	rs.ev.h.tid = tid;
	rs.ev.h.time_ns = now;
	vg_memcpy(rs.ev.slot, slot, 8 * nslots);
	return vg_ring_write(sh, event, &rs, len, end);
}

/* the kernel tier's records go to the same ring (vg_ring_write counts a
 * drop) */
static int emit(void *ctx, const void *rec, __u32 len, __u32 event)
{
	return vg_ring_write(ctx, event, rec, len, 0);
}

/* strlen_at's reads (kstep.h): through the kernel, a block another
 * thread unmaps meanwhile is not a fault */
static int read_mem(void *ctx, void *dst, __u64 src, __u64 n)
{
	return vg_read_mem(ctx, dst, src, n);
}

VG_HIDDEN int vg_handle_conf(struct vg_fast_shared *sh,
			      struct vg_fast_thread *t,
			      const struct vg_ev_conf *conf, __u32 event,
			      __u32 tid, __u64 *slot, int at_entry,
			      __u64 entry_rsp)
{
	__u64 now = 0;
	int skip, stop = 0;

	/* as the BPF ev_hits: every call, before `outside` (an atomic add,
	 * not a per-CPU slot: the agent has no CPU of its own) */
	if (event < VG_MAX_EVENTS)
		__atomic_fetch_add(&sh->ev_hits[event], 1, __ATOMIC_RELAXED);
	/* f's own entry and return are outside f: the return counts down
	 * first, the entry up after */
	if (conf->flags & VG_EVF_LEAVE)
		mark_inside(conf, t);
	skip = inside_any(conf->outside, t);
	if (conf->flags & VG_EVF_ENTER)
		mark_inside(conf, t);
	/* a call inside an `outside` function is no event of the
	 * properties', but the heap changed all the same: the map follows
	 * it (a captured out-pointer included) */
	if (skip && !(event < VG_MAX_EVENTS && sh->omev[event].role))
		return 0;
	if (conf->ncaps)
		capture(sh, conf, slot);
	if (skip) {
		vg_om_event(sh, event, slot, at_entry);
		return 0;
	}
	/* a block given out: filed before a property asks about it */
	if (!at_entry)
		vg_om_event(sh, event, slot, 0);
	if (conf->flags & VG_EVF_STACK) {
		slot[VG_SLOT_STACK] = (__u64)-1;	/* no stack map here */
		if (at_entry && entry_rsp)
			slot[VG_SLOT_CALLER] = *(__u64 *)entry_rsp;
	}
	/* one instant per event: the record's and the kernel tier's */
	if (conf->flags & VG_EVF_USER) {
		/* a release first: it voids futile holds at once */
		__u16 flags = release_flag(sh, conf, slot);
		int hold = hold_wanted(sh, conf);
		__u64 end;

		now = vg_now_ns(sh);
		if (hold)
			flags |= VG_RF_ARMSTOP;
		/* the thread waits once vigil can see why (a record lost
		 * would leave it waiting for nothing): vigil arms, then
		 * moves hold_ack past the record (user/session/hold.c) */
		if (!send(sh, conf, event, tid, slot, now, flags, &end) && hold)
			vg_hold_wait(sh, end);
	}
	if (conf->nkprops) {
		struct vg_inproc_env env = {
			.sh = sh, .tgid = vg_me(sh), .tid = tid,
			.now_ns = now, .clock = vg_now_ns,
			.emit = emit, .ctx = sh, .read = read_mem,
			.yield = vg_yield,
		};

		/* A state that stops the process. At an entry, the entry
		 * stub stops it once the agent has returned (1): every
		 * register as at the call, so that vigil can put the thread
		 * back on the function's first instruction (user/fast/
		 * fast_rewind.c). At a return, here. */
		stop = vg_inproc_kstep(&env, conf, event, slot, at_entry) &
		       VG_RF_STOPPED;
	}
	/* a block freed: after the step, which asks about it as it is
	 * before the call (freeable(p) at free); before a stop, since the
	 * call goes on when the thread does (its entry is not handled
	 * again: user/fast/fast_rewind.c) */
	if (at_entry)
		vg_om_event(sh, event, slot, 1);
	if (stop && at_entry)
		return VG_AGENT_STOP;
	if (stop)
		vg_kill_thread(vg_me(sh), tid, SIGSTOP);
	return 0;
}
