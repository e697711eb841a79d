/* The session core's one interface to its features, as nginx's core is to
 * its modules: a feature is a table of hooks and of its own command-line
 * options, registered in user/session/features.c. The core calls the hooks a feature
 * fills in, in registration order, each with the feature's own state (an
 * opaque pointer its prepare or start made); it knows none of its fields,
 * and a feature sees the run only through the vg_run_* calls below.
 *
 * A feature is one folder with one header that declares its table
 * (user/webhook/webhook.h: vg_webhook_feature); adding one touches that
 * folder, its line in features.c and its tests. */
#ifndef VIGIL_FEATURE_H
#define VIGIL_FEATURE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_run;			/* the run, as a feature sees it */
struct vg_spec;
struct vg_slice_view;
struct vg_mon_event;
struct vg_monitor;
struct vg_evidence;
struct vg_probe;
struct vg_report;
struct vg_scenario;
struct vg_plan;
struct vg_plan_opts;

/* An option a feature takes on run, attach and watch: --NAME ARG (arg,
 * as --help names it), --NAME[=ARG] (optional), or --NAME (arg NULL);
 * help is its text in --help, NULL for an option only the agent passes.
 * check, when set, says what is wrong with an argument (NULL: nothing):
 * a usage error before anything starts; not_watch, when set, why vigil
 * watch refuses the option. */
struct vg_feature_opt {
	const char *name;
	const char *arg;
	bool optional;
	const char *help;
	const char *(*check)(const char *arg);
	const char *not_watch;
};

/* How the run ended, for the end hook */
struct vg_run_end {
	const char *how;	/* "the program exited", "stopped at a
				 * violation", ... */
	uint64_t errors;	/* what the ERROR SUMMARY counted */
	uint64_t inconclusive;
	bool exited;		/* the target exited: its status below */
	int exit_code, exit_signal;
	bool failed;		/* monitoring ended on an error */
	bool stopped;		/* the target is left stopped at a violation */
	bool gdb;		/* gdb takes the terminal and the target next */
};

struct vg_feature {
	const char *name;
	const struct vg_feature_opt *opts;	/* ends with a NULL name */
	/* First of all, before the run opens anything: of the run only its
	 * spec and options are known (vg_run_spec, vg_run_option,
	 * vg_run_quiet, vg_run_live). For what must come before every other
	 * module: the status line takes stderr over here, as the modules
	 * keep the stderr they are given; a feature adds what it needs to
	 * the spec here (the leak check its own property), before anything
	 * counts its properties and events. *state as it leaves it is
	 * start's (and, left NULL, the feature gets no other call but
	 * start); -1 with e set ends the run. */
	int (*prepare)(struct vg_run *run, struct vg_spec *spec, void **state,
		       struct vg_err *e);
	/* Before the plan is built (user/plan/plan.h): what the feature
	 * asks of it, set in po. Called with the state prepare left. */
	int (*plan)(void *state, struct vg_plan_opts *po, struct vg_err *e);
	/* The run is planned and its probes installed; the target has not
	 * run a monitored instruction yet. plan: what was installed (the
	 * feature may take its part of it, as --dynamic takes its
	 * analysis). *state is what prepare left (NULL without one). A
	 * feature the options do not ask for leaves *state NULL and gets no
	 * other call. -1 with e set ends the run before it starts. */
	int (*start)(struct vg_run *run, struct vg_plan *plan, void **state,
		     struct vg_err *e);
	/* A user-tier event of the run's own properties (not of a part
	 * `vigil load` added), before the monitor sees it; flags: its
	 * record's VG_RF_* (include/vigil_event.h) */
	void (*record)(void *state, const struct vg_mon_event *ev,
		       uint32_t flags);
	/* The records of a drain of the ring are handled, and the threads
	 * their probes stopped for vigil (VG_RF_ARMSTOP) are not let go yet:
	 * what must happen while they wait (--dynamic attaches the probes
	 * they asked for). -1 with e set ends the run. */
	int (*drained)(void *state, struct vg_err *e);
	/* a slice moved from state `from` to s->state (either tier); run:
	 * whose spec s->prop indexes (the session's, or a property loaded
	 * into it with `vigil load`) */
	void (*transition)(void *state, const struct vg_run *run,
			   const struct vg_slice_view *s, int from,
			   const struct vg_mon_event *ev);
	/* A reaction left thread tid of process pid stopped at a
	 * violation (run: the part whose property it was): called after
	 * that transition's hook. The run ends now, unless a live gdb
	 * session (--interactive) takes the stop and monitoring goes on. */
	void (*stop)(void *state, const struct vg_run *run, pid_t pid,
		     pid_t tid);
	/* the loop's pass: after records, or about every 100 ms idle */
	void (*tick)(void *state);
	/* A CRIU checkpoint of pid `of` is about to be dumped: the target
	 * is stopped, its uprobes detached, the records it sent not read
	 * yet (they are next). What the feature put in the process that
	 * must not be in the image comes out here (the in-process tier's
	 * patches and mappings); the checkpoint hook below, called next
	 * whether the dump was taken or not, puts it back. -1 with e set:
	 * the checkpoint is not taken. */
	int (*checkpoint_prepare)(void *state, pid_t of, struct vg_err *e);
	/* a checkpoint of pid `of` (asked for reason) taken into dir; or,
	 * dir NULL, not taken: what ("checkpoint failed", "checkpoint
	 * deferred") and why. After checkpoint_prepare, the target still
	 * stopped; or without it (a checkpoint refused before it). */
	void (*checkpoint)(void *state, pid_t of, const char *dir,
			   const char *reason, const char *what,
			   const char *why);
	/* A restore in the session replaced the target by the process of
	 * a checkpoint image: pid, the same as before, is a new process,
	 * stopped, its uprobes attached again; what the feature had put in
	 * the old one (killed) it puts in this one */
	void (*replaced)(void *state, pid_t pid);
	/* A checkpoint's monitor state is written to out (after the
	 * monitor's): the feature's own, in lines it alone reads; and
	 * brought back from such a file at path, the state it had then
	 * (vigil restore --monitor, or a restore inside the session, after
	 * the monitor's own). A failed restore says why and leaves the
	 * feature as it was. */
	int (*save)(void *state, FILE *out, struct vg_err *e);
	int (*restore)(void *state, const char *path, struct vg_err *e);
	/* A command of the control channel (docs/CONTROL.md; `vigil ctl PID
	 * CMD`, gdb's `vigil CMD`) the core does not know: 0 when it is not
	 * this feature's; 1 answered, *text (malloc'ed, for a person) and
	 * *data (JSON, or NULL) the reply; -1 refused, e saying why */
	int (*ctl)(void *state, const char *cmd, json_t *args, char **text,
		   json_t **data, struct vg_err *e);
	/* SIGUSR1: what the feature holds, on stderr (after the
	 * monitor's slices) */
	void (*dump)(void *state);
	/* gdb takes the terminal, for good (--interactive, or the live
	 * session a `gdb` reaction opens): nothing is drawn on it from now
	 * on */
	void (*gdb_terminal)(void *state);
	/* part (vg_run_part) is gone: `vigil unload` of a loaded set */
	void (*part_end)(void *state, const struct vg_run *part);
	/* Monitoring is over and the monitors' final verdicts are out: the
	 * feature's own verdicts and last words, before the ERROR SUMMARY
	 * (which counts what it reported) */
	void (*finish)(void *state, const struct vg_run_end *end);
	/* the run ended (its verdicts and ERROR SUMMARY are out), the probes
	 * still in: what reads the run reads it last here */
	void (*end)(void *state, const struct vg_run_end *end);
	/* the probes are gone, and every module of the run with them, and
	 * the target as the run left it: the last call, which frees the
	 * state (NULL: end frees it) */
	void (*released)(void *state, const struct vg_run_end *end);
};

/* What a feature may read of the run (user/session/features.c) */
const struct vg_spec *vg_run_spec(const struct vg_run *r);
pid_t vg_run_pid(const struct vg_run *r);
const char *vg_run_exe(const struct vg_run *r);
/* the agent's name for the session (its config file), "" outside it */
const char *vg_run_unit(const struct vg_run *r);
bool vg_run_quiet(const struct vg_run *r);
/* a person watches the run: stderr is a terminal it may draw a status
 * line on (not --quiet, no JSON lines on the same terminal) */
bool vg_run_live(const struct vg_run *r);
/* vigil attach: the target ran before the run (not vigil run's child,
 * nor vigil watch's processes) */
bool vg_run_attached(const struct vg_run *r);
/* Why this run cannot patch its target (the in-process tier, user/fast/):
 * vigil watch, fork snapshots; NULL when it can */
const char *vg_run_not_patchable(const struct vg_run *r);
/* --interactive: a live gdb session takes the stops */
bool vg_run_interactive(const struct vg_run *r);
/* the target is left stopped by a reaction now */
bool vg_run_target_stopped(const struct vg_run *r);
/* Option NAME of the feature, as the command line gave it: its argument,
 * "" for one without (or an optional one left out), NULL when not given */
const char *vg_run_option(const struct vg_run *r, const char *name);

/* A run is one or more parts, each a set of properties with its own spec
 * and monitors: the properties it started with (part 0), then each set
 * loaded into it with `vigil load` (user/load/load.h). Part k of
 * r, or NULL past the last; a transition hook is given the part it is
 * about. */
const struct vg_run *vg_run_part(const struct vg_run *r, int k);
/* What a part's probes saw and hold */
struct vg_run_counts {
	uint64_t events, lost;
	int probes_attached, probes_planned;
	int processes;		/* monitored now (part 0: the run's) */
};
void vg_run_counts(const struct vg_run *r, struct vg_run_counts *c);
/* each live slice of a part, in every process it monitors, its
 * unloaded properties' left out */
void vg_run_foreach_slice(const struct vg_run *r,
			  void (*cb)(void *ctx, const struct vg_slice_view *s),
			  void *ctx);
/* the property was unloaded (`vigil unload`): it has no slices, no
 * counts */
bool vg_run_prop_unloaded(const struct vg_run *r, int prop);
/* its tier is the kernel's */
bool vg_run_prop_kernel(const struct vg_run *r, int prop);
/* The monitors of a part: the target's, then each followed process's;
 * how many (at most max) into mons */
int vg_run_monitors(const struct vg_run *r, struct vg_monitor **mons, int max);
/* the evidence of process pid's slices (a followed child has its own) */
struct vg_evidence *vg_run_evidence(const struct vg_run *r, uint32_t pid);
/* Each monitor of a part with the process it is of: the target's (pid
 * 0), then each followed process's with its pid (those gone too),
 * unbounded as vg_run_monitors is not */
void vg_run_foreach_monitor(const struct vg_run *r,
			    void (*cb)(void *ctx, pid_t pid,
				       struct vg_monitor *m),
			    void *ctx);
/* The part's report (its verdicts, --json's stream) and its scenario
 * (the reactions: whether it left the target stopped, and which thread) */
struct vg_report *vg_run_report(const struct vg_run *r);
struct vg_scenario *vg_run_scenario(const struct vg_run *r);
/* the events of either tier the run has handled so far (records of
 * forks and exits, and vigil's own, not counted) */
uint64_t vg_run_records(const struct vg_run *r);
/* For what installs probes as the run goes (--dynamic, user/dynamic/):
 * the run's probe set, and the records its probes sent so far handled
 * as the loop handles them (how many; -1 with e set) */
struct vg_probe *vg_run_probe(const struct vg_run *r);
int vg_run_drain(struct vg_run *r, struct vg_err *e);
/* the kernel tier's slices copied into the monitor now (reads the whole
 * table: not at every event) */
void vg_run_sync_kernel(const struct vg_run *r);
/* the kernel tier counts how often it takes each transition from now on;
 * transition t (the spec's properties' transitions in order) so far */
void vg_run_count_transitions(const struct vg_run *r);
uint64_t vg_run_transition_hits(const struct vg_run *r, int t);

/* The command line's side: every registered feature, n of them */
const struct vg_feature *const *vg_features(int *n);

/* An option given, as the command line hands it to the session
 * (vg_session_opts.fopts) */
struct vg_feature_arg {
	const char *name, *value;
};

#endif
