/* Private to user/ckpt/: the run's checkpoint state, shared by the
 * one-target checkpoints (ckpt_run.c), the restore in the session
 * (restore.c) and vigil watch's per process (watch_ckpt.c). */
#ifndef VIGIL_CKPT_INTERNAL_H
#define VIGIL_CKPT_INTERNAL_H

#include <limits.h>

#include "ckpt.h"

struct vg_ckpt;
struct vg_fsnap;
struct vg_watch_ckpt;

struct vg_ckpt_run {
	struct vg_run *run;		/* the session */
	struct vg_ckpt_run_opts o;
	struct vg_ckpt *ck;		/* created at the first checkpoint */
	struct vg_fsnap *fs;		/* --snapshot=fork, likewise */
	uint64_t taken, skipped, failed;
	uint64_t last_fsnap_ns;		/* for --checkpoint-gap */
	bool kstop;			/* the kernel tier stopped the target
					 * for a checkpoint (VG_RF_CKPT) */
	bool hold;			/* a checkpoint for gdb: the target is
					 * stopped and stays so */
	bool restored;			/* a `restore` replaced the target */
	pid_t restored_child;		/* a fork snapshot handed over */
	char restored_from[PATH_MAX + 64];
	char session_file[PATH_MAX + 64];	/* for `vigil checkpoint` */
	/* restores inside the session (restore.c); the loop opens the
	 * target's pidfd again when gen moves */
	unsigned gen;
	pid_t snap_pids[16];		/* recent fork snapshots: vigil's own
					 * forks, not the target's */
	unsigned nsnaps;
	struct vg_watch_ckpt *wck;	/* vigil watch's (watch_ckpt.c), or
					 * NULL */
};

/* A checkpoint of pid not taken (what: "checkpoint failed", "checkpoint
 * deferred"; why): news for the operator as much as one taken, to stderr
 * and to the features (ckpt_run.c) */
void vg_ckpt_not_taken(struct vg_ckpt_run *c, pid_t pid, const char *what,
		       const char *reason, const char *why);
/* The kernel tier may stop the target for the next checkpoint from
 * --checkpoint-gap on. */
void vg_ckpt_rearm(struct vg_ckpt_run *c);
/* Is a slice in a violation state now? A checkpoint is "good" when not.
 * Until a restore this is whether a violation was seen at all; after one,
 * the violations of the abandoned run no longer count (the slices that
 * made them are gone with it). (restore.c) */
bool vg_ckpt_violated_now(struct vg_ckpt_run *c);
/* Wait until the target's pid is gone, reaping it when it is our child. */
void vg_ckpt_wait_gone(struct vg_ckpt_run *c);
/* vigil watch: the checkpoints noted, each of its own process; its state
 * freed (watch_ckpt.c) */
int vg_watch_ckpt_run(struct vg_ckpt_run *c, struct vg_err *e);
void vg_watch_ckpt_free(struct vg_ckpt_run *c);

#endif
