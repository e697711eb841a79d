/* `vigil unload PROP` of a property the run started with: it stops being
 * stepped in the kernel tier and stops costing probes, while every probe a
 * remaining property uses stays as it is (no gap, no double count).
 *
 * A kernel-tier property's rows are rewritten while the probes run, as a
 * stop mask is (probe_live.c): its transition entries become empty (no
 * step changes a slice, none stops or reports) and its row's reaction
 * masks zero. Its slices stay in the slice table, unchanged and no longer
 * read: the monitor ignores them (vg_monitor_disable).
 *
 * An event that only unloaded properties react to becomes idle: its
 * ev_conf entry keeps counting hits and sends nothing, steps nothing,
 * captures nothing. Its probes are detached where that costs no other
 * event anything: a uprobe group (one multi-uprobe link per program and
 * file, ulink.h) whose sites are all idle is closed. A group that also
 * holds needed sites stays attached as it is: a multi-uprobe link cannot
 * drop a subset, and attaching the group again without the idle sites
 * would leave a window between the close and the new link in which the
 * needed sites miss calls (or, new link first, count them twice) unless
 * the process is stopped for it; an idle site costs a trap per call and
 * nothing else, and `vigil status` counts such sites. Tracepoints (exit,
 * fork, signal) stay: one program serves several events and the kernel
 * filters them to the process anyway.
 *
 * Events whose entry or return counts the depth of an `outside` function
 * (VG_EVF_ENTER/LEAVE) are never made idle: other events' filters read
 * that depth. */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vigil.skel.h"

#define KT_ROWS (VG_KMAX_STATES * VG_KMAX_BINDINGS)

struct probe_gone {
	bool gone;
	bool kernel;
	uint32_t k;			/* its kernel-tier index */
	struct vg_kprop kp;		/* its row as it was */
	struct vg_ktrans *kt;		/* [KT_ROWS], as they were */
};

bool vg_probe_prop_disabled(const struct vg_probe *p, int prop)
{
	return p->gone && prop >= 0 && prop < p->spec->nprops &&
	       p->gone[prop].gone;
}

void vg_probe_gone_free(struct vg_probe *p)
{
	for (int i = 0; p->gone && i < p->spec->nprops; i++)
		free(p->gone[i].kt);
	free(p->gone);
	free(p->idle_conf);
	p->gone = NULL;
	p->idle_conf = NULL;
}

/* Does a property still in the run react to event ev, or none that was
 * unloaded (an event no property binds is left as the plan made it)? */
static bool event_needed(const struct vg_probe *p, int ev)
{
	bool bound_by_gone = false;

	for (int i = 0; i < p->spec->nprops; i++) {
		const struct vg_property *pr = &p->spec->props[i];

		for (int b = 0; b < pr->nbindings; b++) {
			if (pr->bindings[b].event != ev)
				continue;
			if (!vg_probe_prop_disabled(p, i))
				return true;
			bound_by_gone = true;
		}
	}
	return !bound_by_gone;
}

static int write_conf(struct vg_probe *p, uint32_t ev,
		      const struct vg_ev_conf *c, struct vg_err *e)
{
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.ev_conf), &ev, c, 0))
		return vg_errf(e, "writing the event table: %s", strerror(errno));
	return 0;
}

/* Events made idle or back as the set of properties left says; then the
 * uprobe groups: closed when all their sites are idle, attached again
 * when one is needed again. */
static int update_events(struct vg_probe *p, struct vg_err *e)
{
	int fd = bpf_map__fd(p->skel->maps.ev_conf);

	for (int ev = 0; ev < p->spec->nevents && ev < VG_MAX_EVENTS; ev++) {
		bool idle = !event_needed(p, ev);
		uint32_t k = (uint32_t)ev;
		struct vg_ev_conf c;

		if (idle == p->idle[ev])
			continue;
		if (!idle) {	/* back as it was */
			if (write_conf(p, k, &p->idle_conf[ev], e))
				return -1;
			p->idle[ev] = false;
			continue;
		}
		if (bpf_map_lookup_elem(fd, &k, &c))
			return vg_errf(e, "reading the event table: %s",
				       strerror(errno));
		if (c.flags & (VG_EVF_ENTER | VG_EVF_LEAVE))
			continue;	/* an `outside` depth: still needed */
		p->idle_conf[ev] = c;
		c.flags &= ~(__u32)(VG_EVF_USER | VG_EVF_WAKE | VG_EVF_STACK |
				    VG_EVF_STRS | VG_EVF_HOLD);
		c.ncaps = 0;
		c.nkprops = 0;
		c.arms = 0;
		if (write_conf(p, k, &c, e))
			return -1;
		p->idle[ev] = true;
	}
	for (int g = 0; g < p->ngroups; g++) {
		struct uprobe_group *u = &p->groups[g];
		bool idle = true;

		for (int i = 0; idle && i < u->n; i++)
			idle = u->events[i] < VG_MAX_EVENTS &&
			       p->idle[u->events[i]];
		if (idle == u->idle)
			continue;
		u->idle = idle;
		if (u->off || p->suspended)	/* attached when needed/resumed */
			continue;
		if (idle)
			vg_probe_detach_group(p, g);
		else if (vg_probe_attach_everywhere(p, g, " again", e))
			return -1;
	}
	return 0;
}

static int kernel_rows(struct vg_probe *p, struct probe_gone *g, bool off,
		       struct vg_err *e)
{
	int kfd = bpf_map__fd(p->skel->maps.kprops);
	int tfd = bpf_map__fd(p->skel->maps.ktrans);
	struct vg_kprop kp = g->kp;
	struct vg_ktrans empty;

	memset(&empty, 0, sizeof(empty));
	/* the transitions first: a step meanwhile finds either its old
	 * transitions or none, and with none it changes nothing */
	for (uint32_t r = 0; r < KT_ROWS; r++) {
		uint32_t key = VG_KTRANS_INDEX(g->k, 0, 0) + r;

		if (bpf_map_update_elem(tfd, &key, off ? &empty : &g->kt[r], 0))
			return vg_errf(e, "kernel tier: writing transitions: %s",
				       strerror(errno));
	}
	if (off)
		kp.stop_mask = kp.notify_mask = kp.ckpt_mask = 0;
	if (bpf_map_update_elem(kfd, &g->k, &kp, 0))
		return vg_errf(e, "kernel tier: writing the property table: %s",
			       strerror(errno));
	return 0;
}

int vg_probe_disable_prop(struct vg_probe *p, int prop, struct vg_err *e)
{
	struct probe_gone *g;

	if (prop < 0 || prop >= p->spec->nprops)
		return vg_errf(e, "no property %d", prop);
	if (!p->gone) {
		p->gone = calloc((size_t)p->spec->nprops, sizeof(*p->gone));
		p->idle_conf = calloc(VG_MAX_EVENTS, sizeof(*p->idle_conf));
		if (!p->gone || !p->idle_conf) {
			vg_probe_gone_free(p);
			return vg_errf(e, "out of memory");
		}
	}
	g = &p->gone[prop];
	if (g->gone)
		return 0;
	g->kernel = false;
	for (uint32_t k = 0; k < (uint32_t)p->nkprops; k++)
		if (p->kprop_map[k] == prop) {
			g->kernel = true;
			g->k = k;
		}
	if (g->kernel) {
		int tfd = bpf_map__fd(p->skel->maps.ktrans);

		if (!g->kt && !(g->kt = calloc(KT_ROWS, sizeof(*g->kt))))
			return vg_errf(e, "out of memory");
		if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.kprops),
					&g->k, &g->kp))
			return vg_errf(e, "kernel tier: reading the property table: %s",
				       strerror(errno));
		for (uint32_t r = 0; r < KT_ROWS; r++) {
			uint32_t key = VG_KTRANS_INDEX(g->k, 0, 0) + r;

			if (bpf_map_lookup_elem(tfd, &key, &g->kt[r]))
				return vg_errf(e, "kernel tier: reading transitions: %s",
					       strerror(errno));
		}
		if (kernel_rows(p, g, true, e))
			return -1;
	}
	g->gone = true;
	return update_events(p, e);
}

int vg_probe_enable_prop(struct vg_probe *p, int prop, struct vg_err *e)
{
	struct probe_gone *g;

	if (!vg_probe_prop_disabled(p, prop))
		return 0;
	g = &p->gone[prop];
	/* its events first: its slices find their probes when its
	 * transitions come back */
	g->gone = false;
	if (update_events(p, e))
		return -1;
	return g->kernel ? kernel_rows(p, g, false, e) : 0;
}

int vg_probe_idle_sites(const struct vg_probe *p)
{
	int n = 0;

	for (int g = 0; p->gone && g < p->ngroups; g++)
		for (int i = 0; !p->groups[g].idle && i < p->groups[g].n; i++)
			n += p->groups[g].events[i] < VG_MAX_EVENTS &&
			     p->idle[p->groups[g].events[i]];
	return n;
}
