/* The target's process tree (user/session/session_internal.h): which
 * module hears of the forks and execs it reports and of a followed
 * process's exit. With --follow-fork the descendants are monitored beside
 * it, each with its own monitor and evidence: the forks module
 * (user/follow/follow_run.h) keeps them. */
#include "session_internal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "act/scenario.h"
#include "ckpt/ckpt.h"
#include "follow/follow.h"
#include "follow/follow_run.h"
#include "proc/guard.h"
#include "report/report.h"
#include "symval/symval.h"
#include "objmap/objmap.h"
#include "watchset/watchset.h"

/* The target (or a followed process) forked or exec'd, or a followed
 * process ended. vigil run's own exec of the program is the start of the
 * run, not news. */
int vg_session_on_process(struct session *ss, const struct vg_rec_proc *p)
{
	char path[sizeof(p->path)];
	bool same;

	if (ss->watch_root)	/* a vigil load unit in vigil watch */
		return vg_watch_unit_process(ss, p);
	if (ss->o->watch_ops && p->h.event != VG_PROC_FORK)
		return vg_session_watch_process(ss, p);
	if (p->h.event == VG_PROC_EXIT) {	/* a followed process ended */
		vg_probe_unfollow(ss->p.probe, (pid_t)p->child);
		vg_follow_mark_gone(ss->procs, (pid_t)p->child);
		return 0;
	}
	if (p->h.event == VG_PROC_FORK) {
		bool followed = p->h.flags & VG_RF_FOLLOWED;

		if (vg_ckpt_run_is_snapshot(ss->ckpt, (pid_t)p->child))
			return 0;
		/* first, since the child is held stopped until then (and let
		 * go even if this fails) */
		if (followed && !vg_session_watch_room(ss, (pid_t)p->child))
			return 0;	/* let go, said */
		if (followed && vg_session_watch_kernel(ss)) {
			/* the parent's kernel-tier slices cannot be copied
			 * for it while the parent runs on */
			vg_session_watch_unfollowed_fork(ss, (pid_t)p->h.pid,
							 (pid_t)p->child);
			return 0;
		}
		if (followed) {
			struct vg_err fe = { 0 };
			struct vg_monitor *from =
				vg_session_monitor_of(ss, (pid_t)p->h.pid);

			vg_follow_run_copy((struct vg_run *)ss, from,
					   vg_session_monitor_of(ss, (pid_t)p->child),
					   (pid_t)p->child);
			vg_guard_add(ss->guard, (pid_t)p->child);
			/* vigil load's units: their probes in before it runs */
			vg_session_watch_units_forked(ss, (pid_t)p->child);
			if (vg_probe_follow(ss->p.probe, (pid_t)p->child, &fe)) {
				fprintf(stderr, "vigil: pid %u: %s: it runs unmonitored\n",
					p->child, fe.msg);
				vg_session_watch_units_forget(ss, (pid_t)p->child,
							      false);
				followed = false;
			} else {
				vg_session_watch_forked(ss, (pid_t)p->child);
			}
		}
		vg_report_process(ss->p.report, VG_PROC_FORK, p->h.pid, p->child,
				  NULL, followed,
				  vg_follow_count_fork(ss->procs));
		return 0;
	}
	if (!ss->o->pid && vg_follow_launch_exec(ss->procs, p->ino, p->dev)) {
		/* the program is loaded, stopped there for its watchpoints
		 * (bpf/vigil/lifecycle.bpf.c, stop_at_exec) */
		vg_symval_exec(ss->p.symval, ss->exe, p->start_code,
			       p->interp_base);
		/* the kernel tier's object map: the globals, the heap */
		vg_session_objmap_exec(ss);
		if (!vg_probe_has_global_watches(ss->p.probe)) {
			if (vg_probe_stops_at_exec(ss->p.probe))
				kill(ss->pid, SIGCONT);
			return 0;
		}
		if (vg_watchset_start(ss->ws, ss->err)) {
			/* it has run none of its code: end it rather than let
			 * it run unwatched */
			kill(ss->pid, SIGKILL);
			return -1;
		}
		kill(ss->pid, SIGCONT);
		return 0;
	}
	memcpy(path, p->path, sizeof(path));
	path[sizeof(path) - 1] = 0;
	same = vg_follow_run_exec((struct vg_run *)ss, (pid_t)p->h.pid, p->ino,
				  p->dev);
	if ((pid_t)p->h.pid == ss->pid) {	/* a new program: no object left */
		vg_objmap_exec(ss->p.objmap);
		/* the kernel tier's map: stopped at the exec for it (probe.h) */
		if (vg_probe_objmap_ready(ss->p.probe)) {
			vg_session_objmap_exec(ss);
			kill(ss->pid, SIGCONT);
		}
	}
	if (same && (pid_t)p->h.pid == ss->pid)	/* its globals moved */
		vg_symval_exec(ss->p.symval, ss->exe, p->start_code,
			       p->interp_base);
	vg_report_process(ss->p.report, VG_PROC_EXEC, p->h.pid, 0, path, same,
			  vg_follow_count_exec(ss->procs));
	return 0;
}
