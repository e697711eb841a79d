/* A watchpoint's hit (user/watchset/watchset.h, vg_watchset_hit): the
 * register it came on, `old` from the value that register saw last, and
 * the event of each watch the register serves fed to its slice's monitor
 * (or, for a global, to every property of the target's), unless the
 * program silenced the access (watchset_quiet.c) or the slice's block is
 * a violation's watched on (watchset_repeat.c). On a machine whose
 * debug registers report old hits again, the slices a hit moves end
 * inconclusive, and a hit at a uprobe's single step is not fed, nor one
 * whose value the probe did not read.
 * watchset.c arms the registers and keeps the watches this reads. */
#include "watchset_internal.h"

#include "monitor/monitor.h"

/* the event a hit makes for watch w, if any: a write's value and the
 * last one seen; a change's new EXPR when it differs */
static bool hit_event(struct vg_watchset *ws, struct watch *w, int r,
		      uint64_t before, struct vg_mon_event *ev)
{
	const struct vg_event *e = &ws->spec->events[w->event];
	int64_t now;

	ev->event = w->event;
	if (e->kind != VG_EV_CHANGE) {
		ev->slot[VG_WSLOT_OLD] = before;
	} else {
		for (int k = 0; k < w->nreg; k++)
			if (w->reg[k] == r)
				w->cval[k] = (int64_t)ws->reg[r].last;
		now = vg_ws_change_value(e, w->cval);
		if (now == w->clast)
			return false;
		ev->slot[VG_WSLOT_OLD] = (uint64_t)w->clast;
		w->clast = now;
		ev->slot[VG_WSLOT_VALUE] = (uint64_t)now;
	}
	for (int j = 0; j < VG_MAX_PARAMS; j++)
		ev->slot[VG_WSLOT_PARAM0 + j] = w->global ? 0 : w->params[j];
	return true;
}

/* does watch w take register r's hits? */
static bool takes(const struct watch *w, int r)
{
	for (int j = 0; w->used && j < w->nreg; j++)
		if (w->reg[j] == r)
			return true;
	return false;
}

/* A hit on register r that may not have happened (a machine that
 * reports old hits again: probe/debugregs.h): every slice that armed r
 * ends inconclusive, and for a global every property its event moves. */
static void untrusted(struct vg_watchset *ws, struct vg_monitor *m, int r)
{
	for (int k = 0; k < MAX_WATCHES; k++) {
		const struct watch *w = &ws->w[k];

		if (!takes(w, r))
			continue;
		if (!w->global)
			vg_monitor_mark_slice_inconclusive(w->m, w->prop,
							   w->mask, w->params);
		for (int p = 0; w->global && p < ws->spec->nprops; p++)
			if (vg_property_binding(&ws->spec->props[p], w->event))
				vg_monitor_mark_inconclusive(m, p);
	}
}

int vg_watchset_hit(struct vg_watchset *ws, struct vg_monitor *m,
		    struct vg_mon_event *ev, struct vg_err *e)
{
	struct {
		struct vg_mon_event ev;
		struct vg_monitor *m;
		int prop;	/* -1: every property (a global) */
		struct watch *rep;	/* a violation's block (its copy) */
		struct watch w;
	} out[MAX_WATCHES];
	uint64_t value = ev->slot[VG_WSLOT_VALUE], before;
	int r = -1, n = 0;

	for (int i = 0; ws && i < MAX_REGS; i++)
		if (ws->reg[i].id >= 0 &&
		    ws->reg[i].wp.addr == ev->slot[VG_WSLOT_ADDR])
			r = i;
	if (r < 0) {		/* a hit on its way while it was disarmed */
		if (ws)
			ws->late++;
		return 0;
	}
	if (ws->stale)
		untrusted(ws, m, r);
	/* at a uprobe's single step (bpf/vigil/watch.bpf.c): not fed */
	if (ws->step_hit) {
		ws->step_hits++;
		return 0;
	}
	/* on a block the allocator handed out again, whose release left
	 * its slice watched (a guard kept it): what was written is not
	 * known (bpf/vigil/watch.bpf.c), so neither is what a guard, an
	 * update or `old` would make of it */
	if (ws->novalue) {
		ws->novalue_hits++;
		untrusted(ws, m, r);
		return 0;
	}
	ws->hits++;
	before = ws->reg[r].last;
	ws->reg[r].last = value;
	/* the watches it serves: collected first, since feeding one may
	 * move watches */
	for (int k = 0; k < MAX_WATCHES; k++) {
		struct watch *w = &ws->w[k];

		if (!takes(w, r))
			continue;
		out[n].ev = *ev;
		out[n].ev.slot[VG_WSLOT_VALUE] = value;
		if (hit_event(ws, w, r, before, &out[n].ev)) {
			out[n].m = w->global ? m : w->m;
			out[n].prop = w->global ? -1 : w->prop;
			out[n].w = *w;
			out[n].rep = !w->global &&
				vg_ws_repeat_state(ws, w->prop, w->state)
				? &out[n].w : NULL;
			n++;
		}
	}
	for (int i = 0; i < n; i++) {
		uint64_t key = vg_ws_repeat_key(ws->spec, &out[i].ev);
		int rc;

		/* a slice's block the program told memcheck to keep quiet
		 * about (watchset_quiet.c) */
		if (out[i].prop >= 0 && ws->quiet &&
		    vg_ws_quiet_hit(ws, out[i].m, ev, ws->reg[r].wp.addr,
				    ws->reg[r].wp.addr + ws->reg[r].wp.len))
			continue;
		if (out[i].rep) {
			vg_ws_repeat_hit(ws, out[i].m, out[i].prop,
					 out[i].rep->mask, out[i].rep->params,
					 &out[i].ev, key);
			continue;
		}
		ws->have_key = true;
		ws->cur_key = key;
		rc = out[i].prop < 0
			? vg_monitor_event(out[i].m, &out[i].ev, e)
			: vg_monitor_event_prop(out[i].m, out[i].prop,
						&out[i].ev, e);
		ws->have_key = false;
		if (rc)
			return -1;
	}
	return 0;
}
