/* --dynamic's run: the probes the plan lets come and go (its analysis,
 * user/plan/plan_dynamic.c) attached as slices need them and detached
 * when none can use them (dynamic.c says how no event is lost). A feature
 * of the run (vg_dyn_feature, dynamic_feature.c): its state is its own,
 * and it reads the run through vg_run_* (user/feature/feature.h). */
#ifndef VIGIL_DYNAMIC_H
#define VIGIL_DYNAMIC_H

#include <stdint.h>

#include "util/err.h"

struct vg_run;
struct vg_plan_dyn;
struct vg_dyn;
struct vg_feature;

/* The run's side of the plan's analysis d (taken: freed with it); NULL
 * with e set when out of memory (d freed then too). */
struct vg_dyn *vg_dyn_new(struct vg_run *run, struct vg_plan_dyn *d,
			  struct vg_err *e);
void vg_dyn_free(struct vg_dyn *dy);
/* Every call below does nothing with a NULL dy (no --dynamic). */

/* An event read (flags: its record's): note an arming stop
 * (VG_RF_ARMSTOP). */
void vg_dyn_note(struct vg_dyn *dy, int event, uint32_t flags);
/* After a drain: attach what arming stops asked for (the session
 * resumes the processes they stopped afterwards). */
int vg_dyn_after_drain(struct vg_dyn *dy, struct vg_err *e);
/* Now and then: detach the probes no live slice can use. */
int vg_dyn_sweep(struct vg_dyn *dy, struct vg_err *e);
/* At the end: the counts. */
void vg_dyn_finish(const struct vg_dyn *dy);

extern const struct vg_feature vg_dyn_feature;

#endif
