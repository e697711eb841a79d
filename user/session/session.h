/* A live monitoring session: starts (or will attach to) the target, and
 * runs events from the probe layer through the monitor to the scenario and
 * the reports until the target exits, a violation stops it, or the user
 * interrupts vigil. */
#ifndef VIGIL_SESSION_H
#define VIGIL_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/on_violation.h"
#include "plan/tier.h"
#include "spec/spec.h"

struct vg_session_watch_ops;

struct vg_feature_arg;

struct vg_session_opts {
	char *const *argv;		/* vigil run: the program and its args */
	pid_t pid;			/* vigil attach: the process (argv unused) */
	bool no_aslr;			/* --disable-aslr */
	bool follow_forks;		/* --follow-fork */
	/* --error-exitcode N: vigil's exit status when the ERROR SUMMARY
	 * counts errors (the session returns VG_EXIT_VIOLATION; the CLI
	 * makes it this), VG_EXIT_VIOLATION unless given */
	int error_exitcode;
	bool dynamic;			/* --dynamic: probes only while needed */
	const char *json_path;		/* --json */
	const char *record_path;	/* --record: every event, for vigil check */
	enum vg_tier tier;
	enum vg_on_violation on_violation;
	size_t ringbuf_bytes;		/* --ringbuf-size */
	uint32_t max_slices;		/* --max-slices */
	size_t max_objects;		/* --max-objects: live heap blocks the
					 * object map holds; 0 = its default */
	const char *checkpoint_dir;	/* --checkpoint-dir */
	int checkpoints;		/* --checkpoints N: images kept */
	uint64_t checkpoint_gap_ms;	/* --checkpoint-gap: at most one per */
	/* vigil restore --monitor: the target (pid) is stopped, restored from
	 * a checkpoint; load this monitor state, then resume it */
	const char *state_path;
	bool fork_snapshots;		/* --snapshot=fork: checkpoints by fork() */
	bool stacks;			/* --stacks: every event's user stack */
	int evidence;			/* --evidence N: steps shown; 0 = 16 */
	bool watch_evict;		/* --watch-policy=evict (else refuse) */
	/* --lib: libraries the program may load with dlopen, where the
	 * spec's functions are looked for too (probes attached up front) */
	const char *const *libs;
	size_t nlibs;
	bool quiet;			/* --quiet */
	/* a status line on stderr, which is a terminal, and SIGUSR1's dump
	 * goes there too (user/status/status.h) */
	bool live;
	/* --interactive: stops go to a gdb that joins the live session
	 * (user/live/live.h) instead of ending it */
	bool interactive;
	/* the features' own options as the command line gave them
	 * (user/feature/feature.h: each feature reads its own) */
	const struct vg_feature_arg *fopts;
	int nfopts;
	/* the agent's name for this session (its config file): VIGIL_UNIT
	 * in the journal, unit="" in the metrics; NULL outside the agent */
	const char *unit;
	/* vigil watch (user/watch/watch.h): every process running this
	 * executable (absolute), no target of its own. The core calls the
	 * module through watch_ops (feature/watch_ops.h), NULL outside
	 * vigil watch, which gets watch_arg, its own configuration. */
	const char *watch_exe;
	const struct vg_session_watch_ops *watch_ops;
	const void *watch_arg;
};

/* Returns the exit status for vigil (VG_EXIT_OK / VG_EXIT_VIOLATION), or
 * -1 with e set. */
int vg_session_run(struct vg_spec *spec, const struct vg_session_opts *o,
		   struct vg_err *e);

#endif
