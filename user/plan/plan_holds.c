/* Which events hold their thread until vigil has armed a watchpoint
 * (VG_EVF_HOLD), and which void the probes' "holds are futile"
 * (VG_EVF_UNWATCH): passes of the plan (plan.h), from the automata alone.
 * The watchset arms and disarms by them while the run goes on
 * (user/session/watchset.c). */
#include "plan.h"

#include <stdlib.h>

/* Is variable v where a per-slice watch of state `to` points, or its
 * `@ n`? */
static bool var_places_watch(const struct vg_spec *spec,
			     const struct vg_property *pr, int to, int v)
{
	bool is_var;

	for (int u = 0; u < pr->ntrans; u++) {
		const struct vg_event *ev = &spec->events[pr->trans[u].event];

		if (pr->trans[u].from != to ||
		    !vg_event_watches_slice(
			    &spec->events[pr->trans[u].event]))
			continue;
		for (int k = 0; k < (ev->kind == VG_EV_CHANGE ? ev->ncloc : 1); k++) {
			const struct vg_watch_loc *w = ev->kind == VG_EV_CHANGE
						       ? &ev->cloc[k] : &ev->wloc;

			if ((vg_watch_name(pr, w->base, &is_var) == v && is_var) ||
			    (w->count[0] && vg_watch_name(pr, w->count, &is_var) == v &&
			     is_var))
				return true;
		}
	}
	return false;
}

/* A self-loop keeps the slice's watches where they are, unless its update
 * stores to a variable that says where one points or how far. */
static bool loop_moves_watch(const struct vg_spec *spec,
			     const struct vg_property *pr,
			     const struct vg_transition *t)
{
	for (uint32_t i = 0; i < t->update.len; i++) {
		const struct vg_insn *in = &pr->code[t->update.off + i];

		if (in->op == VG_OP_STVAR &&
		    var_places_watch(spec, pr, t->to, in->idx))
			return true;
	}
	return false;
}

/* The events whose probe must hold the thread (VG_EVF_HOLD) until vigil
 * has armed what the transition asks for: those of transitions into a
 * state that watches. A self-loop that leaves its watches where they are
 * arms nothing, and holding it would cost every hit ~200 us. */
bool *vg_plan_watch_holds(const struct vg_spec *spec, const bool *kernel,
			  bool *oom)
{
	bool *hold = NULL, any = false;

	*oom = false;
	for (int p = 0; p < spec->nprops; p++) {
		const struct vg_property *pr = &spec->props[p];

		if (kernel[p])
			continue;
		for (int t = 0; t < pr->ntrans; t++) {
			int to = pr->trans[t].to;
			bool arms = vg_property_state_watches(pr, to);

			if (to == pr->trans[t].from && !arms &&
			    !loop_moves_watch(spec, pr, &pr->trans[t]))
				continue;
			for (int u = 0; !arms && u < pr->ntrans; u++)
				arms = pr->trans[u].from == to &&
				       vg_event_watches_slice(
					       &spec->events[pr->trans[u].event]);
			if (!arms)
				continue;
			if (!hold &&
			    !(hold = calloc(spec->nevents + 1, sizeof(bool)))) {
				*oom = true;
				return NULL;
			}
			hold[pr->trans[t].event] = any = true;
		}
	}
	return any ? hold : (free(hold), NULL);
}

/* The events that may take a slice out of a state that watches, or move
 * its watch (VG_EVF_UNWATCH): any transition from such a state, and the
 * watch events themselves. Conservative: each one voids the probes'
 * "holds are futile" until user space has handled it. */
bool *vg_plan_watch_releases(const struct vg_spec *spec, const bool *kernel,
			     bool *oom)
{
	bool *rel = NULL, any = false;

	*oom = false;
	for (int p = 0; p < spec->nprops; p++) {
		const struct vg_property *pr = &spec->props[p];

		if (kernel[p])
			continue;
		for (int t = 0; t < pr->ntrans; t++) {
			int from = pr->trans[t].from;
			bool watches = vg_property_state_watches(pr, from) ||
				       vg_event_watches_slice(
					       &spec->events[pr->trans[t].event]);

			for (int u = 0; !watches && u < pr->ntrans; u++)
				watches = pr->trans[u].from == from &&
					  vg_event_watches_slice(
						  &spec->events[pr->trans[u].event]);
			if (!watches)
				continue;
			if (!rel &&
			    !(rel = calloc(spec->nevents + 1, sizeof(bool)))) {
				*oom = true;
				return NULL;
			}
			rel[pr->trans[t].event] = any = true;
		}
	}
	return any ? rel : (free(rel), NULL);
}
