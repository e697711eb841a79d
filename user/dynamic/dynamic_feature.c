/* --dynamic as a feature of the run (feature/feature.h): the session core
 * calls these hooks as it calls every feature's, and knows nothing of
 * this folder. */
#include "dynamic.h"

#include "feature/feature.h"
#include "monitor/monitor.h"
#include "plan/plan.h"

/* the plan's analysis (a run without --dynamic has none: no state, no
 * other call) */
static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	struct vg_plan_dyn *d = vg_plan_take_dyn(plan);

	if (d && !(*state = vg_dyn_new(run, d, e)))
		return -1;
	return 0;
}

static void record(void *state, const struct vg_mon_event *ev, uint32_t flags)
{
	vg_dyn_note(state, ev->event, flags);
}

/* what arming stops asked for goes in before the threads they stopped
 * are let go; now and then, what no live slice can use comes out */
static int drained(void *state, struct vg_err *e)
{
	return vg_dyn_after_drain(state, e) || vg_dyn_sweep(state, e) ? -1 : 0;
}

static void end(void *state, const struct vg_run_end *how)
{
	vg_dyn_finish(state);
}

static void released(void *state, const struct vg_run_end *how)
{
	vg_dyn_free(state);
}

const struct vg_feature vg_dyn_feature = {
	.name = "dynamic",
	.start = start,
	.record = record,
	.drained = drained,
	.end = end,
	.released = released,
};
