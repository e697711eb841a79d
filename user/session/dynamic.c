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
 * attaches the probe again before resuming it. */
#include "session_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/scenario.h"
#include "monitor/monitor.h"
#include "util/clock.h"

#define VG_DYN_SWEEP_MS 200	/* how often detaching is considered */

struct vg_dyn {
	uint64_t dynamic;	/* events whose probe may be detached */
	uint64_t attached;	/* of those, attached now */
	uint64_t *consume;	/* [nprops][VG_KMAX_STATES-ish]: see state_off */
	int *state_off;		/* [nprops]: where a property's states start */
	uint64_t *arms;		/* [nevents] */
	uint64_t want;		/* asked for by arming stops, not yet done */
	uint64_t last_sweep_ns;
	uint64_t attaches, detaches, stops;
};

static uint64_t bit(int event)
{
	return event >= 0 && event < 64 ? 1ull << event : 0;
}

struct vg_dyn *vg_dyn_plan(const struct vg_spec *spec, const bool *kernel,
			   const uint64_t **arms_out, uint64_t *dormant)
{
	struct vg_dyn *d = calloc(1, sizeof(*d));
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
		vg_dyn_free(d);
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
	*arms_out = d->arms;
	*dormant = d->dynamic;	/* no slice at the start */
	return d;
}

void vg_dyn_free(struct vg_dyn *d)
{
	if (!d)
		return;
	free(d->consume);
	free(d->state_off);
	free(d->arms);
	free(d);
}

void vg_dyn_note(struct session *ss, const struct vg_rec_hdr *h)
{
	struct vg_dyn *d = ss->dyn;

	if (!d || !(h->flags & VG_RF_ARMSTOP) || !d->arms[h->event])
		return;
	d->stops++;
	d->want |= d->arms[h->event];
}

/* Attach what arming stops asked for; the session resumes what they
 * stopped afterwards (hold.c). */
int vg_dyn_after_drain(struct session *ss, struct vg_err *e)
{
	struct vg_dyn *d = ss->dyn;
	uint64_t add;

	if (!d || !d->want)
		return 0;
	add = d->want & ~d->attached;
	for (int i = 0; i < 64; i++)
		if (add >> i & 1) {
			if (vg_probe_event_attach(ss->probe, i, true, e))
				return -1;
			d->attaches++;
		}
	d->attached |= add;
	d->want = 0;
	vg_probe_set_armed(ss->probe, ~(d->dynamic & ~d->attached));
	return 0;
}

struct scan {
	const struct vg_dyn *d;
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
	for (int i = 0; i < ss->nkids; i++)
		vg_monitor_foreach(ss->kids[i].mon, scan_one, &sc);
	return sc.needed & ss->dyn->dynamic;
}

int vg_dyn_sweep(struct session *ss, struct vg_err *e)
{
	struct vg_dyn *d = ss->dyn;
	uint64_t cand, now = vg_now_ns(CLOCK_MONOTONIC);

	/* (nothing attached that could be detached: no scan of the slices) */
	if (!d || !d->attached ||
	    now - d->last_sweep_ns < VG_DYN_SWEEP_MS * 1000000ull)
		return 0;
	d->last_sweep_ns = now;
	cand = d->attached & ~needed_now(ss);
	if (!cand)
		return 0;
	/* 1. from now on, an event that could make them needed stops */
	vg_probe_set_armed(ss->probe, ~(d->dynamic & ~(d->attached & ~cand)));
	/* 2. none that read the old mask is still on its way */
	if (!vg_probe_quiesce(ss->probe, 50)) {
		vg_probe_set_armed(ss->probe, ~(d->dynamic & ~d->attached));
		return 0;
	}
	/* 3. what they sent is in the monitor; look again */
	if (vg_probe_drain(ss->probe, vg_session_on_record, ss, e) < 0)
		return -1;
	cand &= ~needed_now(ss) & ~d->want;
	for (int i = 0; i < 64; i++)
		if (cand >> i & 1) {
			if (vg_probe_event_attach(ss->probe, i, false, e))
				return -1;
			d->detaches++;
		}
	d->attached &= ~cand;
	vg_probe_set_armed(ss->probe, ~(d->dynamic & ~d->attached));
	return vg_dyn_after_drain(ss, e);
}

void vg_dyn_finish(struct session *ss)
{
	const struct vg_dyn *d = ss->dyn;

	if (!d)
		return;
	fprintf(stderr, "vigil: dynamic probes: %llu attached, %llu detached, %llu arming stops\n",
		(unsigned long long)d->attaches,
		(unsigned long long)d->detaches,
		(unsigned long long)d->stops);
}
