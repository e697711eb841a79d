/* The control channel's `restore [N] [stopped]` (ckpt/restore.c does
 * the restore). "stopped" comes from gdb's extension, which let go of the
 * target for CRIU and attaches to the restored process itself: it stays
 * stopped for that; from a shell it runs on. */
#include "live.h"
#include "session_internal.h"
#include "ckpt/ckpt.h"

#include <stdlib.h>
#include <string.h>

json_t *vg_live_restore(struct session *ss, json_t *args)
{
	struct vg_err e = { 0 };
	bool hold = false;
	char text[4400], *end;
	size_t i;
	json_t *a;
	int num = 0, n;

	json_array_foreach(args, i, a) {
		const char *s = json_string_value(a);

		if (s && !strcmp(s, "stopped")) {
			hold = true;
			continue;
		}
		num = s ? (int)strtol(s, &end, 10) : -1;
		if (!s || *end || num <= 0)
			return vg_live_reply(false, "usage: restore [N]   (N: a checkpoint number from `vigil checkpoints`; default the newest)", NULL);
	}
	n = vg_ckpt_run_restore(ss->ckpt, num, hold, text, sizeof(text), &e);
	if (n < 0)
		return vg_live_reply(false, e.msg, NULL);
	return vg_live_reply(true, text, json_pack("{s:i,s:i}", "checkpoint", n,
						   "pid", ss->pid));
}
