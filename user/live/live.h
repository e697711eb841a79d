/* The live side of a run (user/live/): the control channel
 * (user/ctl/ctl.h) with its commands, the monitor breakpoints of `vigil
 * break`, and under --interactive the stops that wait for gdb to ask about
 * them instead of ending the run; gdb itself when vigil starts it.
 *
 * Its state is one opaque struct vg_live, which the session keeps for it
 * and hands back through vg_live_host_state. It sees the run as a struct
 * vg_run only: through the vg_run_* calls of user/feature/feature.h and
 * the vg_live_host_* calls at the end of this header, which the session
 * implements (user/session/live_host.c); it includes nothing of
 * user/session/. A run here is the session or one of `vigil load`'s parts
 * (vg_run_part), which borrows the session's live side while its records
 * go through. */
#ifndef VIGIL_LIVE_H
#define VIGIL_LIVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_run;
struct vg_live;
struct vg_slice_view;
struct vg_mon_event;
struct vg_scenario;
struct vg_ckpt_run;

/* Open the control socket (RUNDIR/ctl-PID.sock). A failure is said on
 * stderr and the run goes on without one (no live side at all). */
void vg_live_open(struct vg_run *r);
/* The channel is closed and the stops gdb did not ask about dropped; what
 * the end of the run still asks (vg_live_keep_stopped, the gdb vigil
 * started) stays until vg_live_free, the run's very last call. */
void vg_live_close(struct vg_run *r);
void vg_live_free(struct vg_run *r);
/* Readable when a client wants serving; -1 when there is no channel. */
int vg_live_fd(const struct vg_run *r);
/* Serve the clients without blocking. */
void vg_live_serve(struct vg_run *r);
/* A slice of part r moved: stop the target when a `vigil break` asks for
 * it. stopped: the kernel tier stopped it already, in the probe. */
void vg_live_transition(struct vg_run *r, const struct vg_slice_view *s,
			int from, int to, const struct vg_mon_event *ev,
			bool stopped);
/* --interactive: a reaction of part r stopped the target; keep the stop
 * for gdb to ask about and go on monitoring. False when the run should
 * end as without --interactive. */
bool vg_live_keep_going(struct vg_run *r);
/* Is tracer the gdb whose extension joined this run? */
bool vg_live_gdb_traces(const struct vg_run *r, pid_t tracer);
/* A reaction's checkpoint for gdb's extension to take (it must let go of
 * the target first): kept until it asks (`checkpoint stopped reaction`);
 * the next stop query says it is wanted, and a SIGSTOP makes that query
 * come soon. One waits at a time: a later one while it waits is not kept
 * (false), and counted skipped as within --checkpoint-gap. */
bool vg_live_want_checkpoint(struct vg_run *r, const char *reason, bool good);
/* The waiting reaction's checkpoint, taken off the list: its reason and
 * good/bad; false when none waits. */
bool vg_live_take_checkpoint(struct vg_run *r, char *reason, size_t len,
			     bool *good);
/* `vigil detach` was asked, or gdb's extension went away: end monitoring
 * now. */
bool vg_live_detach_asked(const struct vg_run *r);
/* gdb went away after `vigil keep-stopped`: the target is left stopped
 * at the end. */
bool vg_live_keep_stopped(const struct vg_run *r);

/* --interactive (live_gdb.c): start gdb on a terminal, or say how to
 * join; has the gdb vigil started quit? */
int vg_live_join_gdb(struct vg_run *r, struct vg_err *e);
/* The run ended with the target left stopped at a violation (a
 * reaction's, or a loaded property's; not one a failed restore left):
 * how to debug it, on stderr, with gdb's view of the stop mended (a
 * rewound stop stepped to, a probed jmp put back: stop_event, 1 + the
 * kernel tier's last stop's event, or 0); when a `gdb` reaction asked
 * and vigil is on a terminal, the command vigil runs in its place, in
 * exec (left as it is otherwise). */
struct vg_ckpt_run;
void vg_live_handoff(struct vg_run *r, struct vg_ckpt_run *ckpt,
		     int stop_event, char *exec, size_t len);
bool vg_live_gdb_gone(struct vg_run *r);
/* A gdb vigil started runs: the terminal's signals (SIGINT) are its. */
bool vg_live_gdb_running(const struct vg_run *r);
/* Monitoring ended with the gdb vigil started still running: say so
 * (after the run's last report, before gdb's extension hears of the end),
 * and at vigil's very end wait for that gdb to quit, so that the shell
 * gets its terminal back only then. */
void vg_live_gdb_stays(struct vg_run *r);
void vg_live_wait_gdb(struct vg_run *r);

/* --- for `vigil load` and `vigil unload` (the parts of a run,
 * user/session/load_host.c) --- */

/* `status` and `probes` of one part */
json_t *vg_live_status(struct vg_run *r);
json_t *vg_live_probes(struct vg_run *r);
/* Part owner is gone: its breakpoints and the last stop's mark, if its.
 * r: the run whose live side it is. */
void vg_live_forget(struct vg_run *r, const struct vg_run *owner);
/* One property of owner is gone (vigil unload of a property the run
 * started with): its breakpoints and the last stop's mark, if its. */
int vg_live_forget_prop(struct vg_run *r, struct vg_run *owner, int prop,
			struct vg_err *e);
/* Under gdb: the user-tier events of own (the run or a part) that can
 * lead to a stop hold their thread until vigil has read them. */
int vg_live_push_holds(struct vg_run *r, struct vg_run *own,
		       struct vg_err *e);
/* The target replaced by a restore (ckpt/restore.c): the stops gdb has
 * not asked about are forgotten. */
void vg_live_forget_stops(struct vg_run *r);

/* --- what it asks of the session (user/session/live_host.c) --- */

/* The live side the session keeps for it (a part's: the session's, while
 * it borrows it), or NULL; and where it is kept. */
struct vg_live *vg_live_host_state(const struct vg_run *r);
void vg_live_host_set_state(struct vg_run *r, struct vg_live *l);
/* --interactive was asked */
bool vg_live_host_interactive(const struct vg_run *r);
/* vigil watch: every process of an executable (no one target) */
bool vg_live_host_watch(const struct vg_run *r);
/* The pid the control channel answers at: the target's, or vigil's own
 * in vigil agent's runs (several may watch one process) and vigil watch */
pid_t vg_live_host_ctl_pid(const struct vg_run *r);
/* The run's checkpoints (NULL in a part) */
struct vg_ckpt_run *vg_live_host_ckpt(const struct vg_run *r);
/* A command the live side does not know: the checkpoints', a feature's
 * (the leak check's among them). 0 not theirs; 1 answered (*text malloc'ed, *data
 * or NULL); -1 refused, e saying why. */
int vg_live_host_ctl(struct vg_run *r, const char *cmd, json_t *args,
		     char **text, json_t **data, struct vg_err *e);
/* Everything already sent handled as a turn of the loop handles it (the
 * records, the holds let go) */
void vg_live_host_settle(struct vg_run *r);
/* gdb takes the terminal, for good: the features hear of it */
void vg_live_host_gdb_terminal(struct vg_run *r);

#endif
