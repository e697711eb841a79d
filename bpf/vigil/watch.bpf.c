// SPDX-License-Identifier: GPL-2.0
/* Hardware watchpoints: `write x`, `read x`, `access x` (bpf/vigil.bpf.h
 * says which unit holds what). */
#include "vigil.bpf.h"

/* the machine's debug registers report old hits again (VG_REGS_STALE,
 * user/probe/debugregs.h): set by user space before the load */
const volatile bool stale_dr6 = false;

/* Is the thread at an instruction of the uprobes' out-of-line page? A
 * uprobe single-steps there the instruction it replaced, and QEMU's TCG
 * (its helper_single_step: check_hw_breakpoints(env, true)) sets DR6's
 * bit of every watchpoint that hit earlier again at that step's debug
 * exception, so the kernel reports the old hit as a new one, at the
 * step. On real hardware a hit there is real (that probed instruction
 * touched the bytes), and nothing reports an old one: only where the
 * machine was found to (stale_dr6) does such a hit go up marked
 * (VG_RF_STEPHIT), its slice then ending inconclusive. */
static __always_inline bool at_uprobe_step(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 xol = BPF_CORE_READ(t, mm, uprobes_state.xol_area, vaddr);
	__u64 ip = ctx->regs.ip;

	return xol && ip >= xol && ip - xol < 4096;
}

/* `write x`, `read x`, `access x`: the hardware breakpoint on x fired, in
 * the thread that accessed it, after the access (x86 data breakpoints
 * trap after the instruction), so the value read is the one written. */
SEC("perf_event")
int vg_watch(struct bpf_perf_event_data *ctx)
{
	__u64 slot[VG_NSLOTS] = {}, v = 0, addr = ctx->addr;
	struct vg_wp_conf *w;
	struct vg_ev_conf *conf;
	__u32 event, tid, n;
	__u16 mark = 0;
	bool released;

	if (!is_target(&tid))
		return 0;
	w = bpf_map_lookup_elem(&watch_ev, &addr);
	if (!w)
		return 0;	/* being disarmed */
	if (inside_any(w->outside, tid))
		return 0;	/* the allocator's own write */
	event = w->event;
	conf = bpf_map_lookup_elem(&ev_conf, &event);
	n = w->len;
	if (!conf || n < 1 || n > 8)
		return 0;
	/* A block handed out again is the program's, and its hit stops
	 * nothing (bpf/released.bpf.h); neither is its value read: the read
	 * would hit the breakpoint again, in the kernel, whose handling of
	 * that reads and writes DR7 (exc_debug_kernel), each a trap to the
	 * hypervisor in a guest: 85 us a hit on the machines we measured,
	 * against 0.5 us for all the rest of this program. */
	released = watch_released(w->base);
	if (released)
		mark = VG_RF_NOVALUE;
	else if (bpf_probe_read_user(&v, n, (void *)addr))
		count(&counters, VG_CNT_CAPFAULT);
	slot[VG_WSLOT_VALUE] = convert(v, w->conv, (__u8)n);
	slot[VG_WSLOT_ADDR] = addr;
	/* which code made the access: a run that goes on past a use after
	 * free reports each new one (user/watchset/watchset_repeat.c) */
	if (conf->flags & VG_EVF_STACK)
		slot[VG_SLOT_STACK] = (__u64)stack_id(ctx, tid);
	if (stale_dr6 && at_uprobe_step(ctx))	/* no stop for what may
						 * not be */
		return handle_conf(NULL, conf, event, tid, slot, false, false,
				   false, false, mark | VG_RF_STEPHIT);
	return handle_conf(NULL, conf, event, tid, slot, false, false, false,
			   (w->flags & VG_WPF_STOP) && !released, mark);
}
