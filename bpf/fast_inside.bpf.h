/* `outside` depths the in-process tier counts (inproc/event.c): a
 * function it patched gets no uprobe, so its entries and returns reach
 * no BPF map. They are in the agent's per-thread table, in the target's
 * memory; a probe or a watchpoint that must know whether its thread is
 * inside such a function (the allocator's own write to a freed block)
 * reads the thread's entry there, found as the agent finds it
 * (inproc/agent.c, thread_of). Included by vigil.bpf.h only. */
#ifndef VIGIL_FAST_INSIDE_BPF_H
#define VIGIL_FAST_INSIDE_BPF_H

#include "vigil_fast.h"

/* set by user space (user/fast/fast_install.c, through
 * vg_probe_fast_inside): the table's first entry in the target (0: no
 * table: none, or taken out for a checkpoint), its entries - 1, and the
 * depths (bits of struct vg_inside) the agent counts */
__u64 fast_threads VG_SHARED = 0;
__u32 fast_threads_mask VG_SHARED = 0;
__u32 fast_inside VG_SHARED = 0;

static __always_inline bool fast_inside_any(__u32 mask, __u32 tid)
{
	__u32 h = vg_fast_thread_hash(tid);
	__u64 base = fast_threads;

	mask &= fast_inside;
	if (!mask || !base)
		return false;
	for (__u32 i = 0; i < VG_FAST_THREAD_PROBES; i++) {
		__u64 at = base + (__u64)((h + i) & fast_threads_mask) *
			   sizeof(struct vg_fast_thread);
		struct vg_inside in;
		__u32 cur;

		/* a read that fails (the table not there): not inside, as
		 * for a thread the agent has not met */
		if (bpf_probe_read_user(&cur, sizeof(cur), (void *)at) || !cur)
			return false;
		if (cur != tid)
			continue;
		if (bpf_probe_read_user(&in, sizeof(in), (void *)(at +
				__builtin_offsetof(struct vg_fast_thread, in))))
			return false;
		for (int k = 0; k < VG_MAX_INSIDE; k++)
			if ((mask >> k & 1) && in.depth[k])
				return true;
		return false;
	}
	return false;
}

#endif
