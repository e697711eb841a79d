/* The end of a run (vg_session_finish, called by the loop in session.c
 * once monitoring is over): the probes' counts and the run's stats, the
 * final verdicts of every monitor (the target's, followed processes',
 * vigil load's), the leak check's and the watchpoints' last words, the
 * checkpoints' summary, and a target left stopped at a violation handed
 * to gdb (live/live_gdb.c: its command printed, or run in vigil's place
 * when a `gdb` reaction asked and vigil is on a terminal). */
#include "session_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "act/scenario.h"
#include "ckpt/ckpt.h"
#include "feature/feature.h"
#include "follow/follow.h"
#include "live/live.h"
#include "load/load.h"
#include "monitor/monitor.h"
#include "probe/probe.h"
#include "report/report.h"
#include "watchset/watchset.h"

int vg_session_finish(struct session *ss, bool exited, int code, int sig)
{
	struct vg_run_stats st = { .exit_code = code, .exit_signal = sig,
				   .target_exited = exited };
	int n = ss->p.spec->nevents;
	uint64_t unfollowed, stacks_lost;

	vg_session_mirror_kslices(ss);
	/* the in-process agent's unknown memory predicates, which its
	 * kernel tier counts rather than sends */
	for (int k = 0; k < VG_KMAX_PROPS; k++) {
		uint64_t unk, kept;
		int prop = vg_probe_kprop_of(ss->p.probe, k);

		vg_probe_kunknown(ss->p.probe, k, &unk, &kept);
		if (prop >= 0)
			vg_monitor_add_unknown(ss->p.mon, prop, unk, kept);
	}
	st.hits = calloc(n + 1, sizeof(uint64_t));
	st.lost_per_event = calloc(n + 1, sizeof(uint64_t));
	for (int i = 0; st.hits && st.lost_per_event && i < n; i++) {
		/* (the loader's rendezvous is vigil's, not the spec's) */
		if (ss->p.spec->events[i].maps_sync)
			continue;
		vg_probe_counts(ss->p.probe, i, &st.hits[i],
				&st.lost_per_event[i]);
		st.lost += st.lost_per_event[i];
	}
	/* events: what the probes saw; records: what reached user space
	 * (fewer in the kernel tier, which keeps quiet events to itself) */
	st.records = ss->events;
	for (int i = 0; st.hits && i < n; i++)
		st.events += st.hits[i];
	st.kfull = vg_probe_counter(ss->p.probe, VG_CNT_KFULL);
	st.kbusy = vg_probe_counter(ss->p.probe, VG_CNT_KBUSY);
	st.capfaults = vg_probe_counter(ss->p.probe, VG_CNT_CAPFAULT);
	vg_follow_counts(ss->procs, &st.forks, &st.execs);
	unfollowed = vg_probe_counter(ss->p.probe, VG_CNT_UNFOLLOWED);
	stacks_lost = vg_probe_counter(ss->p.probe, VG_CNT_STACK_LOST);
	if (unfollowed)
		fprintf(stderr, "vigil: %llu forked processes were not followed (too many at once, or their fork records were lost): their calls are not monitored\n",
			(unsigned long long)unfollowed);
	if (stacks_lost)
		fprintf(stderr, "vigil: %llu call stacks were lost (more distinct stacks than vigil keeps, or the ring buffer full): the evidence of their events has none\n",
			(unsigned long long)stacks_lost);
	if (getenv("VIGIL_DEBUG"))
		fprintf(stderr, "vigil: debug: %llu call stacks sent outside the stack map\n",
			(unsigned long long)vg_probe_counter(ss->p.probe,
							     VG_CNT_STACK_SPILLED));
	if (st.lost)
		for (int i = 0; i < ss->p.spec->nprops; i++)
			vg_monitor_mark_inconclusive(ss->p.mon, i);
	/* the program is gone: its heap is what it will be, and the names
	 * of the final report (every verdict's pointer) are read from a
	 * copy of it rather than looked up one by one */
	if (exited)
		vg_probe_blocks_freeze(ss->p.probe);
	vg_report_set_evidence(ss->p.report, ss->p.evidence);
	vg_report_final(ss->p.report, ss->p.mon, 0);
	vg_session_watch_finish(ss);	/* its processes, and its counts */
	vg_follow_report_final(ss->procs, ss->p.report, -1); /* --follow-fork */

	{	/* the features' own verdicts (the leak check's) */
		struct vg_run_end end = { .exited = exited, .exit_code = code,
					  .exit_signal = sig };

		vg_features_finish(ss, &end);
	}
	vg_report_stats(ss->p.report, ss->p.mon, &st);
	vg_watchset_finish(ss->ws, stderr);
	vg_hold_finish(ss);
	free(st.hits);
	free(st.lost_per_event);

	vg_ckpt_run_summary(ss->ckpt, stderr);
	if (!exited)	/* a target left stopped: how to debug it */
		vg_live_handoff((struct vg_run *)ss, ss->ckpt, ss->stop_event,
				ss->exec_gdb, sizeof(ss->exec_gdb));
	/* every error the ERROR SUMMARY counted, a leak at the end as much
	 * as a violation during the run: `vigil run ... && echo clean` */
	return vg_scenario_violated(ss->p.sc) ||
	       vg_load_violated((struct vg_run *)ss) ||
	       vg_report_errors(ss->p.report) ? VG_EXIT_VIOLATION : VG_EXIT_OK;
}
