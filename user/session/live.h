/* Private to user/session/: the live side of a session (live.c, live_cmds.c):
 * the control channel (user/ctl/ctl.h) with its commands, the monitor
 * breakpoints of `vigil break`, and under --interactive the stops that
 * wait for gdb to ask about them instead of ending the session. */
#ifndef VIGIL_SESSION_LIVE_H
#define VIGIL_SESSION_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

struct session;
struct vg_slice_view;
struct vg_mon_event;

/* Open the control socket (RUNDIR/ctl-PID.sock). A failure is said on
 * stderr and the session goes on without one. */
void vg_live_open(struct session *ss);
void vg_live_close(struct session *ss);
/* Readable when a client wants serving; -1 when there is no channel. */
int vg_live_fd(const struct session *ss);
/* Serve the clients without blocking. */
void vg_live_serve(struct session *ss);
/* A slice moved: stop the target when a `vigil break` asks for it.
 * stopped: the kernel tier stopped it already, in the probe. */
void vg_live_transition(struct session *ss, const struct vg_slice_view *s,
			int from, int to, const struct vg_mon_event *ev,
			bool stopped);
/* --interactive: a reaction stopped the target; keep the stop for gdb to
 * ask about and go on monitoring. False when the session should end as
 * without --interactive. */
bool vg_live_keep_going(struct session *ss);
/* Is tracer the gdb whose extension joined this session? */
bool vg_live_gdb_traces(const struct session *ss, pid_t tracer);
/* A reaction's checkpoint for gdb's extension to take (it must let go of
 * the target first): kept until it asks (`checkpoint stopped reaction`);
 * the next stop query says it is wanted, and a SIGSTOP makes that query
 * come soon. One waits at a time: a later one while it waits is not kept
 * (false), and counted skipped as within --checkpoint-gap. */
bool vg_live_want_checkpoint(struct session *ss, const char *reason, bool good);
/* The waiting reaction's checkpoint, taken off the list: its reason and
 * good/bad; false when none waits. */
bool vg_live_take_checkpoint(struct session *ss, char *reason, size_t len,
			     bool *good);
/* `vigil detach` was asked: end monitoring now. */
bool vg_live_detach_asked(const struct session *ss);
/* The gdb command file that joins this live session (stdout of
 * `vigil run --interactive` off a terminal, or exec'd on one). */
int vg_live_gdb_command(struct session *ss, char *cmd, size_t len,
			struct vg_err *e);

#endif
/* --interactive (live_gdb.c): start gdb on a terminal, or say how to
 * join; has the gdb vigil started quit? */
int vg_session_join_gdb(struct session *ss, struct vg_err *e);
bool vg_session_gdb_gone(struct session *ss);
/* Monitoring ended with the gdb vigil started still running: say so
 * (after the run's last report, before gdb's extension hears of the end),
 * and at vigil's very end wait for that gdb to quit, so that the shell
 * gets its terminal back only then. */
void vg_session_gdb_stays(struct session *ss);
void vg_session_wait_gdb(struct session *ss);

/* --- for live_cmds.c: the commands that only read or set the monitor;
 * each returns a response object ({"ok":..,"text":..,"data":..}). --- */
#include <jansson.h>
json_t *vg_live_reply(bool ok, const char *text, json_t *data);
json_t *vg_live_status(struct session *ss);
json_t *vg_live_slices(struct session *ss, json_t *args);
json_t *vg_live_show(struct session *ss, json_t *args);
json_t *vg_live_set(struct session *ss, json_t *args);
json_t *vg_live_graph(struct session *ss, json_t *args);
json_t *vg_live_probes(struct session *ss);
/* The last stop kept for gdb: the session (or vigil load's unit) whose
 * property it was about, the property, the state its slice entered, the
 * slice; false when there was none. vg_live_forget: a unit is gone. */
bool vg_live_last_stop(const struct session *ss, const struct session **owner,
		       int *prop, int *state, const char **slice);
void vg_live_forget(struct session *ss, const struct session *owner);
/* One property of owner is gone (vigil unload of a property the session
 * started with): its breakpoints and the last stop's mark, if its. */
int vg_live_forget_prop(struct session *ss, struct session *owner, int prop,
			struct vg_err *e);
/* Under gdb: the user-tier events of own (the session or a unit) that
 * can lead to a stop hold their thread until vigil has read them. */
int vg_live_push_holds(struct session *ss, struct session *own,
		       struct vg_err *e);
/* live_returns.c: the pending return addresses (`returns`); and putting
 * the trampoline back where gdb's extension left real ones (gdb gone) */
json_t *vg_live_returns(struct session *ss);
void vg_live_mend_returns(struct session *ss);
/* The target replaced by a restore (ckpt/restore.c): the stops gdb has
 * not asked about are forgotten. */
void vg_live_forget_stops(struct session *ss);
/* The property named name, or -1. */
int vg_live_prop(const struct session *ss, const char *name);
/* Its state named name, or -1. */
int vg_live_state(const struct session *ss, int prop, const char *name);
/* "q=0x55d1c0a012a0": a slice's bound parameters, as `slices` lists them
 * and `show`/`set` take them. */
void vg_live_slice_name(const struct session *ss,
			const struct vg_slice_view *s, char *out, size_t len);
