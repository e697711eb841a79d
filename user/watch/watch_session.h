/* Private to user/watch/: the session side of vigil watch
 * (watch_session.c), the table vg_watch_run hands the session
 * (feature/watch_ops.h) and what it is given with it. */
#ifndef VIGIL_WATCH_SESSION_H
#define VIGIL_WATCH_SESSION_H

#include <stdbool.h>

#include "feature/watch_ops.h"
#include "watch/watch_hooks.h"

struct vg_run;
struct vg_report;

/* vg_session_opts.watch_arg: vigil watch's own options */
struct vg_watch_cfg {
	bool lib;		/* the processes that map the executable */
	bool same_build;	/* and every copy of it */
	unsigned max_procs;	/* at once */
	const struct vg_watch_hooks *hooks;	/* or NULL */
};

extern const struct vg_session_watch_ops vg_watch_session_ops;

/* Reports r name the watched processes of the session root by their pid
 * in their namespace and their cgroup (a vigil load unit's report as the
 * session's own, watch_load.c). */
void vg_watch_name_procs(struct vg_run *root, struct vg_report *r);

#endif
