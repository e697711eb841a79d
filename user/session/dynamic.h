/* --dynamic's plan (user/session/dynamic.c), for user/plan/: which entry
 * probes may come and go, and what arms them. */
#ifndef VIGIL_SESSION_DYNAMIC_H
#define VIGIL_SESSION_DYNAMIC_H

#include <stdbool.h>
#include <stdint.h>

#include "spec/spec.h"

struct vg_dyn;
/* From the automata: per event, the events it can make needed (*arms,
 * owned by the result) and the entry probes that start detached. */
struct vg_dyn *vg_dyn_plan(const struct vg_spec *spec, const bool *kernel,
			   const uint64_t **arms, uint64_t *dormant);
void vg_dyn_free(struct vg_dyn *d);

#endif
