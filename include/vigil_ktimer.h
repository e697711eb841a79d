/* Kernel-tier state timeouts (bpf/ktimer.bpf.h, user/probe/ktimer.c): the
 * tables user space writes and the probe and the timer read. Included by
 * include/vigil_event.h's users on both sides, after it. */
#ifndef VIGIL_KTIMER_H
#define VIGIL_KTIMER_H

/* per (kernel-tier property, state), at kprop * VG_KMAX_STATES + state:
 * the state's `within` (docs/LANGUAGE.md, Time) */
struct vg_ktimed {
	__s64 limit_ns;		/* a constant LIMIT (deadline = entry + it);
				 * 0: run the deadline code (a clock's
				 * invariant, an expression of variables) */
	__u16 deadline_off, deadline_len;	/* into kcode */
	__u16 upd_off, upd_len;	/* the timeout's update, into kcode */
	__u16 to;		/* where the timeout goes */
	__u16 timed;		/* 1: the state has a timeout */
	__u32 event;		/* the spec's `timeout` event */
};

/* per kernel slice (kslots index): who entered its timed state and when,
 * for the report and for the stop */
struct vg_kslot_tm {
	__u64 entered;		/* bpf_ktime_get_ns at the entering event */
	__s64 stack;		/* the entering event's stack id (or < 0) */
	__u64 caller;		/* and its return address (VG_SLOT_CALLER) */
	__u32 tid, pid;		/* the thread and process that entered */
};

/* the fields of a timeout's record: user/spec/spec.h's VG_TSLOT_*
 * (user/probe/ktimer.c checks that they agree) */
#define VG_KT_ENTERED 0
#define VG_KT_LIMIT 1
#define VG_KT_FIRED_AT 2
#define VG_KT_STATE 3

/* vg_ev_conf.flags: the event feeds a timed kernel-tier property, so its
 * probe reads the clock once for all it does (the record, `time`, a
 * clock's reset, the deadline; bpf/vigil.bpf.c ev_clock), as the user tier
 * uses one event time. A high bit, away from include/vigil_event.h's. */
#define VG_EVF_KTIME 0x8000

/* vg_kslot.tflags */
#define VG_KSLOT_TLISTED 0x1	/* in the timer's list of timed slices */

/* the timer's figures (ktimer_stats, per kind), for VIGIL_DEBUG and the
 * bench */
enum vg_ktimer_stat {
	VG_KT_SWEEPS,		/* timer callbacks */
	VG_KT_FIRED,		/* timeouts taken */
	VG_KT_LATE_SUM,		/* sum of (fired - deadline), ns */
	VG_KT_LATE_MAX,		/* the worst of them */
	VG_KT_SIGNAL_FAILED,	/* a stop the kernel refused to send from the
				 * timer (bpf_send_signal_task): user space
				 * sends it */
	VG_KT_BUSY,		/* a slice lock not taken: swept again soon */
	VG_KT_AFTER_EXIT,	/* a deadline past whose process had begun to
				 * exit: no timeout (once per sweep) */
	VG_KT__COUNT
};

#endif
