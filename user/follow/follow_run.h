/* The forks module: what --follow-fork (and vigil watch, which follows
 * its processes the same way) does in a run, over the set of followed
 * processes of follow.h. The options it refuses, each followed process's
 * monitor and evidence made at its first event, a fork's copy of the
 * parent's slices, an exec's forget. The core dispatches the process
 * records (user/session/session_procs.c) and asks for a followed child's
 * monitor only: the target's own events never come here.
 *
 * It sees the run as a struct vg_run, through the vg_run_* calls of
 * user/feature/feature.h and the vg_follow_host_* calls at the end of
 * this header, which user/session/follow_host.c implements; this folder
 * includes nothing of user/session/. */
#ifndef VIGIL_FOLLOW_RUN_H
#define VIGIL_FOLLOW_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_run;
struct vg_follow;
struct vg_monitor;
struct vg_evidence;

/* Before anything is planned: what does not go with following processes
 * (--tier=kernel; --record and checkpoints, which concern one process),
 * as a usage error; else every property to the user tier (kernel[p]
 * false, why[p] says so), since the kernel tier's slices do not tell
 * processes apart. Nothing without --follow-fork, or in vigil watch
 * --tier=kernel (its own checks: user/watch/). */
int vg_follow_run_check(struct vg_run *r, bool *kernel, char (*why)[256],
			struct vg_err *e);
/* The monitor of followed process pid (not the target), made at its
 * first event so that its slices (the same addresses, after a fork) are
 * not the parent's. Out of memory, the target's, and vigil says so. */
struct vg_monitor *vg_follow_run_monitor(struct vg_run *r, pid_t pid);
/* the evidence of followed process pid's slices, NULL when it has none of
 * its own (the target's then) */
struct vg_evidence *vg_follow_run_evidence(const struct vg_run *r, pid_t pid);
/* A fork: the child's monitor, to, starts as a copy of its parent's,
 * from (each as the core's vg_session_monitor_of gives it; follow.c says
 * what is copied); nothing when the child has no monitor of its own. */
void vg_follow_run_copy(struct vg_run *r, struct vg_monitor *from,
			struct vg_monitor *to, pid_t child);
/* An exec by process pid in the target's tree (not vigil run's own), of
 * the file the kernel numbers ino, dev: a followed process's slices of
 * its old program go. Is that file the program the probes are on? */
bool vg_follow_run_exec(struct vg_run *r, pid_t pid, uint64_t ino,
			uint32_t dev);

/* --- what the forks module asks of the core (user/session/follow_host.c) --- */

/* The options it depends on */
struct vg_follow_host_how {
	bool follow;		/* --follow-fork, or vigil watch */
	bool watch;		/* vigil watch */
	bool watch_kernel;	/* vigil watch --tier=kernel: its slices keyed
				 * by process in the kernel */
	bool tier_kernel;	/* --tier=kernel */
	bool record;		/* --record */
	/* --snapshot=fork, a restored monitor state, or
	 * --on-violation=checkpoint */
	bool checkpoints;
	int evidence;		/* --evidence N */
};
void vg_follow_host_how(const struct vg_run *r, struct vg_follow_host_how *h);
/* the run's followed processes */
struct vg_follow *vg_follow_host_procs(const struct vg_run *r);
/* A followed process's monitor, made as the target's is (its kernel-tier
 * properties mirrored; NULL with e set), and the stacks of its evidence
 * x's events found and named as the target's are */
struct vg_monitor *vg_follow_host_monitor_new(struct vg_run *r,
					      struct vg_evidence *x,
					      struct vg_err *e);

#endif
