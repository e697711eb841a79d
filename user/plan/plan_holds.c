/* Which events hold their thread until vigil has armed a watchpoint
 * (VG_EVF_HOLD), and which void the probes' "holds are futile"
 * (VG_EVF_UNWATCH): passes of the plan (plan.h), from the automata alone.
 * The watchset arms and disarms by them while the run goes on
 * (user/watchset/watchset.c). */
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

/* Does a slice in `state` watch: a reaction on entering it asks for a
 * watch, or a transition out of it takes a per-slice watch event? */
static bool state_watches(const struct vg_spec *spec,
			  const struct vg_property *pr, int state)
{
	if (vg_property_state_watches(pr, state))
		return true;
	for (int u = 0; u < pr->ntrans; u++)
		if (pr->trans[u].from == state &&
		    vg_event_watches_slice(&spec->events[pr->trans[u].event]))
			return true;
	return false;
}

/* Marks event in *set (made on the first mark): false when out of
 * memory. */
static bool mark_event(const struct vg_spec *spec, bool **set, int event)
{
	if (!*set && !(*set = calloc(spec->nevents + 1, sizeof(bool))))
		return false;
	(*set)[event] = true;
	return true;
}

/* The events whose probe must hold the thread (VG_EVF_HOLD) until vigil
 * has armed what the transition asks for: those of transitions into a
 * state that watches. A self-loop that leaves its watches where they are
 * arms nothing, and holding it would cost every hit ~200 us. */
bool *vg_plan_watch_holds(const struct vg_spec *spec, const bool *kernel,
			  bool *oom)
{
	bool *hold = NULL;

	*oom = false;
	for (int p = 0; p < spec->nprops; p++) {
		const struct vg_property *pr = &spec->props[p];

		if (kernel[p])
			continue;
		for (int t = 0; t < pr->ntrans; t++) {
			int to = pr->trans[t].to;

			if (to == pr->trans[t].from &&
			    !vg_property_state_watches(pr, to) &&
			    !loop_moves_watch(spec, pr, &pr->trans[t]))
				continue;
			if (!state_watches(spec, pr, to))
				continue;
			if (!mark_event(spec, &hold, pr->trans[t].event)) {
				*oom = true;
				return NULL;
			}
		}
	}
	return hold;
}

/* The events that may take a slice out of a state that watches, or move
 * its watch (VG_EVF_UNWATCH): any transition from such a state, and the
 * watch events themselves. Conservative: each one voids the probes'
 * "holds are futile" until user space has handled it. slots[event]:
 * where a call event names such a slice (its binding's slots), the only
 * places where an armed address it carries is the slice's block given
 * out again, not what an argument register happened to hold
 * (bpf/released.bpf.h); NULL: not wanted. */
bool *vg_plan_watch_releases(const struct vg_spec *spec, const bool *kernel,
			     uint16_t *slots, bool *oom)
{
	bool *rel = NULL;

	*oom = false;
	for (int p = 0; p < spec->nprops; p++) {
		const struct vg_property *pr = &spec->props[p];

		if (kernel[p])
			continue;
		for (int t = 0; t < pr->ntrans; t++) {
			const struct vg_transition *tr = &pr->trans[t];
			const struct vg_binding *b = &pr->bindings[tr->binding];
			enum vg_event_kind k = spec->events[tr->event].kind;

			/* (a watch event's own transition leaves a state
			 * that watches: state_watches says so) */
			if (!state_watches(spec, pr, tr->from))
				continue;
			if (!mark_event(spec, &rel, tr->event)) {
				*oom = true;
				return NULL;
			}
			for (int j = 0; slots && j < pr->nparams; j++)
				if ((k == VG_EV_BEFORE || k == VG_EV_AFTER) &&
				    (b->mask >> j & 1) &&
				    b->slot[j] <= VG_SLOT_RET)
					slots[tr->event] |= 1u << b->slot[j];
		}
	}
	return rel;
}
