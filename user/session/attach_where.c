/* vigil attach to a process in other namespaces (a container): the
 * reports name it by its pid there and its cgroup too. */
#include "session_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "follow/follow.h"
#include "proc/procinfo.h"
#include "report/report.h"

static bool attach_namer(void *ctx, uint32_t pid, struct vg_report_proc *out)
{
	struct session *ss = ctx;
	const struct vg_kid *k;

	if ((pid_t)pid == ss->pid) {
		out->ns_pid = (uint32_t)ss->target_where->ns_pid;
		out->cgroup = ss->target_where->cgroup;
		return true;
	}
	/* a followed fork's */
	if (!(k = vg_follow_find(ss->procs, (pid_t)pid)))
		return false;
	out->ns_pid = (uint32_t)k->ns_pid;
	out->cgroup = k->cgroup ? k->cgroup : "";
	return true;
}

int vg_session_attach_where(struct session *ss, struct vg_err *e)
{
	struct vg_proc_where w;

	if (ss->o->watch_exe || ss->o->pid <= 0)
		return 0;
	if (vg_proc_where(ss->pid, &w, e))
		return -1;
	/* a process in vigil's own namespaces needs no more than its pid */
	if (w.ns_pid == ss->pid && !w.other_root)
		return 0;
	if (!(ss->target_where = malloc(sizeof(*ss->target_where))))
		return vg_errf(e, "out of memory");
	*ss->target_where = w;
	vg_report_set_proc_namer(ss->report, attach_namer, ss);
	if (!ss->o->quiet)
		fprintf(stderr, "vigil: pid %d is pid %d in its pid namespace, cgroup %s%s\n",
			ss->pid, w.ns_pid, w.cgroup[0] ? w.cgroup : "(unknown)",
			w.other_root ? "; its files are read through its own root (/proc/PID/root)" : "");
	return 0;
}
