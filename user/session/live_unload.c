/* `vigil unload PROP` of a property given when the session started, and
 * what a checkpoint's state says about such unloads (live_load.h).
 *
 * A loaded spec file (live_load.c) has its own probes and monitor, so its
 * unload closes them. A property the session started with shares the
 * session's: its BPF object, its uprobe links (one multi-uprobe link per
 * program and file, the other properties' sites in it too), its monitor
 * and its report. So it is taken out of each in place:
 *   - its verdicts and its own ERROR SUMMARY line first, as a loaded
 *     file's unload says them (vg_report_unload);
 *   - the probes: a kernel-tier property is no longer stepped, an event
 *     that only it used becomes idle, a uprobe link all of whose sites are
 *     idle is closed; sites sharing a link with other properties' stay
 *     attached and do nothing (probe_unload.c says why);
 *   - the monitor: its slices are freed, no event steps it, nothing
 *     visits it (vg_monitor_disable), so status, slices, graph, break,
 *     the status line and checkpoints no longer see it; its breakpoints
 *     are deleted.
 * Loading the same file afterwards makes a unit of it, from its initial
 * state, as any load. */
#include "live_load.h"
#include "live.h"
#include "session_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/scenario.h"
#include "follow/follow.h"
#include "monitor/monitor.h"
#include "report/report.h"
#include "util/lines.h"

/* Everything the property had to say: records already sent, its kernel
 * slices into the monitor (the verdicts read them). */
static void settle(struct session *ss)
{
	struct vg_err e = { 0 };

	if (vg_probe_drain(ss->probe, vg_session_on_record, ss, &e) < 0 ||
	    vg_session_timeouts(ss, &e))
		fprintf(stderr, "vigil: %s\n", e.msg);
	if (vg_hold_release(ss, &e))
		fprintf(stderr, "vigil: %s\n", e.msg);
	vg_live_keep_going(ss);
	vg_session_mirror_kslices(ss);
}

/* Out of the probes and the monitor (after its verdicts). */
static int take_out(struct session *ss, int prop, struct vg_err *e)
{
	/* its breakpoints first: the kernel row the probe keeps for a
	 * restore then has its reactions' stop states alone */
	if (vg_live_forget_prop(ss, ss, prop, e) ||
	    vg_probe_disable_prop(ss->probe, prop, e))
		return -1;
	vg_monitor_disable(ss->mon, prop);
	/* vigil watch's processes */
	for (int i = 0; i < vg_follow_count(ss->procs); i++)
		vg_monitor_disable(vg_follow_at(ss->procs, i)->mon, prop);
	if (vg_load_set_gone(ss, prop, true))
		return vg_errf(e, "out of memory");
	/* its user-tier stops no longer hold their events under gdb */
	return vg_live_push_holds(ss, ss, e);
}

json_t *vg_unload_own(struct session *ss, const char *name)
{
	int prop = vg_live_prop(ss, name), attached, total, idle;
	const char *tier;
	struct vg_err e = { 0 };
	char label[300], text[sizeof(e.msg) + 600];

	if (prop < 0) {
		snprintf(text, sizeof(text), "no property %s", name);
		return vg_live_reply(false, text, NULL);
	}
	/* a followed process of --follow-fork has a monitor of its own,
	 * made at its first event from its parent's, and --dynamic attaches
	 * events as slices need them: neither is undone here (vigil watch's
	 * processes are: each one's monitor below) */
	if ((ss->o->follow_forks && !ss->o->watch_exe) || ss->o->dynamic)
		return vg_live_reply(false, ss->o->follow_forks
			? "no vigil unload of a property given at the start with --follow-fork"
			: "no vigil unload of a property given at the start with --dynamic", NULL);
	tier = ss->kernel[prop] ? "kernel" : "user";
	settle(ss);
	snprintf(label, sizeof(label), "unloaded %s: ", name);
	for (int i = 0; ss->o->watch_exe && i < vg_follow_count(ss->procs); i++) {
		struct vg_kid *k = vg_follow_at(ss->procs, i);

		/* vigil watch: each process's verdicts, then the summary */
		vg_report_set_evidence(ss->report, k->evidence);
		vg_report_final_prop(ss->report, k->mon, (uint32_t)k->pid,
				     prop);
		vg_report_set_evidence(ss->report, ss->evidence);
	}
	vg_report_unload(ss->report, ss->mon, prop, label);
	if (take_out(ss, prop, &e)) {
		snprintf(text, sizeof(text), "unloading %s: %s", name, e.msg);
		return vg_live_reply(false, text, NULL);
	}
	fprintf(stderr, "vigil: unloaded %s\n", name);
	vg_probe_links(ss->probe, &attached, &total);
	idle = vg_probe_idle_sites(ss->probe);
	snprintf(text, sizeof(text),
		 "unloaded %s (%s tier, given at the start): its slices freed, %s; probes %d/%d attached%s\n",
		 name, tier,
		 ss->kernel[prop] ? "no longer stepped in the kernel"
				  : "no longer stepped",
		 attached, total,
		 idle ? ", some idle: they share a link with other properties' probes"
		      : "");
	return vg_live_reply(true, text, json_pack("{s:[s],s:i}", "properties",
						   name, "probes_idle", idle));
}

/* The names on the "unloaded" lines before the units' sections. */
static int read_unloaded(const char *path, bool *want,
			 const struct vg_spec *spec, struct vg_err *e)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, len;
	int r;

	if (!f)
		return vg_errf(e, "cannot read %s: %s", path, strerror(errno));
	while ((r = vg_read_line(f, &line, &cap, 16384, &len)) > 0) {
		if (!strncmp(line, "loaded ", 7))
			break;
		if (strncmp(line, "unloaded ", 9))
			continue;
		for (int i = 0; i < spec->nprops; i++)
			if (!strcmp(spec->props[i].name, line + 9))
				want[i] = true;
	}
	free(line);
	fclose(f);
	return 0;
}

int vg_unload_restore(struct session *ss, const char *path, struct vg_err *e)
{
	const bool *now = vg_load_gone(ss);
	bool *want = calloc((size_t)ss->spec->nprops + 1, sizeof(bool));
	int rc = -1;

	if (!want)
		return vg_errf(e, "out of memory");
	if (read_unloaded(path, want, ss->spec, e))
		goto out;
	for (int i = 0; i < ss->spec->nprops; i++) {
		if (!want[i] && !(now && now[i]))
			continue;
		if (want[i]) {	/* unloaded when the checkpoint was taken */
			if (vg_probe_disable_prop(ss->probe, i, e))
				goto out;
			/* the monitor is the checkpoint's, fresh: its slices
			 * were not written (monstate.c) */
			vg_monitor_disable(ss->mon, i);
		} else if (vg_probe_enable_prop(ss->probe, i, e)) {
			goto out;	/* back: the checkpoint had it */
		}
		if (vg_load_set_gone(ss, i, want[i])) {
			vg_errf(e, "out of memory");
			goto out;
		}
	}
	rc = vg_live_push_holds(ss, ss, e);
out:
	free(want);
	return rc;
}
