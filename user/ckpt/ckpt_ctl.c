/* The control channel's checkpoint commands (docs/CONTROL.md), answered
 * as a feature's ctl hook answers (feature.h): from a shell (`vigil ctl
 * PID checkpoint`), or from gdb's extension, which lets go of the target
 * for CRIU and attaches again after the dump or the restore.
 *   checkpoint [stopped [reaction]]   take one now (ckpt_run.c)
 *   checkpoints                       the images kept
 *   restore [N] [stopped]             program and monitor back (restore.c) */
#include "ckpt_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* checkpoints: the ring, oldest first, as text and as JSON */
static int checkpoints(struct vg_ckpt_run *c, char **text, json_t **data,
		       struct vg_err *e)
{
	json_t *arr = json_array();
	char path[4200];
	size_t tlen = 0;
	FILE *m = open_memstream(text, &tlen);
	int num;

	if (!m) {
		json_decref(arr);
		return vg_errf(e, "out of memory");
	}
	for (int i = 0; (num = vg_ckpt_run_image(c, i, path, sizeof(path))) >= 0; i++) {
		struct vg_ckpt_meta meta;
		struct vg_err me;

		if (vg_ckpt_read_meta(path, &meta, &me))
			continue;
		fprintf(m, "%-4d %-10" PRIu64 " %-4s %s  (%s)\n", num,
			meta.events, meta.good ? "good" : "bad", meta.reason,
			path);
		json_array_append_new(arr, json_pack("{s:i,s:s,s:I,s:b,s:s}",
			"n", num, "path", path, "events", (json_int_t)meta.events,
			"good", meta.good, "reason", meta.reason));
	}
	if (!json_array_size(arr))
		fprintf(m, "no checkpoints\n");
	fclose(m);
	*data = json_pack("{s:o}", "checkpoints", arr);
	return 1;
}

/* checkpoint [stopped [reaction]]: "stopped" from gdb, which detached
 * from the target and left it in a group stop to attach again after the
 * dump; "reaction": the one a reaction left for gdb (the stop query said
 * it is wanted), with that reaction's reason. Answered with the ring. */
static int checkpoint(struct vg_ckpt_run *c, json_t *args, char **text,
		      json_t **data, struct vg_err *e)
{
	const char *a = json_string_value(json_array_get(args, 0));
	const char *b = json_string_value(json_array_get(args, 1));
	const char *reason = "on demand (vigil ctl checkpoint)";
	char why[256];
	bool good = true, hold, taken;

	if (c->o.follow_forks)
		return vg_errf(e, "no checkpoints with --follow-fork");
	hold = a && !strcmp(a, "stopped");
	if (hold)
		reason = "vigil checkpoint (gdb)";
	if (hold && b && !strcmp(b, "reaction")) {
		if (!vg_ckpt_host_gdb_take(c->run, why, sizeof(why), &good))
			return vg_errf(e, "no checkpoint reaction is waiting");
		reason = why;
	}
	if (vg_ckpt_run_asked(c, reason, good, hold, &taken, e))
		return -1;
	if (!taken)
		return vg_errf(e, "the checkpoint was not taken (vigil's stderr says why)");
	return checkpoints(c, text, data, e);
}

/* restore [N] [stopped]: "stopped" comes from gdb's extension, which
 * let go of the target for CRIU and attaches to the restored process
 * itself: it stays stopped for that; from a shell it runs on. */
static int restore(struct vg_ckpt_run *c, json_t *args, char **text,
		   json_t **data, struct vg_err *e)
{
	bool hold = false;
	char line[4400], *end;
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
			return vg_errf(e, "usage: restore [N]   (N: a checkpoint number from `vigil checkpoints`; default the newest)");
	}
	n = vg_ckpt_run_restore(c, num, hold, line, sizeof(line), e);
	if (n < 0)
		return -1;
	if (!(*text = strdup(line)))
		return vg_errf(e, "out of memory");
	*data = json_pack("{s:i,s:i}", "checkpoint", n, "pid",
			  vg_run_pid(c->run));
	return 1;
}

int vg_ckpt_run_ctl(struct vg_ckpt_run *c, const char *cmd, json_t *args,
		    char **text, json_t **data, struct vg_err *e)
{
	if (!c)
		return 0;
	if (!strcmp(cmd, "checkpoint"))
		return checkpoint(c, args, text, data, e);
	if (!strcmp(cmd, "checkpoints"))
		return checkpoints(c, text, data, e);
	if (!strcmp(cmd, "restore"))
		return restore(c, args, text, data, e);
	return 0;
}
