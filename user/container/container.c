/* vigil attach to a process in other namespaces (container.h). */
#include "container.h"

#include <stdio.h>
#include <stdlib.h>

#include "feature/feature.h"
#include "proc/procinfo.h"
#include "report/report.h"

struct container {
	const struct vg_run *run;
	struct vg_proc_where target;	/* the target's pid there, cgroup */
};

struct find_ctx {
	pid_t pid;
	bool found;
};

static void find_followed(void *ctx, pid_t pid, struct vg_monitor *m)
{
	struct find_ctx *f = ctx;

	(void)m;
	if (pid && pid == f->pid)	/* pid 0: the target's monitor */
		f->found = true;
}

static bool namer(void *ctx, uint32_t pid, struct vg_report_proc *out)
{
	const struct container *c = ctx;
	struct find_ctx f = { .pid = (pid_t)pid };

	if ((pid_t)pid == vg_run_pid(c->run)) {
		out->ns_pid = (uint32_t)c->target.ns_pid;
		out->cgroup = c->target.cgroup;
		return true;
	}
	/* a followed fork's: by its own pid, in no cgroup the run knows */
	vg_run_foreach_monitor(c->run, find_followed, &f);
	if (!f.found)
		return false;
	out->ns_pid = pid;
	out->cgroup = "";
	return true;
}

static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	struct vg_proc_where w;
	struct container *c;
	pid_t pid = vg_run_pid(run);

	(void)plan;
	*state = NULL;
	if (!vg_run_attached(run))
		return 0;
	if (vg_proc_where(pid, &w, e))
		return -1;
	/* a process in vigil's own namespaces needs no more than its pid */
	if (w.ns_pid == pid && !w.other_root)
		return 0;
	if (!(c = malloc(sizeof(*c))))
		return vg_errf(e, "out of memory");
	c->run = run;
	c->target = w;
	vg_report_set_proc_namer(vg_run_report(run), namer, c);
	if (!vg_run_quiet(run))
		fprintf(stderr, "vigil: pid %d is pid %d in its pid namespace, cgroup %s%s\n",
			pid, w.ns_pid, w.cgroup[0] ? w.cgroup : "(unknown)",
			w.other_root ? "; its files are read through its own root (/proc/PID/root)" : "");
	*state = c;
	return 0;
}

/* the namer's, until the report is gone */
static void released(void *state, const struct vg_run_end *end)
{
	(void)end;
	free(state);
}

const struct vg_feature vg_container_feature = {
	.name = "container",
	.start = start,
	.released = released,
};
