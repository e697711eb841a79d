/* The scenario: what vigil does when a slice moves. It runs the spec's
 * `on enter` / `on leave` reactions and the --on-violation default, and
 * reports violations. */
#ifndef VIGIL_SCENARIO_H
#define VIGIL_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/on_violation.h"
#include "monitor/monitor.h"
#include "report/report.h"

struct vg_scenario;

/* Fails (exit status 2) if the spec uses an action this build cannot
 * perform yet, naming it and its spec line. */
struct vg_scenario *vg_scenario_new(const struct vg_spec *spec, pid_t pid,
				    struct vg_report *report,
				    enum vg_on_violation ov, struct vg_err *e);
void vg_scenario_free(struct vg_scenario *sc);

/* States of a property whose entry stops the target: bit s set. The
 * kernel tier stops synchronously in the probe for these. */
uint32_t vg_scenario_stop_mask(const struct vg_scenario *sc, int prop);
/* The same from the spec and --on-violation alone (user/plan/) */
uint32_t vg_stop_mask_for(const struct vg_spec *spec, int prop,
			  enum vg_on_violation ov);

/* A slice took a transition. stopped: the probe already stopped the
 * target at this event. */
void vg_scenario_transition(struct vg_scenario *sc,
			    const struct vg_slice_view *s, int from, int to,
			    const struct vg_mon_event *ev, bool stopped);

/* Has a reaction left the target stopped (or killed it)? Then the session
 * is over. */
bool vg_scenario_target_stopped(const struct vg_scenario *sc);
/* The thread whose event stopped the target, and a one-line reason. */
/* the process left stopped: the target, or with --follow-fork the
 * descendant whose event stopped it */
pid_t vg_scenario_stop_pid(const struct vg_scenario *sc);
pid_t vg_scenario_stop_tid(const struct vg_scenario *sc, const char **why);
/* Did a `gdb` reaction (or --on-violation=gdb) stop the target? */
bool vg_scenario_want_gdb(const struct vg_scenario *sc);
bool vg_scenario_target_killed(const struct vg_scenario *sc);
bool vg_scenario_violated(const struct vg_scenario *sc);

/* What reactions asked of the session, which owns the probes and the
 * monitor these need: `checkpoint` (or --on-violation=checkpoint) and
 * `restore`. Taking them clears them. */
struct vg_scenario_req {
	bool checkpoint;
	bool good;		/* the state entered is accepting */
	char reason[256];
	bool restore;
};
void vg_scenario_take_requests(struct vg_scenario *sc,
			       struct vg_scenario_req *r);
/* Is a checkpoint asked for, and no restore (which would make it moot)? */
bool vg_scenario_checkpoint_wanted(const struct vg_scenario *sc);

/* The target is now pid (a `restore` brought back a checkpoint), stopped
 * or not, for the reason why. */
void vg_scenario_set_target(struct vg_scenario *sc, pid_t pid, bool stopped,
			    const char *why);

/* --interactive: the stop is gdb's now (user/live/live.c); the next
 * stop is noted like the first. */
void vg_scenario_resume(struct vg_scenario *sc);
/* vigil watch: a reaction stopped or killed one process, which is dealt
 * with; the next process's reactions start afresh. */
void vg_scenario_next_process(struct vg_scenario *sc);

#endif
