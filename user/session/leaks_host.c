/* What user/leaks/ asks of the session (leaks/leaks.h, vg_leaks_host_*)
 * beyond the vg_run_* calls: whether the plan captured stacks at an
 * event, the target's symbolizer. The leak check sees
 * the session as a struct vg_run only; this file is where that run is the
 * session again, as ckpt_host.c is for the checkpoints. */
#include "session_internal.h"

#include "leaks/leaks.h"

static struct session *S(const struct vg_run *r)
{
	return (struct session *)r;
}

bool vg_leaks_host_stack_on(const struct vg_run *r, int event)
{
	return S(r)->p.stack_on && S(r)->p.stack_on[event];
}

struct vg_symbolizer *vg_leaks_host_symbolizer(struct vg_run *r)
{
	return vg_session_symbolizer(S(r));
}
