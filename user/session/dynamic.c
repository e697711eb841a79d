/* --dynamic: dynamic instrumentation, as in i-RV. The entry probe of a
 * function is attached only while some slice is in a state that can
 * consume its event; events that can create a slice (consumed in a
 * property's initial state), return probes, tracepoints and the events of
 * kernel-tier properties stay attached for the whole run.
 *
 * Why no event is lost between a state change and a probe change:
 *
 * Attaching. From the automata, each event X gets the set of events it can
 * make needed: those consumed in a state some transition on X enters
 * (`arms`). The probe of X compares that set with the mask of attached
 * probes (armed_mask, bpf/vigil.bpf.h). When one is missing it stops the
 * process with SIGSTOP right there, before X's thread returns to user
 * space, and flags its record (VG_RF_ARMSTOP). vigil handles the record,
 * attaches the missing probes, sets their bits, then lets the process go.
 * So the thread that took X cannot call a function whose probe is not yet
 * there. (Other threads run until the group stop reaches them, as with any
 * SIGSTOP: an object X creates is not theirs to use before X returns it.)
 *
 * Detaching. A probe whose event no live slice can consume is detached in
 * three steps: clear its bit (from then on any event that could make it
 * needed stops the process, as above); wait until no probe program that
 * read the old mask is between that read and the submission of its record
 * (a per-CPU in-flight count, vg_probe_quiesce); drain the ring buffer and
 * look at the slices again. Only a probe still not needed is detached;
 * one that became needed gets its bit back. An arming event that comes
 * after the drain finds the bit clear and stops the process, and vigil
 * attaches the probe again before resuming it.
 *
 * Which probes may come and go, and what arms them, the plan decided
 * (user/plan/plan_dynamic.c); this is the run's side of it. */
#include "session_internal.h"

#include <stdio.h>

#include "act/scenario.h"
#include "follow/follow.h"
#include "plan/plan.h"
#include "monitor/monitor.h"
#include "util/clock.h"

#define VG_DYN_SWEEP_MS 200	/* how often detaching is considered */

void vg_dyn_note(struct session *ss, const struct vg_rec_hdr *h)
{
	const struct vg_plan_dyn *d = ss->dyn;

	if (!d || !(h->flags & VG_RF_ARMSTOP) || !d->arms[h->event])
		return;
	ss->dyn_run.stops++;
	ss->dyn_run.want |= d->arms[h->event];
}

/* Attach what arming stops asked for; the session resumes what they
 * stopped afterwards (hold.c). */
int vg_dyn_after_drain(struct session *ss, struct vg_err *e)
{
	const struct vg_plan_dyn *d = ss->dyn;
	struct vg_dyn_run *r = &ss->dyn_run;
	uint64_t add;

	if (!d || !r->want)
		return 0;
	add = r->want & ~r->attached;
	for (int i = 0; i < 64; i++)
		if (add >> i & 1) {
			if (vg_probe_event_attach(ss->probe, i, true, e))
				return -1;
			r->attaches++;
		}
	r->attached |= add;
	r->want = 0;
	vg_probe_set_armed(ss->probe, ~(d->dynamic & ~r->attached));
	return 0;
}

struct scan {
	const struct vg_plan_dyn *d;
	const bool *kernel;
	uint64_t needed;
};

static void scan_one(void *ctx, const struct vg_slice_view *s)
{
	struct scan *sc = ctx;

	if (!sc->kernel[s->prop])
		sc->needed |= sc->d->consume[sc->d->state_off[s->prop] + s->state];
}

/* the dynamic events some live slice can consume */
static uint64_t needed_now(struct session *ss)
{
	struct scan sc = { .d = ss->dyn, .kernel = ss->kernel };

	vg_monitor_foreach(ss->mon, scan_one, &sc);
	for (int i = 0; i < vg_follow_count(ss->procs); i++)
		vg_monitor_foreach(vg_follow_at(ss->procs, i)->mon, scan_one,
				   &sc);
	return sc.needed & ss->dyn->dynamic;
}

int vg_dyn_sweep(struct session *ss, struct vg_err *e)
{
	const struct vg_plan_dyn *d = ss->dyn;
	struct vg_dyn_run *r = &ss->dyn_run;
	uint64_t cand, now = vg_now_ns(CLOCK_MONOTONIC);

	/* (nothing attached that could be detached: no scan of the slices) */
	if (!d || !r->attached ||
	    now - r->last_sweep_ns < VG_DYN_SWEEP_MS * 1000000ull)
		return 0;
	r->last_sweep_ns = now;
	cand = r->attached & ~needed_now(ss);
	if (!cand)
		return 0;
	/* 1. from now on, an event that could make them needed stops */
	vg_probe_set_armed(ss->probe, ~(d->dynamic & ~(r->attached & ~cand)));
	/* 2. none that read the old mask is still on its way */
	if (!vg_probe_quiesce(ss->probe, 50)) {
		vg_probe_set_armed(ss->probe, ~(d->dynamic & ~r->attached));
		return 0;
	}
	/* 3. what they sent is in the monitor; look again */
	if (vg_probe_drain(ss->probe, vg_session_on_record, ss, e) < 0)
		return -1;
	cand &= ~needed_now(ss) & ~r->want;
	for (int i = 0; i < 64; i++)
		if (cand >> i & 1) {
			if (vg_probe_event_attach(ss->probe, i, false, e))
				return -1;
			r->detaches++;
		}
	r->attached &= ~cand;
	vg_probe_set_armed(ss->probe, ~(d->dynamic & ~r->attached));
	return vg_dyn_after_drain(ss, e);
}

void vg_dyn_finish(struct session *ss)
{
	const struct vg_dyn_run *r = &ss->dyn_run;

	if (!ss->dyn)
		return;
	fprintf(stderr, "vigil: dynamic probes: %llu attached, %llu detached, %llu arming stops\n",
		(unsigned long long)r->attaches,
		(unsigned long long)r->detaches,
		(unsigned long long)r->stops);
}
