/* The core's calls into vigil watch (feature/watch_ops.h): each goes through the
 * table user/watch/ handed the session in its options, with the module's
 * state; outside vigil watch there is no table and each is nothing. A
 * `vigil load` unit of a watch session (watch_root set) has the
 * session's options, so the same table, and the session's state. */
#include "session_internal.h"
#include "feature/watch_ops.h"

static const struct vg_session_watch_ops *ops(const struct session *ss)
{
	return ss->o->watch_ops;
}

/* the module's state: the session's, a unit's root's; NULL before its
 * check made it */
static void *state(const struct session *ss)
{
	return ss->watch_root ? ss->watch_root->watch : ss->watch;
}

static struct vg_run *run(struct session *ss)
{
	return (struct vg_run *)ss;
}

int vg_session_watch_check(struct session *ss, struct vg_err *e)
{
	if (!ops(ss))
		return 0;
	return ops(ss)->check(run(ss), ss->o->watch_arg, &ss->watch, e);
}

const struct vg_watch_match *vg_session_watch_match(const struct session *ss)
{
	return ops(ss) && state(ss) ? ops(ss)->match(state(ss)) : NULL;
}

bool vg_session_watch_stopped(const struct session *ss)
{
	return ops(ss) && state(ss) && ops(ss)->stopped(state(ss));
}

bool vg_session_watch_kernel(const struct session *ss)
{
	return ops(ss) && ss->o->tier == VG_TIER_KERNEL;
}

int vg_session_watch_open(struct session *ss, struct vg_err *e)
{
	return ops(ss) && state(ss) ? ops(ss)->open(state(ss), e) : 0;
}

int vg_session_watch_process(struct session *ss, const struct vg_rec_proc *p)
{
	return ops(ss) && state(ss) ? ops(ss)->process(state(ss), p) : 0;
}

bool vg_session_watch_room(struct session *ss, pid_t child)
{
	return !ops(ss) || !state(ss) || ops(ss)->room(state(ss), child);
}

void vg_session_watch_forked(struct session *ss, pid_t child)
{
	if (ops(ss) && state(ss))
		ops(ss)->forked(state(ss), child);
}

void vg_session_watch_unfollowed_fork(struct session *ss, pid_t parent,
				      pid_t child)
{
	if (ops(ss) && state(ss))
		ops(ss)->unfollowed_fork(state(ss), parent, child);
}

void vg_session_watch_transition(struct session *ss,
				 const struct vg_slice_view *s, int to,
				 const struct vg_mon_event *ev)
{
	if (ops(ss) && state(ss))
		ops(ss)->transition(state(ss), run(ss), s, to, ev);
}

void vg_session_watch_kproc(struct session *ss, pid_t pid,
			    struct vg_monitor **mon, struct vg_evidence **x)
{
	if (ops(ss) && state(ss))
		ops(ss)->kproc(state(ss), run(ss), pid, mon, x);
}

struct vg_symbolizer *vg_session_watch_symbolizer(struct session *ss,
						 pid_t pid)
{
	return ops(ss) && state(ss)
		? ops(ss)->symbolizer(state(ss), run(ss), pid) : NULL;
}

void vg_session_watch_mirror(struct session *ss)
{
	if (ops(ss) && state(ss))
		ops(ss)->mirror(state(ss), run(ss));
}

bool vg_session_watch_signal(struct session *ss, int sig)
{
	return ops(ss) && state(ss) && ops(ss)->signal(state(ss), sig);
}

bool vg_session_watch_done(struct session *ss)
{
	return ops(ss) && state(ss) && ops(ss)->done(state(ss));
}

void vg_session_watch_drop(struct session *ss, pid_t pid, const char *detail)
{
	if (ops(ss) && state(ss))
		ops(ss)->drop(state(ss), pid, detail);
}

void vg_session_watch_finish(struct session *ss)
{
	if (ops(ss) && state(ss))
		ops(ss)->finish(state(ss));
}

void vg_session_watch_free(struct session *ss)
{
	if (ops(ss) && ss->watch)
		ops(ss)->free(ss->watch);
	ss->watch = NULL;
}

int vg_watch_unit_start(struct session *ss, struct session *u,
			struct vg_err *e)
{
	return ops(ss) && state(ss)
		? ops(ss)->unit_start(state(ss), run(u), e) : 0;
}

int vg_watch_unit_process(struct session *u, const struct vg_rec_proc *p)
{
	return ops(u) && state(u)
		? ops(u)->unit_process(state(u), run(u), p) : 0;
}

void vg_watch_unit_final(struct session *u)
{
	if (ops(u) && state(u))
		ops(u)->unit_final(state(u), run(u));
}

void vg_session_watch_units_forked(struct session *ss, pid_t child)
{
	if (ops(ss) && state(ss))
		ops(ss)->units_forked(state(ss), child);
}

void vg_session_watch_units_forget(struct session *ss, pid_t pid,
				   bool verdicts)
{
	if (ops(ss) && state(ss))
		ops(ss)->units_forget(state(ss), pid, verdicts);
}

void vg_session_watch_units_pause(struct session *ss, pid_t pid)
{
	if (ops(ss) && state(ss))
		ops(ss)->units_pause(state(ss), pid);
}

void vg_session_watch_units_unpause(struct session *ss, pid_t pid)
{
	if (ops(ss) && state(ss))
		ops(ss)->units_unpause(state(ss), pid);
}
