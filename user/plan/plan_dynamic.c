/* --dynamic's arming analysis, a pass of the plan (plan.h): from the
 * automata, which entry probes may come and go, and what arms them. The
 * session attaches and detaches them while the run goes on
 * (user/session/dynamic.c, which says why no event is lost).
 *
 * An entry probe is dynamic unless its event can create a slice (it is
 * consumed in a property's initial state) or belongs to a kernel-tier
 * property (whose slices are in the kernel), or the function is an
 * `outside` one (its entry must always count). Each event X gets the
 * dynamic events it can make needed: those consumed in a state some
 * transition on X enters (`arms`). */
#include "plan.h"

#include <stdlib.h>

static uint64_t bit(int event)
{
	return event >= 0 && event < 64 ? 1ull << event : 0;
}

struct vg_plan_dyn *vg_plan_dynamic(const struct vg_spec *spec,
				    const bool *kernel)
{
	struct vg_plan_dyn *d = calloc(1, sizeof(*d));
	uint64_t always = 0, entry = 0;
	int nstates = 0;

	if (!d)
		return NULL;
	d->state_off = calloc(spec->nprops + 1, sizeof(int));
	d->arms = calloc(spec->nevents + 1, sizeof(uint64_t));
	for (int p = 0; d->state_off && p < spec->nprops; p++) {
		d->state_off[p] = nstates;
		nstates += spec->props[p].nstates;
	}
	d->consume = calloc(nstates + 1, sizeof(uint64_t));
	if (!d->state_off || !d->arms || !d->consume) {
		vg_plan_dyn_free(d);
		return NULL;
	}
	/* (an `outside` function's entry must always count) */
	for (int i = 0; i < spec->nevents; i++)
		if (spec->events[i].kind == VG_EV_BEFORE &&
		    !spec->events[i].marks_inside)
			entry |= bit(i);
	for (int p = 0; p < spec->nprops; p++) {
		const struct vg_property *pr = &spec->props[p];

		for (int t = 0; t < pr->ntrans; t++) {
			uint64_t b = bit(pr->trans[t].event);

			d->consume[d->state_off[p] + pr->trans[t].from] |= b;
			/* a kernel-tier property's slices are in the kernel:
			 * its events stay; so do those that create slices */
			if (kernel[p] || pr->trans[t].from == 0)
				always |= b;
		}
	}
	d->dynamic = entry & ~always;
	for (int p = 0; p < spec->nprops; p++) {
		const struct vg_property *pr = &spec->props[p];

		for (int t = 0; !kernel[p] && t < pr->ntrans; t++)
			d->arms[pr->trans[t].event] |=
				d->consume[d->state_off[p] + pr->trans[t].to] &
				d->dynamic;
	}
	return d;
}

void vg_plan_dyn_free(struct vg_plan_dyn *d)
{
	if (!d)
		return;
	free(d->consume);
	free(d->state_off);
	free(d->arms);
	free(d);
}
