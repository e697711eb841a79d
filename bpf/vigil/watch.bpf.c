// SPDX-License-Identifier: GPL-2.0
/* Hardware watchpoints: `write x`, `read x`, `access x` (bpf/vigil.bpf.h
 * says which unit holds what). */
#include "vigil.bpf.h"

/* The breakpoints by address: the perf events that threads created later
 * inherit keep the program but not its BPF cookie, and one program serves
 * every breakpoint, globals and those armed per slice alike. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, struct vg_wp_conf);
} watch_ev SEC(".maps");

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
	if (bpf_probe_read_user(&v, n, (void *)addr))
		count(&counters, VG_CNT_CAPFAULT);
	slot[VG_WSLOT_VALUE] = convert(v, w->conv, (__u8)n);
	slot[VG_WSLOT_ADDR] = addr;
	/* which code made the access: a run that goes on past a use after
	 * free reports each new one (user/session/watchset_repeat.c) */
	if (conf->flags & VG_EVF_STACK)
		slot[VG_SLOT_STACK] = (__u64)stack_id(ctx, tid);
	return handle_conf(NULL, conf, event, tid, slot, false, false, false,
			   w->flags & VG_WPF_STOP);
}
