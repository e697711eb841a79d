/* SPDX-License-Identifier: GPL-2.0 */
/* The real return addresses of functions with a pending uretprobe.
 *
 * When a function with an `after` probe is entered, the kernel runs every
 * entry handler of the uprobe first, then (prepare_uretprobe) replaces the
 * return address on the stack with its trampoline's ([uprobes] page) and
 * keeps the real one in the thread's utask->return_instances, newest
 * first, with the stack address it replaced (ri->stack). Nothing in user
 * memory says where such a function returns to; this reads it from the
 * kernel's own list, so no probe pays anything for it:
 *
 *   vg_returns      task iterator (bpf/vigil/returns.bpf.c): every pending
 *                   return of the threads of returns_tgid, for gdb's
 *                   extension (`returns` on the control socket,
 *                   scripts/gdb/vigil_returns.py)
 *   real_caller()   at an entry probe, the caller when the return address
 *                   the probe read is the trampoline's (a tail call from a
 *                   function with a pending return)
 *
 * The kernel already mends its own frame-pointer walks (perf's
 * fixup_uretprobe_trampoline_entries, since 6.11): the stacks map needs
 * nothing more. real_caller() is included from vigil.bpf.h; the iterator
 * is a unit of its own, linked in once.
 */
#include "vigil_returns.h"

/* The return address read at sp on entry to a function, made real: when
 * it is the uretprobe trampoline's, the pending return that replaced the
 * word at sp. Costs two reads when the thread has no pending return. */
static __always_inline __u64 real_caller(__u64 sp, __u64 ret)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task_btf();
	struct return_instance *ri;

	if (!bpf_core_field_exists(struct uprobe_task, return_instances))
		return ret;
	ri = BPF_CORE_READ(t, utask, return_instances);
	if (!ri || ret != BPF_CORE_READ(t, mm, uprobes_state.xol_area, vaddr))
		return ret;
	for (int i = 0; i < 8 && ri; i++) {
		if (BPF_CORE_READ(ri, stack) == sp)
			return BPF_CORE_READ(ri, orig_ret_vaddr);
		ri = BPF_CORE_READ(ri, next);
	}
	return ret;
}
