/* Checkpoints and restores of program and monitor inside a live run: the
 * order of freezing, detaching, dumping and resuming, the i-RV loop
 * "checkpoint while good, restore on violation", `vigil restore N` in the
 * session, vigil watch's checkpoints per process, and where `vigil
 * checkpoint -p PID` finds the run. CRIU itself and the image ring are
 * act/checkpoint.c, fork snapshots act/snapshot_fork.c.
 *
 * Its state is one opaque struct vg_ckpt_run, the session's only field
 * for it. It sees the session through the run of user/feature/feature.h
 * (vg_run_*) and through the vg_ckpt_host_* calls at the end of this
 * header, which the session implements (user/session/ckpt_host.c): it
 * includes nothing of user/session/, so the session's monitor, probes and
 * processes stay the session's. */
#ifndef VIGIL_CKPT_H
#define VIGIL_CKPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "feature/feature.h"
#include "util/err.h"

struct vg_ckpt_run;
struct vg_probe;
struct vg_scenario;

/* The run's options that concern checkpoints (vg_session_opts) */
struct vg_ckpt_run_opts {
	const char *dir;	/* --checkpoint-dir, or NULL: the default */
	int keep;		/* --checkpoints N: images kept */
	uint64_t gap_ms;	/* --checkpoint-gap: at most one per */
	bool fork_snapshots;	/* --snapshot=fork */
	bool watch;		/* vigil watch: per process, by reaction */
	bool follow_forks;	/* --follow-fork: none at all */
	bool dynamic;		/* --dynamic: no restore in the session */
	bool attached;		/* vigil attach: the target is not our child */
};

/* The checkpoints of run r (the session, whose address stays for the
 * run's life); NULL when out of memory. Nothing is taken yet. */
struct vg_ckpt_run *vg_ckpt_run_new(struct vg_run *r,
				    const struct vg_ckpt_run_opts *o);
/* Frees the rings (their images stay) and the fork snapshots, but the
 * one a restore handed to the user. NULL: nothing. */
void vg_ckpt_run_free(struct vg_ckpt_run *c);

/* The kernel tier stopped the target for a checkpoint (VG_RF_CKPT): the
 * next one is taken whatever the gap, else the stop is undone. c may be
 * NULL (a `vigil load` unit takes no checkpoint). */
void vg_ckpt_run_kernel_stop(struct vg_ckpt_run *c);
/* After a drain: carry out what reactions asked (vg_scenario_take_
 * requests), a checkpoint, a restore; vigil watch's per process. A
 * failed checkpoint is reported and monitoring goes on; -1 (e set) only
 * when the session cannot go on. */
int vg_ckpt_run_requests(struct vg_ckpt_run *c, struct vg_err *e);
/* Take a checkpoint now (SIGUSR2: `vigil checkpoint -p PID`). */
int vg_ckpt_run_take(struct vg_ckpt_run *c, const char *reason, bool good,
		     struct vg_err *e);
/* The control channel's `checkpoint`: taken whatever the gap; hold: gdb
 * let go of the target in a group stop and attaches again after the
 * dump, so it stays stopped. *taken says whether one was. */
int vg_ckpt_run_asked(struct vg_ckpt_run *c, const char *reason, bool good,
		      bool hold, bool *taken, struct vg_err *e);
/* A reaction's checkpoint: taken now, or, while gdb's extension of the
 * live session traces the target, left to gdb, which lets go of the
 * process for it at its next stop (`checkpoint stopped reaction`). */
int vg_ckpt_run_reaction(struct vg_ckpt_run *c, const char *reason,
			 bool good, struct vg_err *e);
/* Bring back checkpoint num of this run (0: the newest), program and
 * monitor, in place of the target (same pid); hold: leave it stopped (gdb
 * attaches), else it runs on. Returns the checkpoint's number and a line
 * for people in text, or -1 with e set (the run ends when the program is
 * gone: vg_ckpt_run_restored). */
int vg_ckpt_run_restore(struct vg_ckpt_run *c, int num, bool hold,
			char *text, size_t tlen, struct vg_err *e);
/* Did a restore replace the target (the reaction's: the run ends with
 * it)? *from: what it came from, "" when the restore failed and the
 * target is gone. */
bool vg_ckpt_run_restored(const struct vg_ckpt_run *c, const char **from);
/* Moves at each restore inside the session: the loop opens the target's
 * pidfd again. */
unsigned vg_ckpt_run_gen(const struct vg_ckpt_run *c);
/* Image i of the ring (0 the oldest) into path: its number, or -1 past
 * the last (`vigil checkpoints`). */
int vg_ckpt_run_image(const struct vg_ckpt_run *c, int i, char *path,
		      size_t len);
/* Is pid one of the recent fork snapshots (vigil's own forks of the
 * target, not the target's)? */
bool vg_ckpt_run_is_snapshot(const struct vg_ckpt_run *c, pid_t pid);
/* At the end: the counts, and a failed restore, to out. */
void vg_ckpt_run_summary(const struct vg_ckpt_run *c, FILE *out);
/* Say where `vigil checkpoint -p PID` finds this run; and forget it. */
void vg_ckpt_run_advertise(struct vg_ckpt_run *c);
void vg_ckpt_run_unadvertise(struct vg_ckpt_run *c);
/* vigil watch: after a transition of pid went through the scenario, a
 * checkpoint it asked for (or the kernel tier's stop for one) is noted
 * for pid, taken by vg_ckpt_run_requests; pid is no longer watched: its
 * ring goes (its images stay). */
void vg_ckpt_run_watch_note(struct vg_ckpt_run *c, pid_t pid);
void vg_ckpt_run_watch_forget(struct vg_ckpt_run *c, pid_t pid);

/* --- what it asks of the session (user/session/ckpt_host.c) --- */

struct vg_probe *vg_ckpt_host_probe(struct vg_run *r);
struct vg_scenario *vg_ckpt_host_scenario(struct vg_run *r);
/* the target is now pid (a fork snapshot handed over, or CRIU's) */
void vg_ckpt_host_set_pid(struct vg_run *r, pid_t pid);
/* every record sent so far through the monitor */
int vg_ckpt_host_drain(struct vg_run *r, struct vg_err *e);
/* `vigil load`'s units' probes out (drained) and back */
void vg_ckpt_host_units_suspend(struct vg_run *r);
int vg_ckpt_host_units_resume(struct vg_run *r, struct vg_err *e);
/* the features hear of a checkpoint (vg_feature.checkpoint) */
void vg_ckpt_host_told(struct vg_run *r, pid_t of, const char *dir,
		       const char *reason, const char *what, const char *why);
/* the monitor state written beside an image, and brought back from one
 * (path: its monitor.state) into a fresh monitor; -1 with e set */
int vg_ckpt_host_write_state(struct vg_run *r, FILE *out, struct vg_err *e);
int vg_ckpt_host_load_state(struct vg_run *r, const char *path,
			    struct vg_err *e);
/* a slice of the target's monitor is in a violation state now (the
 * kernel tier's copied in first) */
bool vg_ckpt_host_violated(struct vg_run *r);
/* watchpoints are armed: their hardware breakpoints are the process's */
bool vg_ckpt_host_watchpoints(struct vg_run *r);
/* a restore brought the target back under its pid: the guard resumes
 * it if vigil dies, gdb's stops of the abandoned run are dropped */
void vg_ckpt_host_replaced(struct vg_run *r);
/* gdb's extension of the live session is process tracer; take a
 * reaction's checkpoint at gdb's next stop (false: one waits already) */
bool vg_ckpt_host_gdb_traces(struct vg_run *r, pid_t tracer);
bool vg_ckpt_host_gdb_checkpoint(struct vg_run *r, const char *reason,
				 bool good);

/* vigil watch: one watched process */
struct vg_ckpt_proc {
	bool stopped;		/* left stopped by a reaction, for gdb */
	uint64_t violations;
	uint64_t events;	/* its own in the user tier; all processes'
				 * in the kernel tier, which counts them
				 * together */
};
/* false: pid is not watched (any more) */
bool vg_ckpt_host_proc(struct vg_run *r, pid_t pid, struct vg_ckpt_proc *p);
/* its own slices as a one-process monitor state */
int vg_ckpt_host_write_proc_state(struct vg_run *r, pid_t pid, FILE *out,
				  struct vg_err *e);
/* `vigil load`'s units' probes of pid out and back */
void vg_ckpt_host_proc_units_pause(struct vg_run *r, pid_t pid);
void vg_ckpt_host_proc_units_unpause(struct vg_run *r, pid_t pid);
/* pid is watched no more (detail: why); it runs on */
void vg_ckpt_host_proc_drop(struct vg_run *r, pid_t pid, const char *detail);
/* --json's stream, or NULL */
FILE *vg_ckpt_host_json(struct vg_run *r);

#endif
