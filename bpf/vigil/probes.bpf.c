// SPDX-License-Identifier: GPL-2.0
/* The call probes (bpf/vigil.bpf.h says which unit holds what). */
#include "vigil.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* The positional parameters into slots 0..VG_MAX_FIELDS-1: integer
 * register i by default; by the event's plan (VG_EVF_ARGS) when DWARF
 * says a parameter is narrower than 8 bytes, on the stack, or after an
 * SSE parameter that shifts the integer registers. */
static __always_inline void read_args(struct pt_regs *ctx,
				      const struct vg_ev_conf *conf,
				      __u64 *slot)
{
	__u64 reg[VG_NARGS] = {
		PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),
		PT_REGS_PARM4(ctx), PT_REGS_PARM5(ctx), PT_REGS_PARM6(ctx),
	};

	if (!(conf->flags & VG_EVF_ARGS)) {
		__builtin_memcpy(slot, reg, sizeof(reg));
		return;
	}
	for (int i = 0; i < VG_MAX_FIELDS; i++) {
		const struct vg_arg_plan *a = &conf->arg[i];
		__u64 v = 0;

		if (a->where == VG_ARG_REG) {
			v = reg[a->reg < VG_NARGS ? a->reg : 0];
		} else if (a->where == VG_ARG_STACK) {
			if (bpf_probe_read_user(&v, sizeof(v),
						(void *)(PT_REGS_SP(ctx) +
							 a->stack_off))) {
				v = 0;
				count(&counters, VG_CNT_CAPFAULT);
			}
		}
		slot[i] = convert(v, a->conv, a->size);
	}
}

static __always_inline int entry(struct pt_regs *ctx, bool ktier, bool sleep)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 event = (__u32)cookie;
	__u64 stack_slot[VG_NSLOTS] = {}, *slot = stack_slot;
	struct vg_ev_conf *conf;
	struct kstep_args *ka;
	__u32 tid, tgid;

	if (!is_target_in(&tid, &tgid) || others_link(cookie, false, tgid))
		return 0;
	if (rewind_rehit(ctx, cookie, tid))	/* this call was seen */
		return 0;
	conf = bpf_map_lookup_elem(&ev_conf, &event);
	if (!conf)
		return 0;
	if (ktier) {
		if (!(ka = kstep_scratch()))
			return 0;
		slot = ka->m.slot;
	}
	read_args(ctx, conf, slot);
	return handle_conf(ctx, conf, event, tid, slot, ktier, true, sleep,
			   false, 0);
}

/* A call probe's program: fn (entry or ret) in one of its builds. Each
 * comes in two: without the kernel tier, which the verifier checks in
 * milliseconds, and with it (_k), which costs about a second to load.
 * User space loads only the pair the spec needs. */
#define VG_CALL_PROBE(sec, name, fn, ktier, sleep)	\
	SEC(sec)					\
	int name(struct pt_regs *ctx)			\
	{						\
		return fn(ctx, ktier, sleep);		\
	}

VG_CALL_PROBE("uprobe", vg_entry, entry, false, false)
VG_CALL_PROBE("uprobe", vg_entry_k, entry, true, false)
/* Events that read C strings (str(p)): sleepable, so that reading a page
 * the target has not touched yet faults it in instead of failing. Such
 * events feed only user-tier properties, and carry no stack (a stack map
 * is not allowed in a sleepable program). */
VG_CALL_PROBE("uprobe.s", vg_entry_s, entry, false, true)

SEC("uprobe")
int vg_stash(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	struct stash_key k = { .event = (__u32)cookie };
	struct vg_ev_conf *conf;
	struct stash *s;
	__u32 zero = 0, tgid;

	if (!is_target_in(&k.tid, &tgid) || others_link(cookie, false, tgid))
		return 0;
	conf = bpf_map_lookup_elem(&ev_conf, &k.event);
	if (!conf)
		return 0;
	s = bpf_map_lookup_elem(&stashes, &k);
	if (!s) {
		struct stash *init = bpf_map_lookup_elem(&stash_init, &zero);

		if (!init)
			return 0;
		init->depth = 0;
		bpf_map_update_elem(&stashes, &k, init, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&stashes, &k);
		if (!s)
			return 0;
	}
	if (s->depth < VG_STASH_DEPTH) {
		__u32 d = s->depth & (VG_STASH_DEPTH - 1);

		/* placed now: stack arguments are at %rsp at entry */
		read_args(ctx, conf, s->args[d]);
	}
	/* deeper frames keep counting so returns still pair up; their
	 * arguments read as 0 */
	s->depth++;
	return 0;
}

static __always_inline int ret(struct pt_regs *ctx, bool ktier, bool sleep)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	struct stash_key k = { .event = (__u32)cookie };
	__u64 stack_slot[VG_NSLOTS] = {}, *slot = stack_slot;
	struct vg_ev_conf *conf;
	struct kstep_args *ka;
	struct stash *s;
	__u32 tgid;

	if (!is_target_in(&k.tid, &tgid) || others_link(cookie, true, tgid))
		return 0;
	conf = bpf_map_lookup_elem(&ev_conf, &k.event);
	if (!conf)
		return 0;
	if (ktier) {
		if (!(ka = kstep_scratch()))
			return 0;
		slot = ka->m.slot;
	}
	s = bpf_map_lookup_elem(&stashes, &k);
	if (s && s->depth > 0) {
		s->depth--;
		if (s->depth < VG_STASH_DEPTH) {
			__u32 d = s->depth & (VG_STASH_DEPTH - 1);

			__builtin_memcpy(slot, s->args[d],
					 sizeof(s->args[d]));
		}
		if (s->depth == 0)
			bpf_map_delete_elem(&stashes, &k);
	}
	slot[VG_SLOT_RET] = PT_REGS_RC(ctx);
	if (conf->flags & VG_EVF_RETX)
		slot[VG_SLOT_RET] = convert(slot[VG_SLOT_RET], conf->ret_conv,
					    conf->ret_size);
	return handle_conf(ctx, conf, k.event, k.tid, slot, ktier, false,
			   sleep, false, 0);
}

VG_CALL_PROBE("uretprobe", vg_return, ret, false, false)
VG_CALL_PROBE("uretprobe", vg_return_k, ret, true, false)
VG_CALL_PROBE("uretprobe.s", vg_return_s, ret, false, true)
