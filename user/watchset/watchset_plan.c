/* How each property finds the memory of its per-slice watch events
 * (user/watchset/watchset_internal.h), taken from the plan (user/plan/:
 * which slice parameter or variable holds the pointer, the members below
 * it from DWARF, the count of `@ n`); which states consume which events.
 * Which events must hold their thread while a watchpoint is armed is a
 * pass of the plan (user/plan/plan_holds.c). */
#include "watchset_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "monitor/monitor.h"

struct plan *vg_ws_plan(struct vg_watchset *ws, int prop, int event)
{
	return &ws->plan[prop * ws->spec->nevents + event];
}

int vg_ws_slice_events(const struct vg_watchset *ws, int prop,
		       const int **ev)
{
	*ev = ws->slice_ev + ws->slice_ev_off[prop];
	return ws->slice_ev_off[prop + 1] - ws->slice_ev_off[prop];
}

/* slice_ev, once every property's plans are made */
static int index_slice_events(struct vg_watchset *ws)
{
	int np = ws->spec->nprops, ne = ws->spec->nevents, n = 0;

	ws->slice_ev = calloc((size_t)np * ne + 1, sizeof(int));
	ws->slice_ev_off = calloc((size_t)np + 1, sizeof(int));
	if (!ws->slice_ev || !ws->slice_ev_off)
		return -1;
	for (int p = 0; p < np; p++) {
		ws->slice_ev_off[p] = n;
		for (int ev = 0; ev < ne; ev++) {
			const struct plan *pl = vg_ws_plan(ws, p, ev);

			if (pl->on && pl->nloc >= 1 &&
			    ws->spec->events[ev].kind != VG_EV_CHANGE)
				ws->slice_ev[n++] = ev;
		}
	}
	ws->slice_ev_off[np] = n;
	return 0;
}

bool vg_ws_consumes(const struct vg_watchset *ws, int prop, int state,
		    int event)
{
	int off = ws->state_off[prop] + state;

	for (int k = 0; k < ws->ncons[off]; k++)
		if (ws->cons[off][k] == event)
			return true;
	return false;
}

/* property prop's plan for a per-slice watch event, from the plan's */
static int plan_event(struct vg_watchset *ws, const struct vg_plan *plan,
		      int prop, int event, struct vg_err *e)
{
	const struct vg_plan_swatch *sw = vg_plan_swatch_of(plan, prop, event);
	struct plan *pl = vg_ws_plan(ws, prop, event);

	if (!sw)
		return vg_errf(e, "no watch planned for event %s of %s",
			       ws->spec->events[event].name,
			       ws->spec->props[prop].name);
	pl->on = true;
	pl->nloc = sw->nloc;
	for (int k = 0; k < pl->nloc; k++)
		pl->loc[k] = (struct loc_plan){
			.base = sw->loc[k].base,
			.base_var = sw->loc[k].base_var,
			.count_kind = sw->loc[k].count_kind,
			.count = sw->loc[k].count,
			.ty = sw->loc[k].ty,
		};
	return 0;
}

/* which states of p consume which per-slice watch events, and their
 * plans */
static int plan_prop(struct vg_watchset *ws, const struct vg_plan *plan,
		     int p, struct vg_err *e)
{
	const struct vg_property *pr = &ws->spec->props[p];

	for (int s = 0; s < pr->nstates; s++)
		ws->prop_on[p] |= vg_property_state_watches(pr, s);
	for (int t = 0; t < pr->ntrans; t++) {
		int ev = pr->trans[t].event, k;
		int *c = ws->cons[ws->state_off[p] + pr->trans[t].from];
		int *n = &ws->ncons[ws->state_off[p] + pr->trans[t].from];

		if (!vg_event_watches_slice(&ws->spec->events[ev]))
			continue;
		ws->prop_on[p] = true;
		for (k = 0; k < *n && c[k] != ev; k++)
			;
		if (k == *n && *n == MAX_CONS)
			return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d:%d: more than %d watch events in one state",
					    pr->trans[t].loc.file,
					    pr->trans[t].loc.line,
					    pr->trans[t].loc.col, MAX_CONS);
		if (k == *n)
			c[(*n)++] = ev;
		if (!vg_ws_plan(ws, p, ev)->on && plan_event(ws, plan, p, ev, e))
			return -1;
	}
	/* a violation a watch event leads to, which the run goes on past,
	 * keeps the watch: later accesses from new places are reported
	 * (watchset_repeat.c) */
	for (int t = 0; t < pr->ntrans; t++) {
		int ev = pr->trans[t].event, to = pr->trans[t].to, k;
		int *c = ws->cons[ws->state_off[p] + to];
		int *n = &ws->ncons[ws->state_off[p] + to];

		if (!vg_event_watches_slice(&ws->spec->events[ev]) ||
		    ws->spec->events[ev].kind == VG_EV_CHANGE ||
		    pr->states[to].kind != VG_STATE_VIOLATION ||
		    ws->stop_mask[p] >> to & 1)
			continue;
		for (k = 0; k < *n && c[k] != ev; k++)
			;
		if (k == *n && *n < MAX_CONS)
			c[(*n)++] = ev;
	}
	return 0;
}

struct vg_watchset *vg_watchset_new(const struct vg_spec *spec,
				    const struct vg_plan *plan,
				    struct vg_probe *probe, pid_t pid,
				    enum vg_watch_policy policy,
				    struct vg_err *e)
{
	struct vg_watchset *ws = NULL;
	int nstates = 0, np = spec->nprops, ne = spec->nevents;

	if (!(ws = calloc(1, sizeof(*ws))))
		goto oom;
	/* no debug register fires (the session said so): nothing is armed;
	 * a slice that needed a register ends inconclusive (acquire), a
	 * global's property is inconclusive from the start */
	ws->no_regs = plan->no_debug_regs;
	/* and no thread waits for a free's pages to be counted in the
	 * probes' filter (plan.c, pass_blind): every checked call is sent */
	if (ws->no_regs)
		vg_probe_pages_all(probe);
	ws->spec = spec;
	ws->probe = probe;
	ws->pid = pid;
	ws->policy = policy;
	for (int i = 0; i < MAX_REGS; i++)
		ws->reg[i].id = -1;
	for (int p = 0; p < np; p++)
		nstates += spec->props[p].nstates;
	ws->plan = calloc((size_t)np * ne + 1, sizeof(*ws->plan));
	ws->prop_on = calloc(np + 1, sizeof(bool));
	ws->state_off = calloc(np + 1, sizeof(int));
	ws->cons = calloc(nstates + 1, sizeof(*ws->cons));
	ws->ncons = calloc(nstates + 1, sizeof(int));
	ws->stop_mask = calloc(np + 1, sizeof(uint32_t));
	ws->gwatch = calloc(plan->ngwatch + 1, sizeof(*ws->gwatch));
	if (!ws->plan || !ws->prop_on || !ws->state_off || !ws->cons ||
	    !ws->ncons || !ws->stop_mask || !ws->gwatch)
		goto oom;
	memcpy(ws->stop_mask, plan->stop_masks, np * sizeof(uint32_t));
	if (plan->ngwatch)	/* NULL when there is none */
		memcpy(ws->gwatch, plan->gwatch,
		       plan->ngwatch * sizeof(*ws->gwatch));
	ws->ngwatch = plan->ngwatch;
	{
		bool oom = false;

		ws->holds = vg_plan_watch_holds(plan->spec, plan->kernel,
						&oom);
		if (!oom)
			ws->releases = vg_plan_watch_releases(plan->spec,
							      plan->kernel,
							      NULL, &oom);
		if (oom)
			goto oom;
	}
	nstates = 0;
	for (int p = 0; p < np; p++) {
		ws->state_off[p] = nstates;
		nstates += spec->props[p].nstates;
		if (!plan->kernel[p] && plan_prop(ws, plan, p, e))
			goto fail;
	}
	if (index_slice_events(ws))
		goto oom;
	return ws;
oom:
	vg_errf(e, "out of memory");
fail:
	vg_watchset_free(ws);
	return NULL;
}

void vg_watchset_free(struct vg_watchset *ws)
{
	if (!ws)
		return;
	for (int i = 0; i < MAX_REGS; i++)
		if (ws->reg[i].id >= 0)
			vg_probe_wp_del(ws->probe, ws->reg[i].id);
	vg_ws_ranges_free(ws);
	vg_ws_repeats_free(ws);
	vg_ws_quiet_free(ws);
	free(ws->holds);
	free(ws->releases);
	free(ws->plan);
	free(ws->prop_on);
	free(ws->state_off);
	free(ws->cons);
	free(ws->ncons);
	free(ws->slice_ev);
	free(ws->slice_ev_off);
	free(ws->stop_mask);
	free(ws->gwatch);
	free(ws);
}

bool vg_ws_peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len;
}

bool vg_ws_where(struct vg_watchset *ws, const struct loc_plan *l,
		 const struct vg_slice_view *s, uint64_t *addr,
		 uint64_t *len, const char **why)
{
	uint64_t a, n = 1;

	if (l->base_var)
		a = (uint64_t)s->vars[l->base];
	else if (s->mask >> l->base & 1)
		a = s->params[l->base];
	else
		return *why = "its pointer is not bound", false;
	for (uint32_t i = 0; i + 1 < l->ty.nsteps; i++)
		if (!a || !vg_ws_peek(ws->pid, a + l->ty.off[i], &a, sizeof(a)))
			return *why = "a pointer on the way could not be read", false;
	if (!a)
		return *why = "the pointer is null", false;
	a += l->ty.off[l->ty.nsteps ? l->ty.nsteps - 1 : 0];
	if (l->count_kind == VG_WCOUNT_CONST)
		n = (uint64_t)l->count;
	else if (l->count_kind == VG_WCOUNT_VAR)
		n = (uint64_t)s->vars[l->count];
	else if (l->count_kind == VG_WCOUNT_PARAM)
		n = s->mask >> l->count & 1 ? s->params[l->count] : 0;
	if (!n || n > (1ull << 32))
		return *why = "the count is 0 or out of range", false;
	*addr = a;
	*len = n * l->ty.elem;
	return true;
}
