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
#include "watch_load.h"
#include "live_load.h"
#include "live_load_unit.h"
#include "session_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "follow/follow.h"
#include "monitor/monitor.h"
#include "report/evidence.h"
#include "report/report.h"
#include "sym/symbolize.h"

/* u's monitor of pid goes; with its verdicts when say. */
static void kid_drop(struct session *u, pid_t pid, bool say)
{
	struct vg_kid *k = vg_follow_find(u->procs, pid);

	if (!k)
		return;
	if (say) {
		vg_report_set_evidence(u->report, k->evidence);
		vg_report_final(u->report, k->mon, (uint32_t)pid);
		vg_report_set_evidence(u->report, u->evidence);
	}
	vg_follow_remove(u->procs, k);
}

/* pid leaves u: its links and its place in u's table of followed
 * processes, its kernel-tier slices, its monitor. */
static void leave(struct session *u, pid_t pid, bool say)
{
	vg_probe_refuse(u->probe, pid);
	if (vg_session_watch_kernel(u))
		vg_probe_forget_kslices(u->probe, pid);
	kid_drop(u, pid, say);
}

/* u follows pid: its monitor (a fresh one unless a fork record made its
 * copy), then its links (adopt: pid's entry in u's table made first). */
static void join(struct session *u, pid_t pid, bool adopt)
{
	struct vg_err e = { 0 };

	vg_session_monitor_of(u, pid);
	if (adopt ? vg_probe_adopt(u->probe, pid, &e)
		  : vg_probe_follow(u->probe, pid, &e)) {
		fprintf(stderr, "vigil: watch: pid %d: %s: %s: its properties from there do not watch it\n",
			pid, vg_load_path(u), e.msg);
		leave(u, pid, false);
	}
}

int vg_watch_unit_start(struct session *ss, struct session *u,
			struct vg_err *e)
{
	(void)e;
	/* its reports name a container's processes as the session's do */
	vg_session_watch_namer(ss, u->report);
	for (int i = 0; i < vg_follow_count(ss->procs); i++) {
		const struct vg_kid *k = vg_follow_at(ss->procs, i);

		if (!k->gone && !k->stopped)
			join(u, k->pid, true);
	}
	return 0;
}

void vg_watch_load_adopt(struct session *ss, pid_t pid)
{
	struct session *u;

	for (int k = 0; (u = vg_load_unit(ss, k)); k++) {
		vg_load_drain_unit(ss, u);
		if (vg_follow_find(u->procs, pid))	/* a reused pid's monitor */
			kid_drop(u, pid, false);
		join(u, pid, true);
	}
}

void vg_watch_load_forked(struct session *ss, pid_t child)
{
	struct session *u;

	for (int k = 0; (u = vg_load_unit(ss, k)); k++) {
		vg_load_drain_unit(ss, u);	/* its fork record: the copy */
		join(u, child, false);
	}
}

void vg_watch_load_exec(struct session *ss, pid_t pid)
{
	struct session *u;

	for (int k = 0; (u = vg_load_unit(ss, k)); k++) {
		vg_load_drain_unit(ss, u);
		if (vg_session_watch_kernel(u))
			vg_probe_forget_kslices(u->probe, pid);
		if (!vg_follow_find(u->procs, pid))
			continue;
		kid_drop(u, pid, false);	/* as the session's: no verdicts */
		vg_session_monitor_of(u, pid);
	}
}

void vg_watch_load_forget(struct session *ss, pid_t pid, bool verdicts)
{
	struct session *u;

	for (int k = 0; (u = vg_load_unit(ss, k)); k++) {
		vg_load_drain_unit(ss, u);
		vg_session_mirror_kslices(u);
		leave(u, pid, verdicts);
	}
}

void vg_watch_load_unfollow(struct session *ss, pid_t pid)
{
	struct session *u;

	for (int k = 0; (u = vg_load_unit(ss, k)); k++)
		vg_probe_unfollow(u->probe, pid);
}

void vg_watch_load_pause(struct session *ss, pid_t pid)
{
	struct session *u;

	for (int k = 0; (u = vg_load_unit(ss, k)); k++) {
		vg_probe_pause_proc(u->probe, pid);
		vg_load_drain_unit(ss, u);
	}
}

void vg_watch_load_unpause(struct session *ss, pid_t pid)
{
	struct session *u;
	struct vg_err e = { 0 };

	for (int k = 0; (u = vg_load_unit(ss, k)); k++) {
		if (!vg_follow_find(u->procs, pid) ||
		    !vg_probe_unpause_proc(u->probe, pid, &e))
			continue;
		fprintf(stderr, "vigil: watch: pid %d: %s: %s: its properties from there no longer watch it\n",
			pid, vg_load_path(u), e.msg);
		leave(u, pid, true);
	}
}

int vg_watch_unit_process(struct session *u, const struct vg_rec_proc *p)
{
	switch (p->h.event) {
	case VG_PROC_FORK:
		/* the session decides whether the child is followed
		 * (vg_watch_load_forked or _forget); the copy is made here,
		 * in order with the parent's events */
		if ((p->h.flags & VG_RF_FOLLOWED) &&
		    vg_follow_find(u->procs, (pid_t)p->h.pid))
			vg_session_kid_copy(u, (pid_t)p->h.pid, (pid_t)p->child);
		return 0;
	case VG_PROC_EXIT:
		vg_probe_unfollow(u->probe, (pid_t)p->child);
		if (vg_session_watch_kernel(u)) {
			vg_session_mirror_kslices(u);
			vg_probe_forget_kslices(u->probe, (pid_t)p->child);
		}
		kid_drop(u, (pid_t)p->child, true);
		return 0;
	default:	/* an exec: the session's to judge */
		return 0;
	}
}

void vg_watch_unit_final(struct session *u)
{
	while (vg_follow_count(u->procs) > 0)
		kid_drop(u, vg_follow_at(u->procs,
					 vg_follow_count(u->procs) - 1)->pid, true);
}
