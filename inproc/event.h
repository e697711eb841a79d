/* One event in the agent (event.c): the arguments, and what
 * bpf/vigil.bpf.h's handle_conf does with them. */
#ifndef VG_INPROC_EVENT_H
#define VG_INPROC_EVENT_H

#include "agent.h"


void vg_read_args(struct vg_fast_shared *sh, const struct vg_fast_regs *r,
		  const struct vg_ev_conf *conf, __u64 *slot);
/* At an entry, what the entry stub must do: 0 go on; VG_AGENT_STOP stop
 * the thread before the call, for a kernel-tier stop state (vigil puts
 * it back on the call, fast_rewind.c). */
#define VG_AGENT_STOP 1
int vg_handle_conf(struct vg_fast_shared *sh, struct vg_fast_thread *t,
		    const struct vg_ev_conf *conf, __u32 event, __u32 tid,
		    __u64 *slot, int at_entry, __u64 entry_rsp);

#endif
