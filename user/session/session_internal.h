/* Private to user/session/: the run's state, shared by the loop and its
 * files, and by the *_host.c files, where a module's struct vg_run is
 * the session again. */
#ifndef VIGIL_SESSION_INTERNAL_H
#define VIGIL_SESSION_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <stdint.h>
#include <jansson.h>

#include "session.h"
#include "follow/follow_run.h"
#include "probe/probe.h"

struct vg_ckpt_run;
struct vg_evidence;
struct vg_symbolizer;
struct vg_slice_view;
struct vg_mon_event;
struct vg_guard;
struct vg_monitor;
struct vg_watchset;
struct vg_live;
struct vg_load;
struct vg_follow;
struct vg_watch_match;

/* The processes whose probes stopped a thread for vigil to act first
 * (VG_RF_ARMSTOP), until the drain's records are handled (hold.c) */
struct vg_holds {
	struct {
		pid_t pid, tid;
	} held[16];		/* threads, of one process or more */
	int n;
	bool overflow;		/* more threads than slots */
	uint64_t count;		/* such records, in the whole run */
	/* what the holds cost the program: each held record's wait, from
	 * its probe's time to its release (either tier's); those noted
	 * since the last release, and the sum of their times after
	 * since_ns */
	uint64_t waits;
	double waited_ns;
	uint64_t pending, pending_sum_ns;
	/* when vigil let the program it launched go (CLOCK_MONOTONIC, the
	 * records' clock): a stop from before, made while the in-process
	 * tier ran it to its entry with ptrace, is not held any more (that
	 * run took it, and the release resumes it), whether its record was
	 * read before the release (held: forgotten then) or after */
	uint64_t since_ns;
};

/* vg_part.unseen: what a property that cannot see some calls concludes */
enum { VG_UNSEEN_BLIND = 1,	/* not accepting; its violations are real */
       VG_UNSEEN_DOUBTS = 2 };	/* nor are its violations sure */

/* One set of properties installed on the process: the run's own, or a
 * `vigil load` unit's. vg_session_part_open makes it from its plan,
 * vg_session_part_free frees it (the probes apart: see there). */
struct vg_part {
	struct vg_spec *spec;
	bool *kernel;			/* [nprops]: in the kernel tier */
	bool *stack_on;			/* [nevents]: the probe captures stacks */
	/* [nprops]: uses an event no probe can take here (plan_unseen.c):
	 * each monitor's verdicts of it are inconclusive at best, and its
	 * violations too when VG_UNSEEN_DOUBTS; NULL: none */
	uint8_t *unseen;
	struct vg_probe *probe;
	struct vg_monitor *mon;
	struct vg_report *report;
	struct vg_scenario *sc;		/* its reactions */
	struct vg_evidence *evidence;	/* what reports show of a slice */
	struct vg_symbolizer *sym;	/* the target's, made at first use */
	struct vg_symval *symval;	/* names of pointers (symval/) */
	struct vg_objmap *objmap;	/* the memory predicates' objects
					 * (objmap/); NULL when no property
					 * uses one */
};

struct session {
	struct vg_part p;
	const struct vg_session_opts *o;
	pid_t pid;
	char exe[PATH_MAX];		/* the target's program */
	/* where spec functions are looked for besides the loader's
	 * libraries: --lib's, and when attached, the shared objects the
	 * process has mapped (copies, owned; a loaded unit borrows them) */
	const char **libs;
	size_t nlibs;
	struct vg_guard *guard;		/* resumes the target if vigil dies */
	struct vg_recorder *rec;	/* --record */
	struct vg_err *err;		/* where on_record reports */
	uint64_t seq, events;		/* records handled */
	bool warned_loss;
	/* the record being handled, for the monitor hook */
	bool rec_stopped;
	int stop_event;			/* 1 + the event of the kernel tier's
					 * last stop not sent back to its call
					 * (0: none), for probe/jmp_stop.h */
	bool target_exited;		/* the loop saw it exit */
	char exec_gdb[4200];		/* a `gdb` reaction: run this at the end */
	struct vg_holds holds;		/* stopped by a probe for us (hold.c) */
	/* each feature's state (features.c, user/feature/feature.h), or
	 * NULL; a loaded unit borrows the session's */
	void **feature_state;
	bool feature_borrowed;
	/* the modules the core hosts, each its state or NULL: the processes
	 * followed besides the target, --follow-fork's and vigil watch's
	 * (user/follow/); vigil watch's own (user/watch/, called through
	 * o->watch_ops: watch_calls.c); watchpoints (user/watchset/);
	 * checkpoints and restores (user/ckpt/; NULL in a `vigil load`
	 * unit, which takes none); the control channel and the live gdb
	 * session (user/live/; a unit borrows the session's while its
	 * records go through); `vigil load`'s units (user/load/) */
	struct vg_follow *procs;
	void *watch;
	struct vg_watchset *ws;
	struct vg_ckpt_run *ckpt;
	struct vg_live *live;
	struct vg_load *loaded;
	/* a vigil load unit in vigil watch: the session whose processes it
	 * follows (user/watch/watch_load.c) and whose watch state it shares
	 * (watch_calls.c); NULL otherwise */
	struct session *watch_root;
};

/* The features' hooks, called by the core (features.c; feature.h says
 * when each is called) */
struct vg_run_end;
struct vg_plan_opts;
struct vg_plan;
int vg_features_prepare(struct session *ss, struct vg_err *e);
int vg_features_plan(struct session *ss, struct vg_plan_opts *po,
		     struct vg_err *e);
int vg_features_start(struct session *ss, struct vg_plan *plan,
		      struct vg_err *e);
void vg_features_record(struct session *ss, const struct vg_mon_event *ev,
			uint32_t flags);
int vg_features_drained(struct session *ss, struct vg_err *e);
int vg_features_save(struct session *ss, FILE *out, struct vg_err *e);
int vg_features_restore(struct session *ss, const char *path,
			struct vg_err *e);
void vg_features_dump(struct session *ss);
void vg_features_stop(struct session *ss, pid_t pid, pid_t tid);
void vg_features_finish(struct session *ss, const struct vg_run_end *end);
void vg_features_share(struct session *ss, struct session *unit);
void vg_features_transition(struct session *ss, const struct vg_slice_view *s,
			    int from, const struct vg_mon_event *ev);
void vg_features_tick(struct session *ss);
int vg_features_checkpoint_prepare(struct session *ss, pid_t of,
				   struct vg_err *e);
void vg_features_replaced(struct session *ss, pid_t pid);
void vg_features_checkpoint(struct session *ss, pid_t of, const char *dir,
			    const char *reason, const char *what,
			    const char *why);
void vg_features_gdb_terminal(struct session *ss);
int vg_features_ctl(struct session *ss, const char *cmd, json_t *args,
		    char **text, json_t **data, struct vg_err *e);
void vg_features_end(struct session *ss, const struct vg_run_end *end);
/* (and their states freed) */
void vg_features_released(struct session *ss, const struct vg_run_end *end);

/* A slice moved (either tier; stopped: the kernel tier stopped the
 * thread in the probe): the scenario's reactions, then the features',
 * vigil watch's and the live side's news of it (session.c) */
void vg_session_react(struct session *ss, const struct vg_slice_view *s,
		      int from, int to, const struct vg_mon_event *ev,
		      bool stopped);

/* What a set of properties gets once its plan is built, the session's
 * own (open_all) or a loaded unit's (load_host.c): each property's tier
 * and the events whose stacks its probes take, as planned; its report
 * (JSON to its options' json_path), evidence, names of pointers, monitor
 * and scenario (session.c) */
int vg_session_part_open(struct session *s, const struct vg_plan *plan,
			 struct vg_err *e);
/* Everything of p but its probes, which close first (the end of the
 * run, a unit's unload), and its spec, which is its owner's */
void vg_session_part_free(struct vg_part *p);
/* A monitor of the session's properties, its kernel-tier ones mirrored
 * rather than evaluated: the target's, a followed process's, a
 * restore's, a loaded unit's (session.c) */
struct vg_monitor *vg_session_monitor_new(struct session *ss,
					  struct vg_err *e);

/* The monitor hooks and the evidence's stack source (session.c). */
void vg_session_on_transition(void *ctx, const struct vg_slice_view *s,
			      int from, int to, const struct vg_mon_event *ev);
int vg_session_event_stack(void *ctx, const struct vg_mon_event *ev,
			   char (*lines)[320], int max);

/* --- the kernel tier's object map (session_objmap.c) --- */

/* the objects the probes' map holds (probe.h, objmap_objects): 0 when
 * the plan has none */
uint64_t vg_session_objmap_objects(const struct vg_plan *plan,
				   const char *binary);
/* each allocation event's part, once the probes are open */
int vg_session_objmap_events(struct session *ss, const struct vg_plan *plan,
			     struct vg_err *e);
/* at the launched program's exec, stopped there: the map set up, its
 * globals and heap's start filed */
void vg_session_objmap_exec(struct session *ss);
/* at the loader's rendezvous (the process held there), the globals of
 * the objects it mapped since */
void vg_session_objmap_maps(struct session *ss, pid_t pid);
/* a restore replaced the target: the map's heap forgotten (unknown) */
void vg_session_objmap_replaced(struct session *ss);

/* --- the target's process tree (session_procs.c) --- */

/* A fork or an exec of the target (VG_REC_PROC): reported, counted; a
 * followed process's to the forks module (follow/follow_run.h). */
int vg_session_on_process(struct session *ss, const struct vg_rec_proc *p);
/* The monitor of the process an event came from: the target's, or with
 * --follow-fork a descendant's, made at its first event. Every event
 * asks: the module is called for a followed process's only. */
static inline struct vg_monitor *vg_session_monitor_of(struct session *ss,
							pid_t pid)
{
	if (pid == ss->pid || !ss->o->follow_forks)
		return ss->p.mon;
	return vg_follow_run_monitor((struct vg_run *)ss, pid);
}
/* the evidence of process pid's slices: a followed child's own, else the
 * target's */
static inline struct vg_evidence *vg_session_evidence_of(
	const struct session *ss, pid_t pid)
{
	struct vg_evidence *x = pid != ss->pid
		? vg_follow_run_evidence((const struct vg_run *)ss, pid) : NULL;

	return x ? x : ss->p.evidence;
}

/* --- vigil watch: the core's calls into its table (watch_calls.c,
 * feature/watch_ops.h says what each does); each is nothing outside vigil watch
 * (no o->watch_ops) --- */

/* before anything is loaded: its refusals, its state made */
int vg_session_watch_check(struct session *ss, struct vg_err *e);
/* which processes it watches, NULL outside vigil watch */
const struct vg_watch_match *vg_session_watch_match(const struct session *ss);
/* did a reaction leave one stopped? */
bool vg_session_watch_stopped(const struct session *ss);
int vg_session_watch_open(struct session *ss, struct vg_err *e);
int vg_session_watch_process(struct session *ss, const struct vg_rec_proc *p);
/* true outside vigil watch */
bool vg_session_watch_room(struct session *ss, pid_t child);
void vg_session_watch_forked(struct session *ss, pid_t child);
void vg_session_watch_transition(struct session *ss,
				 const struct vg_slice_view *s, int to,
				 const struct vg_mon_event *ev);
void vg_session_watch_kproc(struct session *ss, pid_t pid,
			    struct vg_monitor **mon, struct vg_evidence **x);
void vg_session_watch_unfollowed_fork(struct session *ss, pid_t parent,
				      pid_t child);
struct vg_symbolizer *vg_session_watch_symbolizer(struct session *ss,
						 pid_t pid);
void vg_session_watch_mirror(struct session *ss);
bool vg_session_watch_signal(struct session *ss, int sig);
bool vg_session_watch_done(struct session *ss);
void vg_session_watch_drop(struct session *ss, pid_t pid, const char *detail);
void vg_session_watch_finish(struct session *ss);
void vg_session_watch_free(struct session *ss);
/* vigil load's units in vigil watch: unit u opened, a record of its own
 * ring, its verdicts per process; and the session's news of a process
 * for every unit */
int vg_watch_unit_start(struct session *ss, struct session *u,
			struct vg_err *e);
int vg_watch_unit_process(struct session *u, const struct vg_rec_proc *p);
void vg_watch_unit_final(struct session *u);
void vg_session_watch_units_forked(struct session *ss, pid_t child);
void vg_session_watch_units_forget(struct session *ss, pid_t pid,
				   bool verdicts);
void vg_session_watch_units_pause(struct session *ss, pid_t pid);
void vg_session_watch_units_unpause(struct session *ss, pid_t pid);
/* vigil watch --tier=kernel: slices keyed by process in the kernel. */
bool vg_session_watch_kernel(const struct session *ss);

/* --- records that stopped the target for us (hold.c) --- */

/* A record read: note the process a VG_RF_ARMSTOP record stopped. */
void vg_hold_note(struct session *ss, const struct vg_rec_hdr *h);
/* The records are handled: the features' part of it (their drained
 * hooks), then let those processes go, unless a reaction wants one
 * stopped. -1 with e set when a feature's failed (the processes go all
 * the same). */
int vg_hold_release(struct session *ss, struct vg_err *e);
/* At the end: nothing vigil stopped stays stopped unless asked. */
void vg_hold_finish(struct session *ss);

/* Monitoring is over (session_end.c): the stats, the final verdicts and
 * summaries, a stopped target handed to gdb; the exit status for vigil
 * (VG_EXIT_OK / VG_EXIT_VIOLATION). */
int vg_session_finish(struct session *ss, bool exited, int code, int sig);

/* The target's symbolizer, made at first use (session_records.c) */
struct vg_symbolizer *vg_session_symbolizer(struct session *ss);

/* --- the monitor as it is now (session_records.c) --- */

/* What the probes saw so far, all events together: hits, and records
 * lost (the ring buffer was full). */
void vg_session_event_totals(const struct session *ss, uint64_t *events,
			     uint64_t *lost);

/* Copy the kernel tier's slices (states and variables) into the monitor. */
void vg_session_mirror_kslices(struct session *ss);

/* --- state timeouts (timeouts.c) --- */

/* Shorten the loop's wait to the earliest deadline. */
void vg_session_timeout_wait(struct session *ss, struct timespec *to);
/* After a drain: fire every timeout due by now, in every monitor. */
int vg_session_timeouts(struct session *ss, struct vg_err *e);

/* The ring-buffer callback: one record through the monitor. */
int vg_session_on_record(void *ctx, const struct vg_probe_rec *r);

#endif
