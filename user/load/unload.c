/* `vigil unload PROP` of a property given when the session started, and
 * what a checkpoint's state says about such unloads (load_unit.h).
 *
 * A loaded spec file (load.c) has its own probes and monitor, so its
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
#include "load.h"
#include "load_unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/feature.h"
#include "probe/probe.h"
#include "spec/spec.h"
#include "util/lines.h"

/* Out of the probes and the monitor (after its verdicts). */
static int take_out(struct vg_run *ss, int prop, struct vg_err *e)
{
	if (vg_load_host_unload_prop(ss, prop, e))
		return -1;
	if (vg_load_set_gone(ss, prop, true))
		return vg_errf(e, "out of memory");
	/* its user-tier stops no longer hold their events under gdb */
	return vg_load_host_push_holds(ss, ss, e);
}

/* The session's own property name, not unloaded, or -1. */
static int own_prop(const struct vg_run *ss, const char *name)
{
	const struct vg_spec *sp = vg_run_spec(ss);

	for (int i = 0; name && i < sp->nprops; i++)
		if (!strcmp(sp->props[i].name, name) &&
		    !vg_run_prop_unloaded(ss, i))
			return i;
	return -1;
}

int vg_unload_own(struct vg_run *ss, const char *name, char **reply,
		  json_t **data, struct vg_err *e)
{
	int prop = own_prop(ss, name), attached, total, idle;
	struct vg_load_host_how how;
	const char *tier;
	bool kernel;
	struct vg_err te = { 0 };
	char label[300], *text;

	if (prop < 0)
		return vg_errf(e, "no property %s", name);
	/* a followed process of --follow-fork has a monitor of its own,
	 * made at its first event from its parent's, and --dynamic attaches
	 * events as slices need them: neither is undone here (vigil watch's
	 * processes are: each one's monitor, vg_load_host_unload_prop) */
	vg_load_host_how(ss, &how);
	if ((how.follow_forks && !how.watch) || how.dynamic)
		return vg_errf(e, "%s", how.follow_forks
			? "no vigil unload of a property given at the start with --follow-fork"
			: "no vigil unload of a property given at the start with --dynamic");
	kernel = vg_run_prop_kernel(ss, prop);
	tier = kernel ? "kernel" : "user";
	vg_load_host_settle(ss);
	snprintf(label, sizeof(label), "unloaded %s: ", name);
	vg_load_host_report_unload(ss, prop, label);
	if (take_out(ss, prop, &te))
		return vg_errf(e, "unloading %s: %s", name, te.msg);
	fprintf(stderr, "vigil: unloaded %s\n", name);
	vg_probe_links(vg_run_probe(ss), &attached, &total);
	idle = vg_probe_idle_sites(vg_run_probe(ss));
	if (asprintf(&text,
		 "unloaded %s (%s tier, given at the start): its slices freed, %s; probes %d/%d attached%s\n",
		 name, tier,
		 kernel ? "no longer stepped in the kernel"
			: "no longer stepped",
		 attached, total,
		 idle ? ", some idle: they share a link with other properties' probes"
		      : "") < 0)
		return vg_errf(e, "out of memory");
	return vg_load_answer(text, json_pack("{s:[s],s:i}", "properties",
					      name, "probes_idle", idle),
			      reply, data);
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

int vg_unload_restore(struct vg_run *ss, const char *path, struct vg_err *e)
{
	const struct vg_spec *spec = vg_run_spec(ss);
	const bool *now = vg_load_gone(ss);
	bool *want = calloc((size_t)spec->nprops + 1, sizeof(bool));
	int rc = -1;

	if (!want)
		return vg_errf(e, "out of memory");
	if (read_unloaded(path, want, spec, e))
		goto out;
	for (int i = 0; i < spec->nprops; i++) {
		if (!want[i] && !(now && now[i]))
			continue;
		/* unloaded when the checkpoint was taken, or back: the
		 * checkpoint had it */
		if (vg_load_host_restore_prop(ss, i, want[i], e))
			goto out;
		if (vg_load_set_gone(ss, i, want[i])) {
			vg_errf(e, "out of memory");
			goto out;
		}
	}
	rc = vg_load_host_push_holds(ss, ss, e);
out:
	free(want);
	return rc;
}
