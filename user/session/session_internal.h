/* Private to user/session/: the live session's state, shared by the loop
 * (session.c), the checkpoint/restore glue (session_ckpt.c) and the
 * process tree (session_procs.c). */
#ifndef VIGIL_SESSION_INTERNAL_H
#define VIGIL_SESSION_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <time.h>
#include <stdint.h>

#include "session.h"
#include "probe/probe.h"
#include "dynamic.h"

struct vg_ckpt;
struct vg_fsnap;
struct vg_evidence;
struct vg_symbolizer;
struct vg_slice_view;
struct vg_mon_event;
struct vg_guard;
struct vg_monitor;
struct vg_watchset;
struct vg_status;
struct vg_view;
struct vg_live;

struct session {
	struct vg_spec *spec;
	const struct vg_session_opts *o;
	pid_t pid;
	bool *kernel;
	struct vg_probe *probe;
	struct vg_monitor *mon;
	struct vg_report *report;
	struct vg_scenario *sc;
	struct vg_guard *guard;		/* resumes the target if vigil dies */
	struct vg_recorder *rec;
	struct vg_err *err;		/* where on_record reports */
	char exec_gdb[4200];		/* a `gdb` reaction: run this at the end */
	uint64_t seq, events;
	uint64_t forks, execs;		/* by the target (VG_REC_PROC) */
	struct {			/* --follow-fork: their monitors */
		pid_t pid;
		struct vg_monitor *mon;
		struct vg_evidence *evidence;
		bool gone;		/* its exit was seen (VG_PROC_EXIT) */
	} *kids;
	int nkids;
	bool launch_exec_seen;		/* vigil run: the exec that starts it */
	struct vg_dyn *dyn;		/* --dynamic (dynamic.c), or NULL */
	struct vg_watchset *ws;		/* watchpoints (watchset.c), or NULL */
	struct {			/* stopped by a probe for us (hold.c) */
		pid_t pid, tid;
	} held[16];
	int nheld;
	bool held_overflow;
	uint64_t holds;
	pid_t snap_pids[16];		/* recent fork snapshots: vigil's own
					 * forks, not the target's */
	unsigned nsnaps;
	bool warned_loss;
	/* the record being handled, for the monitor hook */
	bool rec_stopped;
	struct vg_evidence *evidence;	/* what reports show of a slice */
	struct vg_symbolizer *sym;	/* the target's, made at first use */
	struct vg_symval *symval;	/* names of pointers (symval.c) */
	/* where spec functions are looked for besides the loader's
	 * libraries: --lib's, and when attached, the shared objects the
	 * process has mapped (`mapped`, owned) */
	const char **libs;
	size_t nlibs;
	char **mapped;
	size_t nmapped;
	bool *stack_on;			/* [nevents]: the probe captures stacks */
	/* checkpoints (session_ckpt.c) */
	char exe[PATH_MAX];
	struct vg_ckpt *ck;		/* created at the first checkpoint */
	struct vg_fsnap *fs;		/* --snapshot=fork, likewise */
	uint64_t ckpt_taken, ckpt_skipped, ckpt_failed;
	uint64_t last_fsnap_ns;		/* for --checkpoint-gap */
	bool ckpt_stop;			/* the kernel tier stopped the target
					 * for a checkpoint (VG_RF_CKPT) */
	bool restored;			/* a `restore` replaced the target */
	pid_t restored_child;		/* a fork snapshot handed over */
	char restored_from[PATH_MAX + 64];
	char session_file[PATH_MAX + 64];	/* for `vigil checkpoint` */
	/* the live view (session_live.c): the status line, or NULL; the
	 * probes' event count and time at the last redraw */
	struct vg_status *status;
	uint64_t live_events, live_ns;
	/* --view (session_view.c): the page's server, or NULL; transitions
	 * taken in the user tier (the kernel tier counts its own); the
	 * violations listed, as JSON; the probes' count at the last frame */
	struct vg_view *view;
	uint64_t *view_fired;
	char **view_viol;
	int nview_viol;
	uint64_t view_viol_more, view_seq, view_events, view_ns, view_t0;
	uint64_t view_mirror_ns;	/* the kernel table last read */
	bool target_exited;		/* the loop saw it exit */
	/* the control channel, `vigil break`, --interactive (live.c) */
	struct vg_live *live;
	pid_t gdb_pid;			/* --interactive on a terminal */
	bool keep_stopped_at_end;	/* `vigil keep-stopped`, gdb gone */
	bool ckpt_hold;			/* a checkpoint for gdb: the target is
					 * stopped and stays so */
	struct vg_leaks *leaks;		/* the leak check (leaks.c) */
};

/* The monitor hooks and the evidence's stack source (session.c). */
void vg_session_on_transition(void *ctx, const struct vg_slice_view *s,
			      int from, int to, const struct vg_mon_event *ev);
int vg_session_event_stack(void *ctx, const struct vg_mon_event *ev,
			   char (*lines)[320], int max);

/* --- the target's process tree (session_procs.c) --- */

/* A fork or an exec of the target (VG_REC_PROC): reported, counted. */
int vg_session_on_process(struct session *ss, const struct vg_rec_proc *p);
/* The monitor of the process an event came from: the target's, or with
 * --follow-fork a descendant's, made at its first event. */
struct vg_monitor *vg_session_monitor_of(struct session *ss, pid_t pid);
/* --follow-fork: is a followed descendant still running? vigil waits for
 * them after the target exits. */
bool vg_session_kids_running(struct session *ss);
/* --follow-fork: every property to the user tier (why[] says so), and an
 * error for what concerns one process only (--record, checkpoints). */
int vg_session_follow_check(struct session *ss, char (*why)[256],
			    struct vg_err *e);

/* --- dynamic instrumentation (dynamic.c) --- */

/* vg_dyn_plan, vg_dyn_free: dynamic.h */
/* A record read: note an arming stop (VG_RF_ARMSTOP). */
void vg_dyn_note(struct session *ss, const struct vg_rec_hdr *h);
/* After a drain: attach what arming stops asked for, resume the target. */
int vg_dyn_after_drain(struct session *ss, struct vg_err *e);
/* Now and then: detach the probes no live slice can use. */
int vg_dyn_sweep(struct session *ss, struct vg_err *e);
/* At the end: the counts; and a target an arming stop may still hold is
 * let go unless a reaction stopped it. */
void vg_dyn_finish(struct session *ss);

/* --- records that stopped the target for us (hold.c) --- */

/* A record read: note the process a VG_RF_ARMSTOP record stopped. */
void vg_hold_note(struct session *ss, const struct vg_rec_hdr *h);
/* The records are handled: let those processes go, unless a reaction
 * wants one stopped. */
void vg_hold_release(struct session *ss);
/* At the end: nothing vigil stopped stays stopped unless asked. */
void vg_hold_finish(struct session *ss);

/* --- the leak check (leaks.c, leaks.h) --- */

struct vg_leaks;
/* Its suppressions (--suppressions) and --leak-check's hold event. */
int vg_session_leaks_open(struct session *ss, struct vg_err *e);
void vg_session_leaks_close(struct session *ss);
/* An event: is it the target at _exit, held for the check? */
void vg_session_leaks_note(struct session *ss, const struct vg_mon_event *ev);
/* After a drain, before the holds are let go: the check at exit. */
void vg_session_leaks_at_exit(struct session *ss);
/* The check now (the target stopped for it and resumed unless it was
 * stopped already): the loss records as text to text, as one JSON line to
 * json (either may be NULL); regs: register values to count as roots
 * (gdb's, when it holds the threads). -1 with e set. */
int vg_session_leak_check(struct session *ss, const char *when, FILE *text,
			  FILE *json, const uint64_t *regs, size_t nregs,
			  struct vg_err *e);
/* SIGUSR1: the check now, to stderr and --json (nothing without a leak
 * property) */
void vg_session_leaks_on_demand(struct session *ss);
/* The target's symbolizer, made at first use (session.c) */
struct vg_symbolizer *vg_session_symbolizer(struct session *ss);

/* --- the live view (session_live.c) --- */

/* What the probes saw so far, all events together: hits, and records
 * lost (the ring buffer was full). */
void vg_session_event_totals(const struct session *ss, uint64_t *events,
			     uint64_t *lost);
/* A wake-up of the loop: redraw the status line when one is due. */
void vg_session_live_tick(struct session *ss);
/* SIGUSR1: the whole monitor state on stderr. */
void vg_session_dump(struct session *ss);
/* Copy the kernel tier's slices (states and variables) into the monitor. */
void vg_session_mirror_kslices(struct session *ss);

/* --- the live page, --view (session_view.c) --- */

/* Start its server (nothing without --view) and say its URL. */
int vg_session_view_open(struct session *ss, struct vg_err *e);
/* `vigil view PID`: the page's URL, its server started now if need be
 * (then its edge counts start now), or NULL with e set. */
const char *vg_session_view_url(struct session *ss, struct vg_err *e);
/* A transition, user tier or kernel (s->trans -1): count its edge, list a
 * violation with its evidence x. */
void vg_session_view_transition(struct session *ss, struct vg_evidence *x,
				const struct vg_slice_view *s, int from,
				const struct vg_mon_event *ev);
/* A wake-up of the loop: a new frame when a page wants one. */
void vg_session_view_tick(struct session *ss);
/* The run is over (the probes still open): the last frame. */
void vg_session_view_final(struct session *ss);
/* Stop serving, after keeping the last frame up until SIGINT/SIGTERM when
 * linger is set. */
void vg_session_view_close(struct session *ss, bool linger);

/* --- state timeouts (timeouts.c) --- */

/* Shorten the loop's wait to the earliest deadline. */
void vg_session_timeout_wait(struct session *ss, struct timespec *to);
/* After a drain: fire every timeout due by now, in every monitor. */
int vg_session_timeouts(struct session *ss, struct vg_err *e);

/* The ring-buffer callback: one record through the monitor. */
int vg_session_on_record(void *ctx, const struct vg_probe_rec *r);

/* Carry out what reactions asked (vg_scenario_take_requests): a
 * checkpoint, a restore. A failed checkpoint is reported and monitoring
 * goes on; -1 (e set) only when the session cannot go on. */
int vg_session_requests(struct session *ss, struct vg_err *e);
/* Take a checkpoint now (`vigil checkpoint`, SIGUSR2). */
int vg_session_checkpoint(struct session *ss, const char *reason, bool good,
			  struct vg_err *e);
/* Say where `vigil checkpoint -p PID` finds this session; and forget it. */
void vg_session_advertise(struct session *ss);
void vg_session_unadvertise(struct session *ss);
void vg_session_ckpt_free(struct session *ss);

#endif
