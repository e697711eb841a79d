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

/* the slices and the VM (a deadline may be an expression); kstep.bpf.h
 * does not include this file: the probes' step calls it from its unit,
 * bpf/vigil/kstep.bpf.c */
#include "kstep.bpf.h"
#include "vigil_ktimer.h"

#define VG_CLOCK_MONOTONIC 1


struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_KMAX_PROPS * VG_KMAX_STATES);
	__type(key, __u32);
	__type(value, struct vg_ktimed);
} ktimed SEC(".maps") VG_SHARED;

/* by kslots index; as many entries as kslots when a kernel-tier property
 * is timed, else 1 (user space sizes it) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vg_kslot_tm);
} kslot_tm SEC(".maps") VG_SHARED;

/* the kslots indexes of the slices that ever entered a timed state, in
 * ktlist[0, ktlist_n): slices are never freed, so neither are these */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ktlist SEC(".maps") VG_SHARED;
__u32 ktlist_n VG_SHARED = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VG_KT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} ktimer_stats SEC(".maps") VG_SHARED;

/* the timeout's event fields, off the callback's stack (the verifier's
 * 512 bytes are for the whole chain of calls under it) */
struct kt_scratch {
	struct vm m;		/* its slots are the timeout's */
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kt_scratch);
} kt_scratch SEC(".maps") VG_SHARED;

/* set by user space: the longest the timer sleeps between sweeps; 0 stops
 * it re-arming (vigil's end) */
__u64 ktimer_tick_ns VG_SHARED = 0;

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
		deadline = vm_run_timer(m, kt->deadline_off, kt->deadline_len);
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

#endif
