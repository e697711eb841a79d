/* Kernel-tier state timeouts (`state S within LIMIT else -> T`,
 * docs/LANGUAGE.md, Time): found by a kernel timer, with no user space in
 * the loop.
 *
 * Why a sweeping timer and not one timer per slice: the probes are uprobe
 * (kprobe-type) programs, and the verifier refuses any such program a map
 * that holds a bpf_timer ("tracing progs cannot use bpf_timer yet",
 * check_map_prog_compatibility in kernel/bpf/verifier.c; bpf_wq likewise),
 * so a probe cannot arm a timer. The timer belongs to vg_ktimer_arm, a
 * SEC("syscall") program user space runs once (BPF_PROG_TEST_RUN); its
 * callback shares plain maps with the probes:
 *
 *  - a probe that moves a slice into a timed state writes the deadline
 *    into the slice's hidden "(deadline)" variable, under the slice lock,
 *    with who entered and when (kslot_tm), and, the first time, puts the
 *    slice's index in ktlist;
 *  - the callback sweeps ktlist: a slice whose deadline has come is locked
 *    (the same compare-and-swap lock the probes take), checked again (still
 *    in that state, with that very deadline: leaving or re-entering since
 *    changed it), and takes its timeout like a transition: the update, the
 *    new state, a stop, a VG_REC_KSTEP record;
 *  - it arms itself again for the earliest deadline it saw, or one tick
 *    (ktimer_tick_ns) on. A deadline written after a sweep is at least one
 *    limit away, and user space sets the tick to at most half the smallest
 *    constant limit, so the next sweep sees it in time and arms for it:
 *    such deadlines fire at the deadline plus the timer's own latency.
 *    Limits that are not constants (a clock's invariant, an expression)
 *    make the tick 1 ms: those fire up to a tick late.
 *
 * The stop: bpf_send_signal_task(holder, SIGSTOP, PIDTYPE_PID) to the
 * thread whose event entered the state, sent before the slice lock is
 * released, so that the holder's own next event on that slice (an unlock)
 * finds the timeout taken and the signal pending: it stops on its way back
 * to user space, before the function body runs. From a timer (softirq) the
 * kernel queues the signal on irq_work; it refuses when the interrupted
 * context has no user memory of its own (nmi_uaccess_okay: an idle CPU),
 * and then the record goes without VG_RF_STOPPED and vigil sends the stop
 * when it reads it (VG_KT_SIGNAL_FAILED counts those).
 */
#ifndef VIGIL_KTIMER_BPF_H
#define VIGIL_KTIMER_BPF_H

#include "vigil_ktimer.h"

#define VG_CLOCK_MONOTONIC 1

extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;
extern int bpf_send_signal_task(struct task_struct *task, int sig,
				enum pid_type type, __u64 value) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_KMAX_PROPS * VG_KMAX_STATES);
	__type(key, __u32);
	__type(value, struct vg_ktimed);
} ktimed SEC(".maps");

/* by kslots index; as many entries as kslots when a kernel-tier property
 * is timed, else 1 (user space sizes it) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vg_kslot_tm);
} kslot_tm SEC(".maps");

/* the kslots indexes of the slices that ever entered a timed state, in
 * ktlist[0, ktlist_n): slices are never freed, so neither are these */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ktlist SEC(".maps");
__u32 ktlist_n = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VG_KT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} ktimer_stats SEC(".maps");

struct kt_timer {
	struct bpf_timer t;
};

/* used by vg_ktimer_arm alone: no probe may even name it */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kt_timer);
} ktimer SEC(".maps");

/* the timeout's event fields, off the callback's stack (the verifier's
 * 512 bytes are for the whole chain of calls under it) */
struct kt_scratch {
	__u64 slot[VG_NSLOTS];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kt_scratch);
} kt_scratch SEC(".maps");

/* set by user space: the longest the timer sleeps between sweeps; 0 stops
 * it re-arming (vigil's end) */
__u64 ktimer_tick_ns = 0;

static __always_inline void kt_stat(__u32 k, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&ktimer_stats, &k);

	if (!c)
		return;
	if (k == VG_KT_LATE_MAX) {
		if (v > *c)
			*c = v;
	} else {
		*c += v;
	}
}

/* The slice (kslots[idx], locked) moves to state `to` with m->vars: set or
 * clear its deadline. `at` is the time of the move when a timeout makes
 * it (the deadline it fired at: the user tier does the same), else 0, the
 * probe's now. A deadline already past at a timeout's move does not arm
 * (it would fire forever), as in user/monitor/timers.c. */
static __always_inline void ktimer_enter(struct vm *m, struct vg_kprop *p,
					 __u32 prop, __u32 to,
					 struct vg_kslot *s, __u32 idx,
					 __u32 tid, __u32 pid, __u64 *slot,
					 __u64 at)
{
	__u32 dv = p->deadline_var & (VG_KMAX_VARS - 1);
	__u32 k = prop * VG_KMAX_STATES + (to & (VG_KMAX_STATES - 1));
	struct vg_ktimed *kt;
	struct vg_kslot_tm *tm;
	__u64 now, deadline;
	__u32 n, *e;

	kt = (p->timed_mask >> (to & 31)) & 1
		     ? bpf_map_lookup_elem(&ktimed, &k) : NULL;
	if (!kt) {
		m->vars[dv] = 0;
		return;
	}
	now = at ? at : ev_time();
	if (kt->limit_ns > 0) {
		deadline = now + kt->limit_ns;
	} else {
		/* `time` reads `at` here when a timeout moves the slice
		 * (kfire sets it) */
		deadline = vm_run(m, kt->deadline_off, kt->deadline_len);
	}
	if ((__s64)deadline <= 0 || (at && deadline <= at)) {
		m->vars[dv] = 0;
		return;
	}
	m->vars[dv] = (__s64)deadline;
	tm = bpf_map_lookup_elem(&kslot_tm, &idx);
	if (tm) {
		tm->entered = now;
		tm->stack = (__s64)slot[VG_SLOT_STACK];
		tm->caller = slot[VG_SLOT_CALLER];
		tm->tid = tid;
		tm->pid = pid;
	}
	if (!(s->tflags & VG_KSLOT_TLISTED)) {
		s->tflags |= VG_KSLOT_TLISTED;
		n = __sync_fetch_and_add(&ktlist_n, 1);
		e = bpf_map_lookup_elem(&ktlist, &n);
		if (e)
			*e = idx;
	}
}

/* The probes' call: a function of its own, so that its frame is not
 * added to the probe's (which is near the 512 bytes already). */
static __noinline int ktimer_enter_probe(struct vm *m, struct vg_kprop *p,
					 struct vg_kslot *s, __u64 *slot,
					 __u64 idx_to)
{
	__u32 prop = s->prop;

	ktimer_enter(m, p, prop, (__u32)idx_to, s, (__u32)(idx_to >> 32),
		     m->tid, cur_tgid(), slot, 0);
	return 0;
}

struct ksweep {
	__u64 now, next;
	struct vm *m;
	__u64 *slot;
};

static __always_inline bool ktry_lock(struct vg_kslot *s)
{
	struct klock_try t = { .s = s };

	if (__sync_val_compare_and_swap(&s->lock, 0, 1) == 0)
		return true;
	/* the holder may be a probe this very softirq interrupted: do not
	 * wait for it, sweep again shortly */
	bpf_loop(256, klock_step, &t, 0);
	return t.got;
}

/* A timeout, reported as the user tier reports one: the event `timeout`
 * at the deadline, in the entering thread, with the entered/limit/fired
 * fields (VG_KT_ENTERED...). */
static __always_inline void ktreport(__u16 flags, __u32 event, __u32 prop,
				     __u32 from, __u32 to, __u64 deadline,
				     struct vg_kslot_tm *tm, struct vm *m)
{
	struct vg_rec_kstep *r;

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(&ev_lost, event);
		count(&counters, VG_CNT_RB_LOST);
		return;
	}
	r->h.kind = VG_REC_KSTEP;
	r->h.flags = flags;
	r->h.event = event;
	r->h.pid = tm ? tm->pid : 0;
	r->h.tid = tm ? tm->tid : 0;
	r->h.time_ns = deadline;
	r->prop = prop;
	r->from = from;
	r->to = to;
	r->pad = 0;
	r->key[0] = m->key[0];
	r->key[1] = m->key[1];
	__builtin_memcpy(r->vars, m->vars, sizeof(r->vars));
	__builtin_memcpy(r->slot, m->slot, sizeof(r->slot));
	bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
}

/* kslots[idx]'s deadline d has come: take the timeout if it still waits
 * for it. */
static __always_inline void kfire(struct ksweep *w, struct vg_kslot *s,
				  __u32 idx, struct vg_kprop *p, __u32 prop,
				  __u64 d)
{
	__u32 dv = p->deadline_var & (VG_KMAX_VARS - 1);
	struct vm *m = w->m;
	__u64 *slot = w->slot;
	struct vg_kslot_tm *tm;
	struct vg_ktimed *kt;
	struct task_struct *task;
	struct ev_clock *clk, saved = {};
	__u32 from, to, k;
	__u16 flags = 0;

	if (!ktry_lock(s)) {
		kt_stat(VG_KT_BUSY, 1);
		if (w->now + 50000 < w->next)
			w->next = w->now + 50000;
		return;
	}
	from = s->state;
	k = prop * VG_KMAX_STATES + (from & (VG_KMAX_STATES - 1));
	kt = bpf_map_lookup_elem(&ktimed, &k);
	if (!kt || !((p->timed_mask >> (from & 31)) & 1) ||
	    (__u64)s->vars[dv] != d) {
		kunlock(s);	/* left, or entered again, since */
		return;
	}
	tm = bpf_map_lookup_elem(&kslot_tm, &idx);
	__builtin_memset(slot, 0, 8 * VG_NSLOTS);
	slot[VG_KT_ENTERED] = tm ? tm->entered : 0;
	slot[VG_KT_LIMIT] = tm && tm->entered ? d - tm->entered : 0;
	slot[VG_KT_FIRED_AT] = w->now;
	slot[VG_KT_STATE] = from;
	slot[VG_SLOT_STACK] = tm ? (__u64)tm->stack : (__u64)-1;
	slot[VG_SLOT_CALLER] = tm ? tm->caller : 0;
	m->tid = tm ? tm->tid : 0;
	m->key[0] = s->key[0];
	m->key[1] = s->key[1];
	m->err = 0;
	__builtin_memcpy(m->vars, s->vars, sizeof(m->vars));
	/* `time` is the deadline (ev_clock, bpf/vigil.bpf.c): per CPU, and
	 * a softirq is not preempted; a probe it interrupted gets its own
	 * back */
	clk = ev_clock_get();
	if (clk) {
		saved = *clk;
		clk->at = d;
		clk->tid = 0;
	}
	if (kt->upd_len)
		vm_run(m, kt->upd_off, kt->upd_len);
	to = kt->to & (VG_KMAX_STATES - 1);
	ktimer_enter(m, p, prop, to, s, idx, m->tid, tm ? tm->pid : 0, slot,
		     d);
	if (clk)
		*clk = saved;
	s->state = to;
	__builtin_memcpy(s->vars, m->vars, sizeof(m->vars));
	if ((p->violation_mask >> to) & 1)
		flags |= VG_RF_VERDICT;
	if ((p->stop_mask >> to) & 1) {
		/* before the unlock: see the top of this file */
		task = tm ? bpf_task_from_pid(tm->tid) : NULL;
		if (task) {
			if (!bpf_send_signal_task(task, SIGSTOP, PIDTYPE_PID, 0))
				flags |= VG_RF_STOPPED;
			bpf_task_release(task);
		}
		if (!(flags & VG_RF_STOPPED))
			kt_stat(VG_KT_SIGNAL_FAILED, 1);
	}
	kunlock(s);
	kt_stat(VG_KT_FIRED, 1);
	kt_stat(VG_KT_LATE_SUM, w->now - d);
	kt_stat(VG_KT_LATE_MAX, w->now - d);
	ktreport(flags, kt->event, prop, from, to, d, tm, m);
}

static int ksweep_one(__u32 i, struct ksweep *w)
{
	struct vg_kslot *s;
	struct vg_kprop *p;
	__u32 *e = bpf_map_lookup_elem(&ktlist, &i);
	__u32 idx, prop, dv;
	__s64 d;

	if (!e)
		return 1;
	idx = *e;
	s = bpf_map_lookup_elem(&kslots, &idx);
	if (!s || *(volatile __u32 *)&s->use != VG_KSLOT_READY)
		return 0;
	prop = s->prop;
	p = bpf_map_lookup_elem(&kprops, &prop);
	if (!p)
		return 0;
	dv = p->deadline_var & (VG_KMAX_VARS - 1);
	d = *(volatile __s64 *)&s->vars[dv];
	if (d <= 0)
		return 0;
	if ((__u64)d > w->now) {
		if ((__u64)d < w->next)
			w->next = d;
		return 0;
	}
	kfire(w, s, idx, p, prop, (__u64)d);
	return 0;
}

static int ktimer_cb(void *map, int *key, struct kt_timer *t)
{
	__u32 zero = 0, n = ktlist_n;
	struct kt_scratch *sc = bpf_map_lookup_elem(&kt_scratch, &zero);
	struct vm m = {};
	struct ksweep w = { .m = &m };
	__u64 tick = ktimer_tick_ns;

	if (!tick || !sc)
		return 0;	/* vigil is ending */
	m.slot = sc->slot;
	w.slot = sc->slot;
	w.now = bpf_ktime_get_ns();
	w.next = w.now + tick;
	kt_stat(VG_KT_SWEEPS, 1);
	bpf_loop(n < kslot_max ? n : kslot_max, ksweep_one, &w, 0);
	bpf_timer_start(&t->t, w.next, BPF_F_TIMER_ABS);
	return 0;
}

/* Run once by user space (user/probe/ktimer.c) after the maps are
 * written: the first sweep is right away. */
SEC("syscall")
int vg_ktimer_arm(void *ctx)
{
	__u32 zero = 0;
	struct kt_timer *t = bpf_map_lookup_elem(&ktimer, &zero);

	if (!t)
		return 1;
	if (bpf_timer_init(&t->t, &ktimer, VG_CLOCK_MONOTONIC))
		return 2;
	if (bpf_timer_set_callback(&t->t, ktimer_cb))
		return 3;
	return bpf_timer_start(&t->t, 0, 0) ? 4 : 0;
}

#endif
