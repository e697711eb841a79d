/* What user/watch/ asks of the session (feature/watch_ops.h, vg_watch_host_*)
 * beyond the vg_run_* calls: its options, processes, report, guard,
 * checkpoints and scenario, a process's monitor, and `vigil load`'s
 * units. vigil watch sees the session as a struct vg_run only; this file
 * is where that run is the session again, as ckpt_host.c is for the
 * checkpoints. */
#include "session_internal.h"
#include "feature/watch_ops.h"

#include "load/load.h"

static struct session *S(const struct vg_run *r)
{
	return (struct session *)r;
}

const struct vg_session_opts *vg_watch_host_opts(const struct vg_run *r)
{
	return S(r)->o;
}

struct vg_guard *vg_watch_host_guard(const struct vg_run *r)
{
	return S(r)->guard;
}

struct vg_ckpt_run *vg_watch_host_ckpt(const struct vg_run *r)
{
	return S(r)->ckpt;
}

struct vg_monitor *vg_watch_host_monitor_of(struct vg_run *r, pid_t pid)
{
	return vg_session_monitor_of(S(r), pid);
}

int vg_watch_host_take_stop(struct vg_run *r)
{
	int ev = S(r)->stop_event;

	S(r)->stop_event = 0;
	return ev;
}
