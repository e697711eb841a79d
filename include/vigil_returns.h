/* Pending return addresses of a thread: what a uretprobe put in place of
 * a return address on the stack (bpf/returns.bpf.h reads them from the
 * kernel; gdb's extension and the evidence stacks use them). Shared by
 * the BPF programs and user space. */
#ifndef VIGIL_RETURNS_H
#define VIGIL_RETURNS_H

#ifndef __bpf__
#include <linux/types.h>	/* (vmlinux.h has them in BPF) */
#endif

/* return instances read per thread: deeper nesting of functions with
 * `after` probes is rare, and the kernel caps its own list at 64 */
#define VG_MAX_PENDING_RETS 64

/* one pending return, as the vg_returns iterator writes it */
struct vg_pending_ret {
	__u32 tid;
	__u32 chained;	/* a tail call: shares its slot with the next one */
	__u64 slot;	/* the stack address holding the trampoline's address */
	__u64 ret;	/* the real return address */
};

#endif
