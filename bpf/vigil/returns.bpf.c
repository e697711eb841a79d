// SPDX-License-Identifier: GPL-2.0
/* The pending returns of the target's threads, read from the kernel's
 * utask->return_instances for gdb's extension (bpf/returns.bpf.h says
 * why); loaded only when the plan has return probes. */
#include "vigil.bpf.h"

/* set by user space before each read of the iterator */
__u32 returns_tgid = 0;

SEC("iter/task")
int vg_returns(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct return_instance *ri;
	struct vg_pending_ret r = {};

	if (!t || t->tgid != returns_tgid ||
	    !bpf_core_field_exists(struct uprobe_task, return_instances))
		return 0;
	r.tid = t->pid;
	ri = BPF_CORE_READ(t, utask, return_instances);
	for (int i = 0; i < VG_MAX_PENDING_RETS && ri; i++) {
		r.slot = BPF_CORE_READ(ri, stack);
		r.ret = BPF_CORE_READ(ri, orig_ret_vaddr);
		r.chained = BPF_CORE_READ(ri, chained);
		bpf_seq_write(seq, &r, sizeof(r));
		ri = BPF_CORE_READ(ri, next);
	}
	return 0;
}
