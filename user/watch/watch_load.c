/* `vigil load` / `vigil unload` in vigil watch (watch_load.h says what a
 * unit is there).
 *
 * Who decides what: the session alone holds processes (its exec and fork
 * tracepoints stop them) and decides which are watched (--exe,
 * --same-build, --max-procs); a unit's probe set is opened as a follower
 * (probe.h): it holds nothing and attaches links for the pids it is given.
 * So every decision the session takes about a process reaches each unit
 * before the process runs on:
 *   - adopted (at its exec, or found running): the unit's monitor and
 *     links for it, then the session lets it go;
 *   - a fork followed: the unit's own fork record (its fork tracepoint
 *     marks the child followed in its own table) copies the parent's
 *     slices as the session's does; the session first drains the unit so
 *     that record is handled, then the unit's links go in, then the child
 *     runs;
 *   - let go of, for any reason but its exit: the unit's verdicts for it,
 *     its links and monitor go;
 *   - its exit: the unit's own exit record, after the unit's last events
 *     of it (the session's exit record may be read before the unit's
 *     exit tracepoint has run).
 * The unit's events are drained before each such step, so they land in
 * the monitor they belong to. */
#include "watch/watch_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/feature.h"
#include "follow/follow.h"
#include "follow/follow_run.h"
#include "load/load.h"
#include "monitor/monitor.h"
#include "probe/probe.h"
#include "report/evidence.h"
#include "report/report.h"
#include "session/session.h"
#include "feature/watch_ops.h"
#include "watch/watch_session.h"

static bool kernel_tier(const struct vg_run *u)
{
	return vg_watch_host_opts(u)->tier == VG_TIER_KERNEL;
}

/* u's monitor of pid goes; with its verdicts when say. */
static void kid_drop(struct vg_run *u, pid_t pid, bool say)
{
	struct vg_follow *procs = vg_follow_host_procs(u);
	struct vg_report *r = vg_run_report(u);
	struct vg_kid *k = vg_follow_find(procs, pid);

	if (!k)
		return;
	if (say) {
		vg_report_set_evidence(r, k->evidence);
		vg_report_final(r, k->mon, (uint32_t)pid);
		vg_report_set_evidence(r, vg_run_evidence(u, vg_run_pid(u)));
	}
	vg_follow_remove(procs, k);
}

/* pid leaves u: its links and its place in u's table of followed
 * processes, its kernel-tier slices, its monitor. */
static void leave(struct vg_run *u, pid_t pid, bool say)
{
	vg_probe_refuse(vg_run_probe(u), pid);
	if (kernel_tier(u))
		vg_probe_forget_kslices(vg_run_probe(u), pid);
	kid_drop(u, pid, say);
}

/* u follows pid: its monitor (a fresh one unless a fork record made its
 * copy), then its links (adopt: pid's entry in u's table made first). */
static void join(struct vg_run *u, pid_t pid, bool adopt)
{
	struct vg_err e = { 0 };

	vg_watch_host_monitor_of(u, pid);
	if (adopt ? vg_probe_adopt(vg_run_probe(u), pid, &e)
		  : vg_probe_follow(vg_run_probe(u), pid, &e)) {
		fprintf(stderr, "vigil: watch: pid %d: %s: %s: its properties from there do not watch it\n",
			pid, vg_load_path(u), e.msg);
		leave(u, pid, false);
	}
}

int vg_watch_load_start(struct vg_run *root, struct vg_run *unit,
			struct vg_err *e)
{
	struct vg_follow *procs = vg_follow_host_procs(root);

	(void)e;
	/* its reports name a container's processes as the session's do */
	vg_watch_name_procs(root, vg_run_report(unit));
	for (int i = 0; i < vg_follow_count(procs); i++) {
		const struct vg_kid *k = vg_follow_at(procs, i);

		if (!k->gone && !k->stopped)
			join(unit, k->pid, true);
	}
	return 0;
}

void vg_watch_load_adopt(struct vg_run *root, pid_t pid)
{
	struct vg_run *u;

	for (int k = 0; (u = vg_load_unit(root, k)); k++) {
		vg_load_drain_unit(root, u);
		if (vg_follow_find(vg_follow_host_procs(u), pid))	/* a reused pid's monitor */
			kid_drop(u, pid, false);
		join(u, pid, true);
	}
}

void vg_watch_load_forked(struct vg_run *root, pid_t child)
{
	struct vg_run *u;

	for (int k = 0; (u = vg_load_unit(root, k)); k++) {
		vg_load_drain_unit(root, u);	/* its fork record: the copy */
		join(u, child, false);
	}
}

void vg_watch_load_exec(struct vg_run *root, pid_t pid)
{
	struct vg_run *u;

	for (int k = 0; (u = vg_load_unit(root, k)); k++) {
		vg_load_drain_unit(root, u);
		if (kernel_tier(u))
			vg_probe_forget_kslices(vg_run_probe(u), pid);
		if (!vg_follow_find(vg_follow_host_procs(u), pid))
			continue;
		kid_drop(u, pid, false);	/* as the session's: no verdicts */
		vg_watch_host_monitor_of(u, pid);
	}
}

void vg_watch_load_forget(struct vg_run *root, pid_t pid, bool verdicts)
{
	struct vg_run *u;

	for (int k = 0; (u = vg_load_unit(root, k)); k++) {
		vg_load_drain_unit(root, u);
		vg_run_sync_kernel(u);
		leave(u, pid, verdicts);
	}
}

void vg_watch_load_unfollow(struct vg_run *root, pid_t pid)
{
	struct vg_run *u;

	for (int k = 0; (u = vg_load_unit(root, k)); k++)
		vg_probe_unfollow(vg_run_probe(u), pid);
}

void vg_watch_load_pause(struct vg_run *root, pid_t pid)
{
	struct vg_run *u;

	for (int k = 0; (u = vg_load_unit(root, k)); k++) {
		vg_probe_pause_proc(vg_run_probe(u), pid);
		vg_load_drain_unit(root, u);
	}
}

void vg_watch_load_unpause(struct vg_run *root, pid_t pid)
{
	struct vg_run *u;
	struct vg_err e = { 0 };

	for (int k = 0; (u = vg_load_unit(root, k)); k++) {
		if (!vg_follow_find(vg_follow_host_procs(u), pid) ||
		    !vg_probe_unpause_proc(vg_run_probe(u), pid, &e))
			continue;
		fprintf(stderr, "vigil: watch: pid %d: %s: %s: its properties from there no longer watch it\n",
			pid, vg_load_path(u), e.msg);
		leave(u, pid, true);
	}
}

int vg_watch_load_process(struct vg_run *u, const struct vg_rec_proc *p)
{
	switch (p->h.event) {
	case VG_PROC_FORK:
		/* the session decides whether the child is followed
		 * (vg_watch_load_forked or _forget); the copy is made here,
		 * in order with the parent's events */
		if ((p->h.flags & VG_RF_FOLLOWED) &&
		    vg_follow_find(vg_follow_host_procs(u), (pid_t)p->h.pid)) {
			struct vg_monitor *from =
				vg_watch_host_monitor_of(u, (pid_t)p->h.pid);

			vg_follow_run_copy(u, from,
					   vg_watch_host_monitor_of(u, (pid_t)p->child),
					   (pid_t)p->child);
		}
		return 0;
	case VG_PROC_EXIT:
		vg_probe_unfollow(vg_run_probe(u), (pid_t)p->child);
		if (kernel_tier(u)) {
			vg_run_sync_kernel(u);
			vg_probe_forget_kslices(vg_run_probe(u),
						(pid_t)p->child);
		}
		kid_drop(u, (pid_t)p->child, true);
		return 0;
	default:	/* an exec: the session's to judge */
		return 0;
	}
}

void vg_watch_load_final(struct vg_run *u)
{
	struct vg_follow *procs = vg_follow_host_procs(u);

	while (vg_follow_count(procs) > 0)
		kid_drop(u, vg_follow_at(procs, vg_follow_count(procs) - 1)->pid,
			 true);
}
