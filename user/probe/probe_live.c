/* What a live session changes in the loaded probes while they run
 * (user/session/live.c): the kernel tier's stop states, for `vigil break`,
 * so that a monitor breakpoint stops the thread at the event, in the
 * probe, as a `stop` reaction does. */
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
	if (i < 0 || i >= p->nlinks)
		return -1;
	if (!p->sites || !p->sites[i].path)
		return 0;	/* not a uprobe */
	*path = p->sites[i].path;
	*offset = p->sites[i].offset;
	*retprobe = p->sites[i].retprobe;
	return 1;
}
