/* One event in the agent (event.c): the arguments, and what
 * bpf/vigil.bpf.h's handle_conf does with them. */
#ifndef VG_INPROC_EVENT_H
#define VG_INPROC_EVENT_H

#include "agent.h"


void vg_read_args(struct vg_fast_shared *sh, const struct vg_fast_regs *r,
		  const struct vg_ev_conf *conf, __u64 *slot);
/* At an entry, what the entry stub must do: 0 go on; else stop the
 * thread before the call, for a kernel-tier stop state (VG_AGENT_STOP:
 * vigil puts it back on the call, fast_rewind.c) or for vigil to act on
 * the record first (VG_AGENT_HELD: a hold, let go as it is, or put back
 * on the call when vigil keeps the process stopped). */
#define VG_AGENT_STOP 1
#define VG_AGENT_HELD 2
int vg_handle_conf(struct vg_fast_shared *sh, struct vg_fast_thread *t,
		    const struct vg_ev_conf *conf, __u32 event, __u32 tid,
		    __u64 *slot, int at_entry, __u64 entry_rsp);

#endif
