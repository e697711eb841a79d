/* Until inproc/kstep.c (the kernel-tier step, ported from
 * bpf/kstep.bpf.h) is in, a weak step that does nothing: an event with
 * kernel-tier properties is recorded for the user tier only. The real one,
 * linked into the same blob, takes its place. */
#include "agent.h"

__attribute__((weak)) VG_HIDDEN int
vg_inproc_kstep(struct vg_inproc_env *env, const struct vg_ev_conf *conf,
		__u32 event, __u64 *slot, int at_entry)
{
	return 0;
}
