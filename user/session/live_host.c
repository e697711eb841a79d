/* What user/live/ asks of the session (live/live.h, vg_live_host_*)
 * beyond the vg_run_* calls: where its state is kept, the options it
 * depends on, the reactions and checkpoints, the commands the
 * checkpoints and the features answer, a turn of the loop. The live side
 * sees the session (and each of vigil load's units) as a struct
 * vg_run only; this file is where that run is the session again, as
 * ckpt_host.c is for the checkpoints. */
#include "session_internal.h"

#include <stdio.h>
#include <unistd.h>

#include "ckpt/ckpt.h"
#include "live/live.h"

static struct session *S(const struct vg_run *r)
{
	return (struct session *)r;
}

struct vg_live *vg_live_host_state(const struct vg_run *r)
{
	return S(r)->live;
}

void vg_live_host_set_state(struct vg_run *r, struct vg_live *l)
{
	S(r)->live = l;
}

bool vg_live_host_interactive(const struct vg_run *r)
{
	return S(r)->o->interactive;
}

bool vg_live_host_watch(const struct vg_run *r)
{
	return S(r)->o->watch_exe;
}

pid_t vg_live_host_ctl_pid(const struct vg_run *r)
{
	return S(r)->o->unit || S(r)->o->watch_exe ? getpid() : S(r)->pid;
}

struct vg_ckpt_run *vg_live_host_ckpt(const struct vg_run *r)
{
	return S(r)->ckpt;
}

int vg_live_host_ctl(struct vg_run *r, const char *cmd, json_t *args,
		     char **text, json_t **data, struct vg_err *e)
{
	struct session *ss = S(r);
	/* checkpoint, checkpoints, restore (ckpt/ckpt_ctl.c); a feature's
	 * (user/feature/feature.h): `leaks`, `view`, the live page */
	int rc = vg_ckpt_run_ctl(ss->ckpt, cmd, args, text, data, e);

	if (!rc)
		rc = vg_features_ctl(ss, cmd, args, text, data, e);
	return rc;
}

void vg_live_host_settle(struct vg_run *r)
{
	struct session *ss = S(r);
	struct vg_err e = { 0 };

	if (vg_probe_drain(ss->p.probe, vg_session_on_record, ss, &e) < 0)
		fprintf(stderr, "vigil: %s\n", e.msg);
	if (vg_hold_release(ss, &e))
		fprintf(stderr, "vigil: %s\n", e.msg);
}

void vg_live_host_gdb_terminal(struct vg_run *r)
{
	vg_features_gdb_terminal(S(r));
}
