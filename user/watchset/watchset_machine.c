/* What this machine's debug registers cannot be trusted with, said once
 * at the start of a run and marked where it matters: registers that never
 * fire (the plan's no_debug_regs: a global's watch events cannot be seen
 * at all), and registers that report an old hit again at a later debug
 * exception (probe/debugregs.h's check: QEMU's software emulation). */
#include "watchset.h"

#include <stdio.h>

#include "monitor/monitor.h"
#include "plan/plan.h"
#include "probe/debugregs.h"
#include "report/report.h"

/* A property that watches a global has no other way to see its events:
 * every verdict of it is inconclusive from the start. One that watches a
 * slice's memory still sees the calls and faults that touch it; each of
 * its slices that needed a register ends inconclusive (watchset.c). */
void vg_watchset_say_blind(const struct vg_spec *spec,
			   const struct vg_plan *plan, struct vg_report *r,
			   struct vg_monitor *mon)
{
	char line[2048];

	if (!plan->nblind)
		return;
	vg_plan_blind_line(plan, line, sizeof(line));
	fprintf(stderr, "vigil: %s\n", line);
	vg_report_set_blind(r, "this machine's debug registers do not fire");
	for (int p = 0; p < spec->nprops; p++) {
		const struct vg_property *pr = &spec->props[p];

		for (int b = 0; plan->blind[p] && b < pr->nbindings; b++) {
			const struct vg_event *ev =
				&spec->events[pr->bindings[b].event];

			if (vg_event_watches(ev) && !ev->wloc.per_slice)
				vg_monitor_mark_inconclusive(mon, p);
		}
	}
}

/* the registers fire, and report old hits again: said once, and every
 * slice a hit moves ends inconclusive (watchset_hit.c) */
void vg_watchset_say_stale(struct vg_watchset *ws, const struct vg_plan *plan,
			   struct vg_report *r)
{
	if (!ws || plan->no_debug_regs || vg_debug_regs() != VG_REGS_STALE)
		return;
	fprintf(stderr, "vigil: this machine's debug registers report an earlier hit again at a later debug exception (%s; QEMU's software emulation does this): a watch event may be one that did not happen, and the slices watch events move end inconclusive\n",
		VG_STALE_REGS_WHY);
	vg_report_set_blind(r, "this machine's debug registers report old hits again");
	vg_watchset_set_stale(ws);
}
