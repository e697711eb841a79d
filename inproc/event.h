/* One event in the agent (event.c): the arguments, and what
 * bpf/vigil.bpf.h's handle_conf does with them. */
#ifndef VG_INPROC_EVENT_H
#define VG_INPROC_EVENT_H

#include "agent.h"

/* The bits of an argument or return value as its C type makes them
 * (bpf/vigil.bpf.h's convert) */
static inline __u64 vg_convert(__u64 v, __u8 conv, __u8 size)
{
	__u32 sh = size >= 1 && size < 8 ? 64 - 8 * size : 0;

	if (conv == VG_CONV_SEXT)
		return (__u64)((__s64)(v << sh) >> sh);
	if (conv == VG_CONV_ZEXT)
		return (v << sh) >> sh;
	if (conv == VG_CONV_BOOL)
		return (v & 0xff) != 0;
	return v;
}

void vg_read_args(struct vg_fast_shared *sh, const struct vg_fast_regs *r,
		  const struct vg_ev_conf *conf, __u64 *slot);
int vg_handle_conf(struct vg_fast_shared *sh, struct vg_fast_thread *t,
		    const struct vg_ev_conf *conf, __u32 event, __u32 tid,
		    __u64 *slot, int at_entry, __u64 entry_rsp);

#endif
