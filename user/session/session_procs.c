/* The target's process tree (user/session/session_internal.h): the forks
 * and execs it reports, and with --follow-fork the descendants monitored
 * beside it, each with its own monitor and evidence (their set:
 * user/follow/follow.h). */
#include "session_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "act/scenario.h"
#include "follow/follow.h"
#include "load/load.h"
#include "ckpt/ckpt.h"
#include "monitor/monitor.h"
#include "proc/guard.h"
#include "proc/procinfo.h"
#include "report/evidence.h"
#include "report/report.h"
#include "symval/symval.h"
#include "watchset/watchset.h"

/* --follow-fork runs every property in the user tier (the kernel tier's
 * slices are keyed by their parameters only, and a child has the parent's
 * addresses), and does not mix with what saves or replays one process. */
int vg_session_follow_check(struct session *ss, char (*why)[256],
			    struct vg_err *e)
{
	const char *no = NULL;

	if (!ss->o->follow_forks || vg_session_watch_kernel(ss))
		return 0;	/* (watch's own checks: user/watch/) */
	if (ss->o->tier == VG_TIER_KERNEL)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s runs every property in the user tier (kernel-tier slices do not tell processes apart): not with --tier=kernel",
				    ss->o->watch_exe ? "vigil watch" : "--follow-fork");
	if (ss->o->watch_exe)
		;	/* its own refusals (user/watch/); its checkpoints
			 * are per process (ckpt/watch_ckpt.c) */
	else if (ss->o->record_path)
		no = "--record";
	else if (ss->o->fork_snapshots || ss->o->state_path ||
		 ss->o->on_violation == VG_OV_CHECKPOINT)
		no = "checkpoints";
	for (int p = 0; !no && !ss->o->watch_exe && p < ss->spec->nprops; p++)
		for (int r = 0; r < ss->spec->props[p].nreactions; r++)
			for (int a = 0; a < ss->spec->props[p].reactions[r].nactions; a++) {
				int k = ss->spec->props[p].reactions[r].actions[a].kind;

				if (k == VG_ACT_CHECKPOINT || k == VG_ACT_RESTORE)
					no = "checkpoint and restore reactions";
			}
	if (no)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s does not go with %s: they concern one process",
				    ss->o->watch_exe ? "vigil watch" : "--follow-fork",
				    no);
	for (int p = 0; p < ss->spec->nprops; p++) {
		ss->kernel[p] = false;
		snprintf(why[p], sizeof(why[p]),
			 "%s (kernel-tier slices do not tell processes apart)",
			 ss->o->watch_exe ? "vigil watch" : "--follow-fork");
	}
	return 0;
}

/* Apart from vg_session_monitor_of, which runs for every event: with
 * this in it, gcc cleared the 4 KB vg_err on every call (a fifth of
 * vigil's CPU in the user tier). */
static struct vg_monitor *kid_monitor_new(struct session *ss, pid_t pid)
{
	struct vg_err e = { 0 };
	struct vg_evidence *x;
	struct vg_monitor *m;

	/* vigil watch: a smaller ring per process (its memory is touched
	 * as the process runs: 64k steps of a busy process were 2.5 MB) */
	x = vg_evidence_new(ss->spec, ss->o->watch_exe ? 4096 : 0,
			    ss->o->evidence);
	/* (vigil watch --tier=kernel: kernel-tier properties mirrored, as
	 * in the target's monitor) */
	m = x ? vg_session_monitor_new(ss, &e) : NULL;
	if (m && !vg_follow_add(ss->procs, pid, m, x)) {
		vg_monitor_free(m);
		m = NULL;
	}
	if (!m) {
		vg_evidence_free(x);
		fprintf(stderr, "vigil: no monitor for pid %d (%s): its events go to the target's\n",
			pid, e.msg[0] ? e.msg : "out of memory");
		return ss->mon;
	}
	vg_evidence_set_stacks(x, vg_session_event_stack, ss);
	/* vigil unload of a property the session started with (vigil
	 * watch): not in the processes that come later either */
	const bool *gone = vg_load_gone((struct vg_run *)ss);

	for (int i = 0; gone && i < ss->spec->nprops; i++)
		if (gone[i])
			vg_monitor_disable(m, i);
	return m;
}

/* --follow-fork: each followed process has a monitor of its own, made at
 * its first event, so that its slices (the same addresses, after a fork)
 * are not the parent's. Out of memory, the target's monitor takes its
 * events, and vigil says so. */
struct vg_monitor *vg_session_monitor_of(struct session *ss, pid_t pid)
{
	struct vg_kid *k;

	if (pid == ss->pid || !ss->o->follow_forks)
		return ss->mon;
	if ((k = vg_follow_find(ss->procs, pid)))
		return k->mon;
	return kid_monitor_new(ss, pid);
}

struct vg_evidence *vg_session_evidence_of(const struct session *ss,
					   pid_t pid)
{
	struct vg_kid *k = pid != ss->pid ? vg_follow_find(ss->procs, pid)
					  : NULL;

	return k ? k->evidence : ss->evidence;
}

/* A fork: the child's monitor starts as a copy of its parent's
 * (follow.c says what is copied). */
static void kid_from_parent(struct session *ss, pid_t parent, pid_t child)
{
	struct vg_monitor *from = vg_session_monitor_of(ss, parent);
	struct vg_monitor *to = vg_session_monitor_of(ss, child);
	int failed;

	if (to == ss->mon || to == from)
		return;		/* no monitor of its own (said already) */
	if ((failed = vg_follow_copy_monitor(ss->spec, from, to)))
		fprintf(stderr, "vigil: pid %d: %d of its parent's slices could not be copied (out of memory)\n",
			child, failed);
}

void vg_session_kid_copy(struct session *ss, pid_t parent, pid_t child)
{
	kid_from_parent(ss, parent, child);
}

/* A followed process exec'd: the slices of its old program go. */
static void kid_forget(struct session *ss, pid_t pid)
{
	struct vg_kid *k = vg_follow_find(ss->procs, pid);

	if (k && k->mon)
		vg_follow_forget_slices(ss->spec, k->mon);
}

bool vg_session_kids_running(struct session *ss)
{
	return vg_follow_running(ss->procs);
}

/* The target (or a followed process) forked or exec'd, or a followed
 * process ended. vigil run's own exec of the program is the start of the
 * run, not news. */
int vg_session_on_process(struct session *ss, const struct vg_rec_proc *p)
{
	char path[sizeof(p->path)];
	struct stat st;
	bool same;
	int prog;

	if (ss->watch_root)	/* a vigil load unit in vigil watch */
		return vg_watch_unit_process(ss, p);
	if (ss->o->watch_ops && p->h.event != VG_PROC_FORK)
		return vg_session_watch_process(ss, p);
	if (p->h.event == VG_PROC_EXIT) {	/* a followed process ended */
		vg_probe_unfollow(ss->probe, (pid_t)p->child);
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

			kid_from_parent(ss, (pid_t)p->h.pid, (pid_t)p->child);
			vg_guard_add(ss->guard, (pid_t)p->child);
			/* vigil load's units: their probes in before it runs */
			vg_session_watch_units_forked(ss, (pid_t)p->child);
			if (vg_probe_follow(ss->probe, (pid_t)p->child, &fe)) {
				fprintf(stderr, "vigil: pid %u: %s: it runs unmonitored\n",
					p->child, fe.msg);
				vg_session_watch_units_forget(ss, (pid_t)p->child,
							      false);
				followed = false;
			} else {
				vg_session_watch_forked(ss, (pid_t)p->child);
			}
		}
		vg_report_process(ss->report, VG_PROC_FORK, p->h.pid, p->child,
				  NULL, followed,
				  vg_follow_count_fork(ss->procs));
		return 0;
	}
	if (!ss->o->pid && vg_follow_launch_exec(ss->procs, p->ino, p->dev)) {
		/* the program is loaded, stopped there for its watchpoints
		 * (bpf/vigil/lifecycle.bpf.c, stop_at_exec) */
		vg_symval_exec(ss->symval, ss->exe, p->start_code,
			       p->interp_base);
		if (!vg_probe_has_global_watches(ss->probe))
			return 0;
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
	/* the same file as the program the probes are on? (the path may be
	 * /proc/self/exe, or a link) The kernel's numbers of the run's own
	 * exec where there was one; else stat's */
	prog = vg_follow_is_program(ss->procs, p->ino, p->dev);
	same = prog == 1 ||
	       (prog < 0 && !stat(ss->exe, &st) && st.st_ino == p->ino &&
		vg_kernel_dev(st.st_dev) == p->dev);
	if (ss->o->follow_forks && (pid_t)p->h.pid != ss->pid)
		kid_forget(ss, (pid_t)p->h.pid);
	if (same && (pid_t)p->h.pid == ss->pid)	/* its globals moved */
		vg_symval_exec(ss->symval, ss->exe, p->start_code,
			       p->interp_base);
	vg_report_process(ss->report, VG_PROC_EXEC, p->h.pid, 0, path, same,
			  vg_follow_count_exec(ss->procs));
	return 0;
}
