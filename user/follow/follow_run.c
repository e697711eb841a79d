/* The forks module (follow_run.h): --follow-fork's refusals, each
 * followed process's monitor and evidence, what a fork and an exec do to
 * them. The run is read through vg_run_* and vg_follow_host_* only. */
#include "follow_run.h"

#include <stdio.h>
#include <sys/stat.h>

#include "feature/feature.h"
#include "follow.h"
#include "load/load.h"
#include "monitor/monitor.h"
#include "proc/procinfo.h"
#include "report/evidence.h"
#include "spec/spec.h"

/* --follow-fork runs every property in the user tier (the kernel tier's
 * slices are keyed by their parameters only, and a child has the parent's
 * addresses), and does not mix with what saves or replays one process. */
int vg_follow_run_check(struct vg_run *r, bool *kernel, char (*why)[256],
			struct vg_err *e)
{
	const struct vg_spec *spec = vg_run_spec(r);
	struct vg_follow_host_how h;
	const char *no = NULL, *who;

	vg_follow_host_how(r, &h);
	if (!h.follow || h.watch_kernel)
		return 0;	/* (watch's own checks: user/watch/) */
	who = h.watch ? "vigil watch" : "--follow-fork";
	if (h.tier_kernel)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s runs every property in the user tier (kernel-tier slices do not tell processes apart): not with --tier=kernel",
				    who);
	if (h.watch)
		;	/* its own refusals (user/watch/); its checkpoints
			 * are per process (ckpt/watch_ckpt.c) */
	else if (h.record)
		no = "--record";
	else if (h.checkpoints)
		no = "checkpoints";
	for (int p = 0; !no && !h.watch && p < spec->nprops; p++)
		for (int i = 0; i < spec->props[p].nreactions; i++)
			for (int a = 0; a < spec->props[p].reactions[i].nactions; a++) {
				int k = spec->props[p].reactions[i].actions[a].kind;

				if (k == VG_ACT_CHECKPOINT || k == VG_ACT_RESTORE)
					no = "checkpoint and restore reactions";
			}
	if (no)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s does not go with %s: they concern one process",
				    who, no);
	for (int p = 0; p < spec->nprops; p++) {
		kernel[p] = false;
		snprintf(why[p], sizeof(why[p]),
			 "%s (kernel-tier slices do not tell processes apart)",
			 who);
	}
	return 0;
}

/* the target's monitor: the first of the run's */
static struct vg_monitor *target_monitor(const struct vg_run *r)
{
	struct vg_monitor *m = NULL;

	vg_run_monitors(r, &m, 1);
	return m;
}

/* Apart from vg_follow_run_monitor, which runs for every event of a
 * followed process: with this in it, gcc cleared the 4 KB vg_err on
 * every call (a fifth of vigil's CPU in the user tier). */
static struct vg_monitor *kid_monitor_new(struct vg_run *r, pid_t pid)
{
	const struct vg_spec *spec = vg_run_spec(r);
	struct vg_follow_host_how h;
	struct vg_err e = { 0 };
	struct vg_evidence *x;
	struct vg_monitor *m;

	vg_follow_host_how(r, &h);
	/* vigil watch: a smaller ring per process (its memory is touched
	 * as the process runs: 64k steps of a busy process were 2.5 MB) */
	x = vg_evidence_new(spec, h.watch ? 4096 : 0, h.evidence);
	/* (vigil watch --tier=kernel: kernel-tier properties mirrored, as
	 * in the target's monitor) */
	m = x ? vg_follow_host_monitor_new(r, x, &e) : NULL;
	if (m && !vg_follow_add(vg_follow_host_procs(r), pid, m, x)) {
		vg_monitor_free(m);
		m = NULL;
	}
	if (!m) {
		vg_evidence_free(x);
		fprintf(stderr, "vigil: no monitor for pid %d (%s): its events go to the target's\n",
			pid, e.msg[0] ? e.msg : "out of memory");
		return target_monitor(r);
	}
	/* vigil unload of a property the session started with (vigil
	 * watch): not in the processes that come later either */
	const bool *gone = vg_load_gone(r);

	for (int i = 0; gone && i < spec->nprops; i++)
		if (gone[i])
			vg_monitor_disable(m, i);
	return m;
}

struct vg_monitor *vg_follow_run_monitor(struct vg_run *r, pid_t pid)
{
	struct vg_kid *k = vg_follow_find(vg_follow_host_procs(r), pid);

	return k ? k->mon : kid_monitor_new(r, pid);
}

struct vg_evidence *vg_follow_run_evidence(const struct vg_run *r, pid_t pid)
{
	struct vg_kid *k = vg_follow_find(vg_follow_host_procs(r), pid);

	return k ? k->evidence : NULL;
}

void vg_follow_run_copy(struct vg_run *r, struct vg_monitor *from,
			struct vg_monitor *to, pid_t child)
{
	int failed;

	if (to == target_monitor(r) || to == from)
		return;		/* no monitor of its own (said already) */
	if ((failed = vg_follow_copy_monitor(vg_run_spec(r), from, to)))
		fprintf(stderr, "vigil: pid %d: %d of its parent's slices could not be copied (out of memory)\n",
			child, failed);
}

bool vg_follow_run_exec(struct vg_run *r, pid_t pid, uint64_t ino,
			uint32_t dev)
{
	struct vg_follow *procs = vg_follow_host_procs(r);
	struct vg_follow_host_how h;
	struct vg_kid *k;
	struct stat st;
	int prog;

	vg_follow_host_how(r, &h);
	/* a followed process's slices of its old program go */
	if (h.follow && pid != vg_run_pid(r) &&
	    (k = vg_follow_find(procs, pid)) && k->mon)
		vg_follow_forget_slices(vg_run_spec(r), k->mon);
	/* the same file as the program the probes are on? (the path may be
	 * /proc/self/exe, or a link) The kernel's numbers of the run's own
	 * exec where there was one; else stat's */
	prog = vg_follow_is_program(procs, ino, dev);
	return prog == 1 ||
	       (prog < 0 && !stat(vg_run_exe(r), &st) && st.st_ino == ino &&
		vg_kernel_dev(st.st_dev) == dev);
}
