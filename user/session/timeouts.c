/* State timeouts in the live session: the loop sleeps no longer than the
 * earliest deadline, and once the ring is drained fires every timeout due
 * (docs/LANGUAGE.md, Time). Firing after the drain keeps the order of
 * the trace: every event the target made before "now" has been handed
 * to the monitor, which fired the timeouts due before each of them; what
 * is left is due before any event still to come.
 *
 * A recording gets a tick (a record of the "timeout" event, no fields) at
 * the time of each drain that fired one: a replay then lets the clock
 * run to the same moment and computes the same timeouts itself, even
 * those that fired after the target's last event. */
#include "session_internal.h"

#include <time.h>

#include "follow/follow.h"
#include "monitor/monitor.h"
#include "trace/trace.h"
#include "util/clock.h"

static int timeout_event(const struct vg_spec *spec)
{
	for (int i = 0; i < spec->nprops; i++)
		if (spec->props[i].timed)
			return spec->props[i].timeout_event;
	return -1;
}

static uint64_t earliest(struct session *ss)
{
	uint64_t d = ss->p.mon ? vg_monitor_next_deadline(ss->p.mon) : UINT64_MAX;
	uint64_t k = vg_follow_next_deadline(ss->procs);	/* --follow-fork */

	return k < d ? k : d;
}

void vg_session_timeout_wait(struct session *ss, struct timespec *to)
{
	uint64_t d = earliest(ss), now, wait;

	if (d == UINT64_MAX)
		return;
	now = vg_now_ns(CLOCK_MONOTONIC);
	wait = d > now ? d - now : 0;
	if (wait < (uint64_t)to->tv_sec * 1000000000ull + (uint64_t)to->tv_nsec) {
		to->tv_sec = (time_t)(wait / 1000000000ull);
		to->tv_nsec = (long)(wait % 1000000000ull);
	}
}

int vg_session_timeouts(struct session *ss, struct vg_err *e)
{
	uint64_t now;
	int fired = 0, r;

	if (earliest(ss) == UINT64_MAX)
		return 0;
	now = vg_now_ns(CLOCK_MONOTONIC);
	ss->rec_stopped = false;	/* no probe stopped anything for it */
	if (ss->p.mon) {
		uint64_t until = now, exit_ns;

		/* the target's time ends at its exit: a deadline after it is
		 * no timeout, however late the loop notices the exit (as in
		 * the kernel tier: bpf/ktimer_arm.bpf.h) */
		if (ss->p.probe && vg_probe_exit_time(ss->p.probe, &exit_ns) &&
		    exit_ns < until)
			until = exit_ns;
		if ((r = vg_monitor_expire(ss->p.mon, until, e)) < 0)
			return -1;
		fired += r;
	}
	if ((r = vg_follow_expire(ss->procs, now, e)) < 0)
		return -1;
	fired += r;
	if (fired && ss->rec) {
		struct vg_mon_event tick = {
			.event = timeout_event(ss->p.spec), .pid = (uint32_t)ss->pid,
			.time_ns = now,
		};

		if (tick.event >= 0 && vg_recorder_write(ss->rec, &tick))
			return vg_errf(e, "writing %s failed", ss->o->record_path);
	}
	return 0;
}
