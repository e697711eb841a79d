/* vigil watch's side of a session: the table of calls the core makes
 * into it, and what it may read and do of the session.
 *
 * user/watch/ fills in struct vg_session_watch_ops and hands it to the
 * session in its options (vg_session_opts.watch_ops, with watch_arg, its
 * own configuration) when it starts a watch session; outside vigil watch
 * the table is NULL and the core makes none of these calls. The module's
 * state is one opaque pointer its check makes; a `vigil load` unit of a
 * watch session (a part of the run, vg_run_part) shares the session's.
 *
 * The module sees the session as a struct vg_run only, through the
 * vg_run_* calls of feature/feature.h and the vg_watch_host_* calls
 * below, which user/session/watch_host.c implements; it includes nothing
 * private of user/session/. This header sits beside feature.h, between
 * the two, so that the session needs nothing of user/watch/, which runs
 * it (no include circle between the two). */
#ifndef VIGIL_FEATURE_WATCH_OPS_H
#define VIGIL_FEATURE_WATCH_OPS_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_run;
struct vg_rec_proc;
struct vg_slice_view;
struct vg_mon_event;
struct vg_monitor;
struct vg_evidence;
struct vg_symbolizer;
struct vg_watch_match;
struct vg_session_opts;
struct vg_follow;
struct vg_report;
struct vg_guard;
struct vg_ckpt_run;
struct vg_scenario;

/* Each call gets the state check made. Those that take a run are called
 * for a `vigil load` unit too: run is the part concerned (the session or
 * one of its units); the others are the session's own. */
struct vg_session_watch_ops {
	/* Before anything is loaded: what does not go with watch (-1, e
	 * set, VG_EXIT_USAGE), which processes it watches; *state made.
	 * arg: vg_session_opts.watch_arg. */
	int (*check)(struct vg_run *run, const void *arg, void **state,
		     struct vg_err *e);
	/* which processes it watches (user/watchmatch/watchmatch.h): the
	 * file's identity for the exec tracepoint */
	const struct vg_watch_match *(*match)(void *state);
	/* the probes are in: adopt the processes running it now */
	int (*open)(void *state, struct vg_err *e);
	/* a process record of the session (exec, exit; forks below) */
	int (*process)(void *state, const struct vg_rec_proc *p);
	/* a fork of a watched process: is there room for the child
	 * (--max-procs)? If not it is let go, counted and named */
	bool (*room)(void *state, pid_t child);
	/* the fork's child is followed (its monitor a copy of its
	 * parent's, its probes in): say so */
	void (*forked)(void *state, pid_t child);
	/* --tier=kernel: a fork is not followed (its parent's kernel-tier
	 * slices cannot be copied while it runs on): let go, said */
	void (*unfollowed_fork)(void *state, pid_t parent, pid_t child);
	/* A transition went through run's scenario: a violation counted for
	 * its process; a process a reaction stopped handed over for gdb */
	void (*transition)(void *state, struct vg_run *run,
			   const struct vg_slice_view *s, int to,
			   const struct vg_mon_event *ev);
	/* a kernel-tier step of pid in run: its monitor and evidence (left
	 * as they are for a process not watched) */
	void (*kproc)(void *state, struct vg_run *run, pid_t pid,
		      struct vg_monitor **mon, struct vg_evidence **x);
	/* pid's symbolizer in run (its maps, read at first use), or NULL */
	struct vg_symbolizer *(*symbolizer)(void *state, struct vg_run *run,
					    pid_t pid);
	/* run's kernel-tier slices into each process's monitor */
	void (*mirror)(void *state, struct vg_run *run);
	/* SIGHUP, SIGINT or SIGTERM: true when the caller's hooks took it
	 * and the watch goes on */
	bool (*signal)(void *state, int sig);
	/* should the loop end (the caller's keep_going said no)? */
	bool (*done)(void *state);
	/* pid is watched no more (its probes could not go back in after a
	 * checkpoint): its verdicts so far, said with detail */
	void (*drop)(void *state, pid_t pid, const char *detail);
	/* did a reaction leave a process stopped? (the guard keeps it so) */
	bool (*stopped)(void *state);
	/* the end: the processes still watched get their verdicts, then
	 * the counts */
	void (*finish)(void *state);
	/* the last call (after the report is gone): the state goes */
	void (*free)(void *state);

	/* --- vigil load's units (a unit is a part of the run) --- */

	/* unit is open: every process watched now joins it */
	int (*unit_start)(void *state, struct vg_run *unit, struct vg_err *e);
	/* a record of unit's own ring (fork, exec, exit) */
	int (*unit_process)(void *state, struct vg_run *unit,
			    const struct vg_rec_proc *p);
	/* unit's verdicts per process (its unload, or the end) */
	void (*unit_final)(void *state, struct vg_run *unit);
	/* the session follows a fork's child: each unit's copy and links,
	 * before the child runs */
	void (*units_forked)(void *state, pid_t child);
	/* the session lets go of pid: each unit's too (verdicts: it was
	 * watched) */
	void (*units_forget)(void *state, pid_t pid, bool verdicts);
	/* around one process's checkpoint: every unit's links in it out,
	 * and back */
	void (*units_pause)(void *state, pid_t pid);
	void (*units_unpause)(void *state, pid_t pid);
};

/* --- what the module may read and do of the session (watch_host.c),
 * beyond the vg_run_* calls; run: the session or one of its units --- */

/* its options (the module's own are in watch_arg) */
const struct vg_session_opts *vg_watch_host_opts(const struct vg_run *r);
/* resumes what vigil holds if vigil dies (proc/guard.h) */
struct vg_guard *vg_watch_host_guard(const struct vg_run *r);
/* its checkpoints (ckpt/ckpt.h), NULL in a unit */
struct vg_ckpt_run *vg_watch_host_ckpt(const struct vg_run *r);
/* pid's monitor in r, made (a fresh one) when it has none */
struct vg_monitor *vg_watch_host_monitor_of(struct vg_run *r, pid_t pid);
/* 1 + the event of the kernel tier's last stop not sent back to its
 * call (0: none; probe/jmp_stop.h), and forget it: a process's own */
int vg_watch_host_take_stop(struct vg_run *r);

#endif
