// SPDX-License-Identifier: GPL-2.0
/* The kernel tier's interpreter as a program of its own (kstep.bpf.h;
 * bpf/vigil.bpf.h says which unit holds what). */
#include "vigil.bpf.h"

/* The kernel tier's step of the event vg_entry_k or vg_return_k just
 * handled (their tail call, above) */
SEC("uprobe")
int vg_kstep(struct pt_regs *ctx)
{
	__u32 zero = 0;
	struct kstep_args *a = bpf_map_lookup_elem(&kstep_args, &zero);
	struct vg_ev_conf *conf;
	__u32 event;

	if (!a)
		return 0;
	event = a->event;
	conf = bpf_map_lookup_elem(&ev_conf, &event);
	if (!conf)
		return 0;
	kstep_event(ctx, a->at_entry, conf, event, a->tid, a->slot);
	/* the event's own time is over (bpf/evclock.bpf.h) */
	if (conf->flags & (VG_EVF_USER | VG_EVF_KTIME))
		ev_clock_set(0, 0);
	return 0;
}
