/* One time per event in the kernel tier (bpf/vigil.bpf.h's fill_hdr,
 * kstep.bpf.h's `time`, ktimer.bpf.h's deadlines). */
#ifndef VIGIL_EVCLOCK_BPF_H
#define VIGIL_EVCLOCK_BPF_H

/* The time of the event being handled, per CPU, set by a kernel-tier
 * probe for its thread (tid) while it runs, when the event also reaches
 * user space or feeds a timed property (VG_EVF_KTIME): its record, `time`
 * in its guards and updates (a clock's reset) and the deadline it sets are
 * then one instant, the one a recording keeps, as in the user tier (a
 * replay computes the same deadlines). Other events read the clock where
 * they need it. A probe
 * preempted meanwhile by another one on this CPU finds another tid and
 * reads the clock again. The timer sets it, tid 0, to the deadline a
 * timeout fires at (bpf/ktimer.bpf.h). */
struct ev_clock {
	__u64 at;
	__u32 tid, pad;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ev_clock);
} ev_clock SEC(".maps") VG_SHARED;

static __always_inline struct ev_clock *ev_clock_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ev_clock, &zero);
}

static __always_inline void ev_clock_set(__u64 at, __u32 tid)
{
	struct ev_clock *c = ev_clock_get();

	if (c) {
		c->at = at;
		c->tid = tid;
	}
}

static __always_inline __u64 ev_time(void)
{
	struct ev_clock *c = ev_clock_get();

	if (c && c->at &&
	    (!c->tid || c->tid == (__u32)bpf_get_current_pid_tgid()))
		return c->at;
	return bpf_ktime_get_ns();
}

#endif
