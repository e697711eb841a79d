/* What the forks module asks of the session (follow/follow_run.h,
 * vg_follow_host_*) beyond the vg_run_* calls: the options it depends
 * on, the followed processes, the target's monitor, a followed process's
 * monitor made and its evidence's stacks. The module sees the session (and
 * each of vigil load's units) as a struct vg_run only; this file is where
 * that run is the session again, as ckpt_host.c is for the checkpoints. */
#include "session_internal.h"

#include "follow/follow_run.h"
#include "report/evidence.h"

static struct session *S(const struct vg_run *r)
{
	return (struct session *)r;
}

void vg_follow_host_how(const struct vg_run *r, struct vg_follow_host_how *h)
{
	const struct vg_session_opts *o = S(r)->o;

	h->follow = o->follow_forks;
	h->watch = o->watch_exe != NULL;
	h->watch_kernel = vg_session_watch_kernel(S(r));
	h->tier_kernel = o->tier == VG_TIER_KERNEL;
	h->record = o->record_path != NULL;
	h->checkpoints = o->fork_snapshots || o->state_path ||
			 o->on_violation == VG_OV_CHECKPOINT;
	h->evidence = o->evidence;
}

struct vg_follow *vg_follow_host_procs(const struct vg_run *r)
{
	return S(r)->procs;
}

struct vg_monitor *vg_follow_host_monitor_new(struct vg_run *r,
					      struct vg_evidence *x,
					      struct vg_err *e)
{
	vg_evidence_set_stacks(x, vg_session_event_stack, S(r));
	return vg_session_monitor_new(S(r), e);
}
