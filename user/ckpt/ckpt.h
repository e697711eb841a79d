/* Checkpoints and restores of program and monitor inside a live run: the
 * order of freezing, detaching, dumping and resuming, the i-RV loop
 * "checkpoint while good, restore on violation", `vigil restore N` in the
 * session, vigil watch's checkpoints per process, and where `vigil
 * checkpoint -p PID` finds the run; below them, the monitor's state
 * beside an image (monstate.c), CRIU and its ring of images
 * (checkpoint.c), the files a checkpointed process writes to (outfiles.c)
 * and fork snapshots (snapshot_fork.c), which `vigil restore DIR`, `vigil
 * restore --monitor` and `vigil doctor` use too.
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

struct vg_monitor;
struct vg_probe;
struct vg_spec;

/* --- the monitor's state beside an image (monstate.c) --- */

/* The monitor's state beside a checkpoint image: every slice (its
 * property, binding, state and variables), every global, from both tiers.
 * A process restored from an image must be monitored from the same moment,
 * or the verdicts are wrong: a queue restored with 8 items in it and a
 * monitor that counts 0 would never see the overflow.
 *
 * Text, one record a line, names rather than indices so that a state file
 * is refused (not misread) by a spec whose properties or states differ:
 *   vigil-monitor-state 1
 *   slice PROP MASK STATE INCONC P0 P1 P2 P3 V0 V1 ...
 *   global PROP INDEX VALUE
 *   unloaded PROP                (a property given at the start and
 *                                 unloaded since: load/unload.c)
 * then, for each spec file added with `vigil load` (load/load.c), a
 * section of its own, which vg_monstate_load stops at (the session's
 * spec has not those properties):
 *   loaded /abs/path/of/spec.vigil
 *   define NAME=VALUE            (its -D, as given; any number)
 *   properties NAME...           (the properties the file has)
 *   slice ... / global ...       (as above, that file's properties)
 */

/* kernel[prop]: the property runs in the kernel tier; its slices are read
 * from (and written to) the probe's slice table, the others from the
 * monitor. probe may be NULL when no property is in the kernel tier. */
int vg_monstate_write(FILE *out, const struct vg_spec *spec,
		      struct vg_monitor *mon, const struct vg_probe *probe,
		      const bool *kernel, struct vg_err *e);
/* vigil watch: the state of one watched process, as a one-process
 * state (vg_monstate_load reads it like any): mon is its monitor, and of
 * the kernel table (slices keyed by process) only its slices. */
int vg_monstate_write_proc(FILE *out, const struct vg_spec *spec,
			   struct vg_monitor *mon, const struct vg_probe *probe,
			   const bool *kernel, pid_t tgid, struct vg_err *e);
int vg_monstate_load(const char *path, const struct vg_spec *spec,
		     struct vg_monitor *mon, struct vg_probe *probe,
		     const bool *kernel, struct vg_err *e);

/* --- CRIU images (checkpoint.c) --- */

/* CRIU checkpoints of the target: a directory per image under one
 * checkpoint directory, a retention ring of the last N, and a small
 * meta file per image (time, event count, reason) beside the monitor's own
 * state, which the caller writes through a callback.
 *
 * Layout (DIR is --checkpoint-dir, default /dev/shm/vigil-UID/ckpt-PID on
 * a tmpfs /dev/shm, else RUNDIR/ckpt-PID):
 *   DIR/ck-0001/          criu images of checkpoint 1
 *   DIR/ck-0001/meta      key=value lines, see vg_ckpt_meta
 *   DIR/ck-0001/monitor.state   written by the caller
 *   DIR/ck-0001/outfiles  the files it writes to (below)
 *
 * The caller freezes the target and detaches its uprobes around
 * vg_ckpt_take (ckpt_run.c says why); this part only runs CRIU and
 * keeps the ring. */

struct vg_ckpt;

struct vg_ckpt_opts {
	const char *dir;	/* NULL: see the layout above */
	int keep;		/* images kept; 0 = default (8) */
	uint64_t min_gap_ms;	/* at most one checkpoint per gap; 0 = none */
};

/* What vigil knows about one image. */
struct vg_ckpt_meta {
	pid_t pid;
	char exe[4096];
	char reason[256];
	uint64_t events;	/* events seen when it was taken */
	uint64_t time_ns;	/* CLOCK_REALTIME */
	bool good;		/* taken while the property was not violated */
	bool has_state;		/* monitor.state is beside it */
};

typedef int (*vg_ckpt_state_fn)(void *ctx, FILE *out, struct vg_err *e);

struct vg_ckpt *vg_ckpt_new(pid_t pid, const char *exe,
			    const struct vg_ckpt_opts *o, struct vg_err *e);
void vg_ckpt_free(struct vg_ckpt *c);

/* Is a checkpoint due, or would it come too soon after the last one
 * (opts.min_gap_ms)? */
bool vg_ckpt_due(const struct vg_ckpt *c);
/* The same rule for other kinds of snapshot: true (and *last_ns = now)
 * when gap_ms have passed since *last_ns, or it is 0. */
bool vg_ckpt_gap_ok(uint64_t *last_ns, uint64_t gap_ms);

/* Dump the (frozen, probe-free) target with `criu dump --leave-running`
 * into a new image directory, then write meta and, through state(), the
 * monitor state. Drops the oldest image past the ring. Returns 0 and the
 * image's path in out, or -1 with e set (the target is untouched: a failed
 * dump leaves it running and the image is removed). */
int vg_ckpt_take(struct vg_ckpt *c, const char *reason, uint64_t events,
		 bool good, vg_ckpt_state_fn state, void *ctx, char *out,
		 size_t outlen, struct vg_err *e);

/* The newest image taken while good, or NULL. */
const char *vg_ckpt_last_good(const struct vg_ckpt *c);
int vg_ckpt_count(const struct vg_ckpt *c);
/* The i-th kept image, oldest first: its path in out; returns its number
 * (ck-NNNN), or -1 past the end. */
int vg_ckpt_image(const struct vg_ckpt *c, int i, char *out, size_t len);

/* Read DIR/meta. */
int vg_ckpt_read_meta(const char *dir, struct vg_ckpt_meta *m,
		      struct vg_err *e);

/* `criu restore` of the image in dir, detached, the process left stopped.
 * The pid must be free. Returns the restored pid, or -1 with e set. */
pid_t vg_ckpt_restore(const char *dir, struct vg_err *e);
/* The same, with the output files' descriptors given (below:
 * vg_outfiles_open, taken from the process being replaced while it was
 * alive); vg_ckpt_restore opens them by path. */
struct vg_outfiles;
pid_t vg_ckpt_restore_with(const char *dir, const struct vg_outfiles *of,
			   struct vg_err *e);

/* The CRIU binary: $VIGIL_CRIU, else criu on PATH, /usr/local/sbin/criu. */
const char *vg_criu_path(void);

/* --- the files a checkpointed process writes to (outfiles.c) --- */

/* The files a checkpointed process writes to (its stdout and stderr
 * redirected to a log, a log it opened itself), and how a restore gets
 * past them.
 *
 * CRIU saves a regular file's size with the image and refuses to restore
 * a process whose file has another size since ("has bad size"): every run
 * that writes to a log after the checkpoint would make it unrestorable.
 * So the checkpoint notes, beside the image (DIR/outfiles), each regular
 * file the process had open for writing, and the restore hands CRIU an
 * open descriptor of that file through `--inherit-fd fd[N]:PATH` instead:
 *  - inside the session, the very descriptor the old process had
 *    (pidfd_getfd before it is killed): same file offset, same flags, the
 *    offset shared as before with vigil's own stdout/stderr when the
 *    shell redirected them together;
 *  - from `vigil restore DIR`, the file opened again with the saved flags
 *    and positioned at its end.
 * Either way the restored program writes on after what the file holds
 * (the abandoned run's output stays, as on a terminal). Files are not
 * rolled back: one the program also reads (opened O_RDWR: Python's "w+"
 * log, a data file) holds what the abandoned run wrote too. Files open
 * only for reading keep CRIU's size check.
 *
 * A terminal the process has open (`vigil run --interactive` on a
 * terminal: its stdin, stdout and stderr) has its master outside the
 * dump, which CRIU refuses ("Found slave peer index 0 without correspond
 * master peer"). The dump takes it as external (`--external
 * tty[RDEV:DEV]`) and the restore hands CRIU the same terminal opened
 * again (`--inherit-fd fd[N]:tty[RDEV:DEV]`), as container runtimes do
 * for their consoles; the restored program writes on to that terminal. */

#define VG_OUTFILES_MAX 16
#define VG_TTY_ID_MAX 40		/* "tty[RDEV:DEV]", hex, with its NUL */

struct vg_outfiles {
	int n;
	int fd[VG_OUTFILES_MAX];		/* close-on-exec; criu's child
						 * clears the flag */
	char arg[VG_OUTFILES_MAX][4200];	/* "fd[N]:PATH-without-/" */
};

/* The terminals a dump takes as external, by CRIU id, each once. */
struct vg_outfiles_ttys {
	int n;
	char id[VG_OUTFILES_MAX][VG_TTY_ID_MAX];
};

/* Note pid's regular files open for writing in DIR/outfiles (the process
 * is stopped); with ttys, its terminals too, their ids in *ttys for the
 * dump's `--external` (NULL: a shell job's, which CRIU takes itself). A
 * process with none writes an empty file. */
int vg_outfiles_save(pid_t pid, const char *dir, struct vg_outfiles_ttys *ttys,
		     struct vg_err *e);

/* Descriptors for DIR/outfiles: from process `from` (still alive, the one
 * being replaced; 0 = none) where it has the same file open at the same
 * descriptor number, else opened by path. A file that is gone is left to
 * CRIU, which says so. An image without DIR/outfiles gives none. */
int vg_outfiles_open(const char *dir, pid_t from, struct vg_outfiles *of,
		     struct vg_err *e);
void vg_outfiles_close(struct vg_outfiles *of);

/* --- fork snapshots (snapshot_fork.c) --- */

/* Fork snapshots, as gdb's `checkpoint` takes them: vigil makes the
 * stopped target call fork() and keeps the child stopped, a copy of the
 * process at that moment that costs only the pages either side writes
 * later. Restoring kills the target and hands over the child. Far cheaper
 * than a CRIU dump, but only for single-threaded targets (fork copies the
 * calling thread alone) and only within one vigil session. */

struct vg_fsnap;

/* keep: snapshots kept, the oldest killed past it (0 = 8) */
struct vg_fsnap *vg_fsnap_new(int keep);
/* Kill every kept snapshot but `spare` (the one a restore handed over). */
void vg_fsnap_free(struct vg_fsnap *s, pid_t spare);

/* Snapshot pid, which the caller has stopped (SIGSTOP) and which stays
 * stopped. Returns the child's pid, or -1 with e set: a multi-threaded
 * target, no `syscall` instruction to borrow, ptrace refused. */
pid_t vg_fsnap_take(struct vg_fsnap *s, pid_t pid, bool good,
		    struct vg_err *e);

/* The newest snapshot taken while good, or 0. */
pid_t vg_fsnap_last_good(const struct vg_fsnap *s);

/* --- checkpoints inside a run (ckpt_run.c, restore.c, watch_ckpt.c) --- */

struct vg_ckpt_run;
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
/* The control channel's `checkpoint`, `checkpoints` and `restore`
 * (ckpt_ctl.c), answered as a feature's ctl hook: 0 not one of these; 1
 * answered, *text (malloc'ed, for a person) and *data (JSON, or NULL) the
 * reply; -1 refused, e saying why. */
int vg_ckpt_run_ctl(struct vg_ckpt_run *c, const char *cmd, json_t *args,
		    char **text, json_t **data, struct vg_err *e);

/* --- what it asks of the session (user/session/ckpt_host.c) --- */

/* the target is now pid (a fork snapshot handed over, or CRIU's) */
void vg_ckpt_host_set_pid(struct vg_run *r, pid_t pid);
/* every record sent so far through the monitor */
int vg_ckpt_host_drain(struct vg_run *r, struct vg_err *e);
/* `vigil load`'s units' probes out (drained) and back */
void vg_ckpt_host_units_suspend(struct vg_run *r);
int vg_ckpt_host_units_resume(struct vg_run *r, struct vg_err *e);
/* the features take out of the stopped target what must not be in a
 * dump (vg_feature.checkpoint_prepare); told next, taken or not */
int vg_ckpt_host_prepare(struct vg_run *r, pid_t of, struct vg_err *e);
/* the features hear of a checkpoint (vg_feature.checkpoint) */
void vg_ckpt_host_told(struct vg_run *r, pid_t of, const char *dir,
		       const char *reason, const char *what, const char *why);
/* the monitor state written beside an image, and brought back from one
 * (path: its monitor.state) into a fresh monitor; -1 with e set */
int vg_ckpt_host_write_state(struct vg_run *r, FILE *out, struct vg_err *e);
int vg_ckpt_host_load_state(struct vg_run *r, const char *path,
			    struct vg_err *e);
/* watchpoints are armed: their hardware breakpoints are the process's */
bool vg_ckpt_host_watchpoints(struct vg_run *r);
/* a restore brought the target back under its pid: the guard resumes
 * it if vigil dies, gdb's stops of the abandoned run are dropped, the
 * features put in it what they had in the old one (still stopped) */
void vg_ckpt_host_replaced(struct vg_run *r);
/* gdb's extension of the live session is process tracer; take a
 * reaction's checkpoint at gdb's next stop (false: one waits already) */
bool vg_ckpt_host_gdb_traces(struct vg_run *r, pid_t tracer);
bool vg_ckpt_host_gdb_checkpoint(struct vg_run *r, const char *reason,
				 bool good);
/* the reaction's checkpoint that waited for gdb, taken off the list: its
 * reason and good/bad; false when none waits */
bool vg_ckpt_host_gdb_take(struct vg_run *r, char *reason, size_t len,
			   bool *good);

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
