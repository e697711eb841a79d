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
 * (user/plan/plan_dynamic.c); this is the run's side of it, which reads
 * the run through vg_run_* (user/feature/feature.h). */
#include "dynamic.h"

#include <stdio.h>
#include <stdlib.h>

#include "feature/feature.h"
#include "monitor/monitor.h"
#include "plan/plan.h"
#include "probe/probe.h"
#include "util/clock.h"
#include "vigil_event.h"

#define VG_DYN_SWEEP_MS 200	/* how often detaching is considered */

struct vg_dyn {
	struct vg_run *run;
	struct vg_plan_dyn *d;		/* the plan's analysis */
	uint64_t attached;		/* dynamic probes attached now */
	uint64_t want;			/* asked for by arming stops, not yet
					 * attached */
	uint64_t last_sweep_ns;
	uint64_t attaches, detaches, stops;
};

struct vg_dyn *vg_dyn_new(struct vg_run *run, struct vg_plan_dyn *d,
			  struct vg_err *e)
{
	struct vg_dyn *dy = calloc(1, sizeof(*dy));

	if (!dy) {
		vg_plan_dyn_free(d);
		vg_errf(e, "out of memory");
		return NULL;
	}
	dy->run = run;
	dy->d = d;
	return dy;
}

void vg_dyn_free(struct vg_dyn *dy)
{
	if (!dy)
		return;
	vg_plan_dyn_free(dy->d);
	free(dy);
}

void vg_dyn_note(struct vg_dyn *dy, int event, uint32_t flags)
{
	if (!dy || !(flags & VG_RF_ARMSTOP) || !dy->d->arms[event])
		return;
	dy->stops++;
	dy->want |= dy->d->arms[event];
}

/* Attach what arming stops asked for; the session resumes what they
 * stopped afterwards (hold.c). */
int vg_dyn_after_drain(struct vg_dyn *dy, struct vg_err *e)
{
	struct vg_probe *probe;
	uint64_t add;

	if (!dy || !dy->want)
		return 0;
	probe = vg_run_probe(dy->run);
	add = dy->want & ~dy->attached;
	for (int i = 0; i < 64; i++)
		if (add >> i & 1) {
			if (vg_probe_event_attach(probe, i, true, e))
				return -1;
			dy->attaches++;
		}
	dy->attached |= add;
	dy->want = 0;
	vg_probe_set_armed(probe, ~(dy->d->dynamic & ~dy->attached));
	return 0;
}

struct scan {
	const struct vg_plan_dyn *d;
	const struct vg_run *run;
	uint64_t needed;
};

static void scan_one(void *ctx, const struct vg_slice_view *s)
{
	struct scan *sc = ctx;

	if (!vg_run_prop_kernel(sc->run, s->prop))
		sc->needed |= sc->d->consume[sc->d->state_off[s->prop] + s->state];
}

static void scan_monitor(void *ctx, pid_t pid, struct vg_monitor *m)
{
	(void)pid;
	vg_monitor_foreach(m, scan_one, ctx);
}

/* the dynamic events some live slice can consume, in any process */
static uint64_t needed_now(const struct vg_dyn *dy)
{
	struct scan sc = { .d = dy->d, .run = dy->run };

	vg_run_foreach_monitor(dy->run, scan_monitor, &sc);
	return sc.needed & dy->d->dynamic;
}

int vg_dyn_sweep(struct vg_dyn *dy, struct vg_err *e)
{
	struct vg_probe *probe;
	uint64_t cand, now;

	/* (nothing attached that could be detached: no scan of the slices) */
	if (!dy || !dy->attached)
		return 0;
	now = vg_now_ns(CLOCK_MONOTONIC);
	if (now - dy->last_sweep_ns < VG_DYN_SWEEP_MS * 1000000ull)
		return 0;
	dy->last_sweep_ns = now;
	cand = dy->attached & ~needed_now(dy);
	if (!cand)
		return 0;
	probe = vg_run_probe(dy->run);
	/* 1. from now on, an event that could make them needed stops */
	vg_probe_set_armed(probe,
			   ~(dy->d->dynamic & ~(dy->attached & ~cand)));
	/* 2. none that read the old mask is still on its way */
	if (!vg_probe_quiesce(probe, 50)) {
		vg_probe_set_armed(probe, ~(dy->d->dynamic & ~dy->attached));
		return 0;
	}
	/* 3. what they sent is in the monitor; look again */
	if (vg_run_drain(dy->run, e) < 0)
		return -1;
	cand &= ~needed_now(dy) & ~dy->want;
	for (int i = 0; i < 64; i++)
		if (cand >> i & 1) {
			if (vg_probe_event_attach(probe, i, false, e))
				return -1;
			dy->detaches++;
		}
	dy->attached &= ~cand;
	vg_probe_set_armed(probe, ~(dy->d->dynamic & ~dy->attached));
	return vg_dyn_after_drain(dy, e);
}

void vg_dyn_finish(const struct vg_dyn *dy)
{
	if (!dy)
		return;
	fprintf(stderr, "vigil: dynamic probes: %llu attached, %llu detached, %llu arming stops\n",
		(unsigned long long)dy->attaches,
		(unsigned long long)dy->detaches,
		(unsigned long long)dy->stops);
}
