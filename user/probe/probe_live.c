/* What a live session changes in the loaded probes while they run
 * (user/live/live_breaks.c): the kernel tier's stop states, for `vigil break`,
 * so that a monitor breakpoint stops the thread at the event, in the
 * probe, as a `stop` reaction does; and the user tier's holds, which do
 * the same for its stops. */
#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>

#include "probe_internal.h"
#include "vigil.skel.h"

int vg_probe_set_stop_mask(struct vg_probe *p, int prop, uint32_t mask,
			   struct vg_err *e)
{
	int fd = bpf_map__fd(p->skel->maps.kprops);

	for (uint32_t k = 0; k < (uint32_t)p->nkprops; k++) {
		struct vg_kprop kp;

		if (p->kprop_map[k] != prop)
			continue;
		/* the whole entry is written back: every other field is as
		 * it was, and a probe reading it meanwhile sees the old mask
		 * or the new one */
		if (bpf_map_lookup_elem(fd, &k, &kp))
			return vg_errf(e, "kernel tier: reading the property table: %s",
				       strerror(errno));
		kp.stop_mask = mask;
		if (bpf_map_update_elem(fd, &k, &kp, 0))
			return vg_errf(e, "kernel tier: writing the property table: %s",
				       strerror(errno));
		return 0;
	}
	return vg_errf(e, "property %d is not in the kernel tier", prop);
}

int vg_probe_site(const struct vg_probe *p, int i, const char **path,
		  uint64_t *offset, bool *retprobe)
{
	/* the uprobes are kept by program and file (probe_links.c): i
	 * counts through every group's sites in turn */
	for (int g = 0; g < p->ngroups; g++) {
		const struct uprobe_group *u = &p->groups[g];

		if (i < 0)
			return -1;
		if (i < u->n) {
			if (u->idle)	/* closed by an unload: traps no more */
				return 0;
			*path = u->path;
			*offset = u->offsets[i];
			*retprobe = u->retprobe;
			return 1;
		}
		i -= u->n;
	}
	return -1;
}

int vg_probe_set_event_hold(struct vg_probe *p, int event, bool on,
			    struct vg_err *e)
{
	int fd = bpf_map__fd(p->skel->maps.ev_conf);
	__u32 k = (__u32)event;
	struct vg_ev_conf c;

	if (event < 0 || event >= VG_MAX_EVENTS)
		return vg_errf(e, "event %d out of range", event);
	if (bpf_map_lookup_elem(fd, &k, &c))
		return vg_errf(e, "reading the event table: %s", strerror(errno));
	if (on)
		c.flags |= VG_EVF_HOLD | VG_EVF_WAKE;
	else if (!p->plan_hold[event])
		c.flags &= ~VG_EVF_HOLD;
	/* written whole, as the stop mask is: a probe sees the old flags or
	 * the new ones */
	if (bpf_map_update_elem(fd, &k, &c, 0))
		return vg_errf(e, "writing the event table: %s", strerror(errno));
	return 0;
}
