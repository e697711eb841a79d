/* The control channel's `checkpoint [stopped [reaction]]` (ckpt/ckpt_run.c
 * takes it): from a shell, or from gdb's extension, which let go of the
 * target for CRIU, on `vigil checkpoint` or for a reaction's checkpoint
 * that waited for it (live.c keeps that one). */
#include "live.h"
#include "session_internal.h"

#include <string.h>

#include "ckpt/ckpt.h"

/* checkpoint [stopped [reaction]]: "stopped" from gdb, which detached
 * from the target and left it in a group stop to attach again after the
 * dump; "reaction": the one a reaction left for gdb (the stop query said
 * it is wanted), with that reaction's reason */
json_t *vg_live_checkpoint(struct session *ss, json_t *args)
{
	const char *a = json_string_value(json_array_get(args, 0));
	const char *b = json_string_value(json_array_get(args, 1));
	const char *reason = "on demand (vigil ctl checkpoint)";
	char why[256];
	struct vg_err e = { 0 };
	bool good = true, hold, taken;

	if (ss->o->follow_forks)
		return vg_live_reply(false, "no checkpoints with --follow-fork", NULL);
	hold = a && !strcmp(a, "stopped");
	if (hold)
		reason = "vigil checkpoint (gdb)";
	if (hold && b && !strcmp(b, "reaction")) {
		if (!vg_live_take_checkpoint(ss, why, sizeof(why), &good))
			return vg_live_reply(false, "no checkpoint reaction is waiting", NULL);
		reason = why;
	}
	if (vg_ckpt_run_asked(ss->ckpt, reason, good, hold, &taken, &e))
		return vg_live_reply(false, e.msg, NULL);
	if (!taken)
		return vg_live_reply(false, "the checkpoint was not taken (vigil's stderr says why)", NULL);
	return vg_live_checkpoints(ss);
}
