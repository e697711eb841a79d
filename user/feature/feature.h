/* The session core's one interface to its features, as nginx's core is to
 * its modules: a feature is a table of hooks and of its own command-line
 * options, registered in user/session/features.c. The core calls the hooks a feature
 * fills in, in registration order, each with the feature's own state (an
 * opaque pointer its start made); it knows none of a feature's fields,
 * and a feature sees the run only through the vg_run_* calls below.
 *
 * A feature is one folder with one header that declares its table
 * (user/webhook/webhook.h: vg_webhook_feature); adding one touches that
 * folder, its line in features.c and its tests. */
#ifndef VIGIL_FEATURE_H
#define VIGIL_FEATURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_run;			/* the run, as a feature sees it */
struct vg_spec;
struct vg_slice_view;
struct vg_mon_event;

/* An option a feature takes on run, attach and watch: --NAME ARG (arg,
 * as --help names it) or --NAME (arg NULL); help is its text in --help */
struct vg_feature_opt {
	const char *name;
	const char *arg;
	const char *help;
};

/* How the run ended, for the end hook */
struct vg_run_end {
	const char *how;	/* "the program exited", "stopped at a
				 * violation", ... */
	uint64_t errors;	/* what the ERROR SUMMARY counted */
	uint64_t inconclusive;
	bool exited;		/* the target exited: its status below */
	int exit_code, exit_signal;
};

struct vg_feature {
	const char *name;
	const struct vg_feature_opt *opts;	/* ends with a NULL name */
	/* The run is planned and its probes installed; the target has not
	 * run a monitored instruction yet. A feature the options do not
	 * ask for leaves *state NULL and gets no other call. -1 with e set
	 * ends the run before it starts. */
	int (*start)(struct vg_run *run, void **state, struct vg_err *e);
	/* a slice moved from state `from` to s->state (either tier); run:
	 * whose spec s->prop indexes (the session's, or a property loaded
	 * into it with `vigil load`) */
	void (*transition)(void *state, const struct vg_run *run,
			   const struct vg_slice_view *s, int from,
			   const struct vg_mon_event *ev);
	/* the loop's pass: after records, or about every 100 ms idle */
	void (*tick)(void *state);
	/* a checkpoint of pid `of` taken into dir, or failed (why) */
	void (*checkpoint)(void *state, pid_t of, const char *dir,
			   const char *reason, const char *why);
	/* the run ended (its verdicts and ERROR SUMMARY are out): the last
	 * call, which frees the state */
	void (*end)(void *state, const struct vg_run_end *end);
};

/* What a feature may read of the run (user/session/features.c) */
const struct vg_spec *vg_run_spec(const struct vg_run *r);
pid_t vg_run_pid(const struct vg_run *r);
const char *vg_run_exe(const struct vg_run *r);
/* the agent's name for the session (its config file), "" outside it */
const char *vg_run_unit(const struct vg_run *r);
bool vg_run_quiet(const struct vg_run *r);
/* the target is left stopped by a reaction now */
bool vg_run_target_stopped(const struct vg_run *r);
/* Option NAME of the feature, as the command line gave it: its argument,
 * "" for one without, NULL when not given */
const char *vg_run_option(const struct vg_run *r, const char *name);

/* The command line's side: every registered feature, n of them */
const struct vg_feature *const *vg_features(int *n);

/* An option given, as the command line hands it to the session
 * (vg_session_opts.fopts) */
struct vg_feature_arg {
	const char *name, *value;
};

#endif
