/* The monitor as it is now: the kernel tier's slices copied into it, the
 * probes' event totals, and the whole of it on stderr when the user asks
 * the session with SIGUSR1. (The status line is a feature of its own,
 * user/status/.) */
#include "session_internal.h"

#include <inttypes.h>
#include <stdio.h>

#include "follow/follow.h"
#include "monitor/monitor.h"
#include "probe/probe.h"
#include "report/dump.h"

#define VG_DUMP_CAP 50		/* slices listed per state */

static void mirror_kslice(void *ctx, int prop, const uint64_t *key,
			  int state, const int64_t *vars)
{
	struct session *ss = ctx;
	const struct vg_property *p = &ss->spec->props[prop];
	uint64_t params[VG_MAX_PARAMS] = { key[0], key[1] };
	struct vg_err e;

	vg_monitor_set(ss->mon, prop, (1u << p->nparams) - 1, params, state,
		       vars, &e);
}

void vg_session_mirror_kslices(struct session *ss)
{
	/* the kernel tier's slice table is the truth about its slices: the
	 * monitor learns their states from the steps it reports, not the
	 * variables of the steps it keeps to itself */
	if (ss->o->watch_ops)	/* by process (user/watch/) */
		vg_session_watch_mirror(ss);
	else
		vg_probe_foreach_kslice(ss->probe, mirror_kslice, ss);
}

void vg_session_event_totals(const struct session *ss, uint64_t *events,
			     uint64_t *lost)
{
	*events = *lost = 0;
	for (int i = 0; i < ss->spec->nevents; i++) {
		uint64_t h, l;

		if (ss->spec->events[i].maps_sync)	/* vigil's own */
			continue;
		vg_probe_counts(ss->probe, i, &h, &l);
		*events += h;
		*lost += l;
	}
}

void vg_session_dump(struct session *ss)
{
	vg_session_mirror_kslices(ss);
	fprintf(stderr, "vigil: the monitor of pid %d after %" PRIu64
		" records (SIGUSR1; first %d slices per state):\n",
		ss->pid, ss->events, VG_DUMP_CAP);
	if (vg_report_dump(ss->spec, ss->mon, stderr, VG_DUMP_CAP, 0))
		fprintf(stderr, "vigil: out of memory for the dump\n");
	for (int i = 0; i < vg_follow_count(ss->procs); i++) {
		const struct vg_kid *k = vg_follow_at(ss->procs, i);

		vg_report_dump(ss->spec, k->mon, stderr, VG_DUMP_CAP,
			       (uint32_t)k->pid);
	}
	fprintf(stderr, "vigil: end of the monitor state; monitoring goes on\n");
}
