/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tier's timeouts: the sweep, the timer and the SEC("syscall")
 * program that arms it (bpf/ktimer.bpf.h says why it is not a probe's);
 * the programs here are the only ones that name the timer map, which no
 * tracing program may use. Included by the lifecycle unit alone
 * (bpf/vigil/lifecycle.bpf.c), which declares the kfuncs it calls: libbpf
 * 1.1's linker cannot join one kfunc's declarations from two objects
 * ("failed to resolve size of underlying type"), so every caller of
 * bpf_send_signal_task is in that one unit. */
#ifndef VIGIL_KTIMER_ARM_BPF_H
#define VIGIL_KTIMER_ARM_BPF_H

#include "ktimer.bpf.h"

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

/* signal_struct.flags (include/linux/sched/signal.h): set from the
 * moment an exit_group(2) or a fatal signal starts taking the process down */
#define VG_SIGNAL_GROUP_EXIT 0x00000004

/* Has the process pid begun to exit (or is it gone)? A slice's time ends
 * with its process: a deadline that comes after the exit is no timeout,
 * however late user space notices the exit (the user tier stops its clock
 * at the same exit: user/session/timeouts.c). */
static __always_inline bool kproc_ended(__u32 pid)
{
	struct task_struct *task = bpf_task_from_pid(pid);
	unsigned int flags;
	int live;

	if (!task)
		return true;
	flags = BPF_CORE_READ(task, signal, flags);
	live = BPF_CORE_READ(task, signal, live.counter);
	bpf_task_release(task);
	return (flags & VG_SIGNAL_GROUP_EXIT) || live <= 0;
}

/* kslots[idx]'s deadline d has come: take the timeout if it still waits
 * for it, and its process has not exited meanwhile. */
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
	if (tm && tm->pid && kproc_ended(tm->pid)) {
		kunlock(s);
		kt_stat(VG_KT_AFTER_EXIT, 1);
		return;
	}
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
	/* `time` is the deadline (ev_clock, bpf/evclock.bpf.h): per CPU, and
	 * a softirq is not preempted; a probe it interrupted gets its own
	 * back */
	clk = ev_clock_get();
	if (clk) {
		saved = *clk;
		clk->at = d;
		clk->tid = 0;
	}
	if (kt->upd_len)
		vm_run_timer(m, kt->upd_off, kt->upd_len);
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

static int ktimer_cb(void *map, int *key, struct kt_timer *t)
{
	__u32 zero = 0, n = ktlist_n;
	struct kt_scratch *sc = bpf_map_lookup_elem(&kt_scratch, &zero);
	struct ksweep w = {};
	__u64 tick = ktimer_tick_ns;

	if (!tick || !sc)
		return 0;	/* vigil is ending */
	w.m = &sc->m;
	w.slot = sc->m.slot;
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
