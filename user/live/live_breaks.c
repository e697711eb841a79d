/* `vigil break`: Verde's breakpoints on monitor states (break, delete,
 * breaks), and the stops they and the reactions make pushed to the
 * probes: a kernel-tier property's stop mask, a user-tier one's events
 * held under gdb (live.c dispatches the commands). */
#include "live_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/scenario.h"
#include "load/load.h"
#include "probe/probe.h"
#include "spec/spec.h"

/* The states of prop whose entry stops the program: its reactions' and
 * its monitor breakpoints'. own: the run or vigil load's part prop is
 * of; l: the run's live side (a part has none of its own) */
static uint32_t stop_states(struct vg_live *l, struct vg_run *own, int prop)
{
	uint32_t m = vg_scenario_stop_mask(vg_run_scenario(own), prop);

	for (int i = 0; i < l->nbrk; i++)
		if (l->brk[i].owner == own && l->brk[i].prop == prop &&
		    l->brk[i].state < 32)
			m |= 1u << l->brk[i].state;
	return m;
}

/* Under gdb a user-tier stop lands at its event, as a kernel-tier one
 * does: the probe of every event that can take a user-tier slice into a
 * stopping state (or one with a checkpoint reaction) holds its thread (VG_EVF_HOLD) until vigil has handled
 * the record, so the stop query that thread's SIGSTOP raises in gdb
 * finds the stop. Without this the scenario's SIGSTOP came a ring-buffer
 * latency later, wherever the program was by then, or never, when it had
 * exited. The price, a round trip through gdb (~2.5 ms) per such event,
 * is paid only while gdb is attached; the kernel tier does not pay it. */
static int push_user_holds(struct vg_live *l, struct vg_run *own,
			   struct vg_err *e)
{
	const struct vg_spec *s = vg_run_spec(own);
	bool hold[VG_MAX_EVENTS] = { false };

	if (l->gdb_client < 0)
		return 0;
	for (int prop = 0; prop < s->nprops; prop++) {
		const struct vg_property *p = &s->props[prop];
		bool kernel = vg_run_prop_kernel(own, prop);
		bool unloaded = vg_run_prop_unloaded(own, prop);
		uint32_t m = kernel || unloaded ? 0 : stop_states(l, own, prop);

		/* and those with a checkpoint reaction: the stop query of
		 * the hold finds it (reaction_checkpoint_now), and gdb takes
		 * it at the event, as the kernel tier's probe stops for it
		 * (the run's own: vigil load's parts take none, and have
		 * no live side of their own) */
		for (int st = 0; st < p->nstates && st < 32; st++)
			if (vg_live_host_state(own) && !kernel && !unloaded &&
			    vg_property_state_has_action(p, st, true,
							 VG_ACT_CHECKPOINT))
				m |= 1u << st;

		for (int t = 0; m && t < p->ntrans; t++)
			if (p->trans[t].to < 32 && (m >> p->trans[t].to & 1) &&
			    p->trans[t].event < VG_MAX_EVENTS)
				hold[p->trans[t].event] = true;
	}
	for (int ev = 0; ev < s->nevents && ev < VG_MAX_EVENTS; ev++)
		if (vg_probe_set_event_hold(vg_run_probe(own), ev, hold[ev], e))
			return -1;
	return 0;
}

/* A kernel-tier property stops in the probe at its breakpoints' states
 * too, as at the states its reactions stop at; a user-tier one holds the
 * events that lead there. */
static int push_stop_mask(struct vg_live *l, struct vg_run *own, int prop,
			  struct vg_err *e)
{
	if (!vg_run_prop_kernel(own, prop))
		return push_user_holds(l, own, e);
	return vg_probe_set_stop_mask(vg_run_probe(own), prop,
				      stop_states(l, own, prop), e);
}

int vg_live_forget_prop(struct vg_run *r, struct vg_run *owner, int prop,
			struct vg_err *e)
{
	struct vg_live *l = vg_live_host_state(r);
	bool had = false;

	if (!l)
		return 0;
	if (l->last_owner == owner && l->last_prop == prop)
		l->last_owner = NULL;
	for (int i = 0; i < l->nbrk; i++)	/* its breakpoints go with it */
		if (l->brk[i].owner == owner && l->brk[i].prop == prop) {
			l->brk[i--] = l->brk[--l->nbrk];
			had = true;
		}
	/* the stop states its reactions alone make */
	return had ? push_stop_mask(l, owner, prop, e) : 0;
}

int vg_live_push_holds(struct vg_run *r, struct vg_run *own,
		       struct vg_err *e)
{
	struct vg_live *l = vg_live_host_state(r);

	return l ? push_user_holds(l, own, e) : 0;
}

json_t *vg_live_break(struct vg_run *r, json_t *args)
{
	struct vg_live *l = vg_live_host_state(r);
	const char *pn = json_string_value(json_array_get(args, 0));
	const char *sn = json_string_value(json_array_get(args, 1));
	/* a property of the run's, or of a part (vigil load) */
	struct vg_run *own = vg_load_owner(r, pn);
	int prop = own ? vg_live_prop(own, pn) : -1, state;
	char text[512];

	if (!pn || !sn)
		return vg_live_reply(false, "usage: break PROPERTY STATE", NULL);
	/* a stop that nobody takes would leave the program stopped */
	if (!vg_live_host_interactive(r) && !l->opened)
		return vg_live_reply(false, "monitor breakpoints need a live gdb session (vigil run/attach --interactive)", NULL);
	if (prop < 0)
		return vg_live_errf("no property %s", pn, NULL);
	if ((state = vg_live_state(own, prop, sn)) < 0)
		return vg_live_errf("property %s has no state %s", pn, sn);
	if (l->nbrk == VG_LIVE_BREAKS)
		return vg_live_reply(false, "too many breakpoints (32)", NULL);
	l->brk[l->nbrk].id = ++l->next_brk;
	l->brk[l->nbrk].prop = prop;
	l->brk[l->nbrk].owner = own;
	l->brk[l->nbrk++].state = state;
	{
		struct vg_err e = { 0 };

		if (push_stop_mask(l, own, prop, &e)) {
			l->nbrk--;
			return vg_live_reply(false, e.msg, NULL);
		}
	}
	snprintf(text, sizeof(text), "breakpoint %d: stop when a slice of %s enters %s\n",
		 l->next_brk, pn, sn);
	return vg_live_reply(true, text, json_pack("{s:i}", "id", l->next_brk));
}

json_t *vg_live_delete(struct vg_run *r, json_t *args)
{
	struct vg_live *l = vg_live_host_state(r);
	const char *a = json_string_value(json_array_get(args, 0));
	int id = a ? atoi(a) : 0;

	for (int i = 0; i < l->nbrk; i++)
		if (l->brk[i].id == id) {
			struct vg_err e = { 0 };
			int prop = l->brk[i].prop;
			struct vg_run *own = (struct vg_run *)l->brk[i].owner;

			l->brk[i] = l->brk[--l->nbrk];
			if (push_stop_mask(l, own, prop, &e))
				return vg_live_reply(false, e.msg, NULL);
			return vg_live_reply(true, "deleted\n", NULL);
		}
	return vg_live_errf("no breakpoint %s", a ? a : "(none given)", NULL);
}

json_t *vg_live_breaks(struct vg_run *r)
{
	struct vg_live *l = vg_live_host_state(r);
	json_t *arr = json_array();
	char text[4096] = "";
	size_t len = 0;

	for (int i = 0; i < l->nbrk; i++) {
		const struct vg_property *p =
			&vg_run_spec(l->brk[i].owner)->props[l->brk[i].prop];

		json_array_append_new(arr, json_pack("{s:i,s:s,s:s}", "id",
			l->brk[i].id, "property", p->name, "state",
			p->states[l->brk[i].state].name));
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%d  %s %s\n", l->brk[i].id, p->name,
					p->states[l->brk[i].state].name);
		if (len >= sizeof(text))
			break;
	}
	return vg_live_reply(true, l->nbrk ? text : "no monitor breakpoints\n", arr);
}
