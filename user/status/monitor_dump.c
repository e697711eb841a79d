/* SIGUSR1 on a running vigil: the monitor as it is now on stderr, every
 * live slice with its state, parameters and variables (at most
 * VG_DUMP_CAP per state), the target's monitor then each followed
 * process's. A feature (status.h): its dump hook, which the core calls
 * first of all the features' on SIGUSR1. */
#include "status.h"

#include <inttypes.h>
#include <stdio.h>

#include "feature/feature.h"
#include "report/dump.h"

#define VG_DUMP_CAP 50		/* slices listed per state */

/* the state is the run itself: the dump keeps nothing of its own */
static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	(void)plan;
	(void)e;
	*state = run;
	return 0;
}

static void dump_process(void *ctx, pid_t pid, struct vg_monitor *m)
{
	const struct vg_run *run = ctx;
	int failed = vg_report_dump(vg_run_spec(run), m, stderr, VG_DUMP_CAP,
				    (uint32_t)pid);

	if (failed && !pid)	/* said for the target's only */
		fprintf(stderr, "vigil: out of memory for the dump\n");
}

static void dump(void *state)
{
	const struct vg_run *run = state;

	vg_run_sync_kernel(run);
	fprintf(stderr, "vigil: the monitor of pid %d after %" PRIu64
		" records (SIGUSR1; first %d slices per state):\n",
		vg_run_pid(run), vg_run_records(run), VG_DUMP_CAP);
	vg_run_foreach_monitor(run, dump_process, (void *)run);
	fprintf(stderr, "vigil: end of the monitor state; monitoring goes on\n");
}

const struct vg_feature vg_monitor_dump_feature = {
	.name = "monitor_dump",
	.start = start,
	.dump = dump,
};
