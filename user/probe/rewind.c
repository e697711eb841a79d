#include "rewind.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "jmp_stop.h"
#include "probe_internal.h"
#include "vigil.skel.h"

/* offsetof(struct pt_regs, ip) on x86-64: r15..di, orig_ax, then ip */
#define PT_REGS_IP_OFF (16 * 8)

bool vg_rewind_supported(void)
{
	static int known = -1;
	/* r2 = ctx->ip; ctx->ip = r2; return 0 */
	const struct bpf_insn insns[] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 2,
		  .src_reg = 1, .off = PT_REGS_IP_OFF },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = 1,
		  .src_reg = 2, .off = PT_REGS_IP_OFF },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	if (known >= 0)
		return known;
	/* the way back to the old stops, should an exact one misbehave */
	if (getenv("VIGIL_NO_REWIND") && *getenv("VIGIL_NO_REWIND")) {
		known = 0;
		return false;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "vg_rewind_probe", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), NULL);
	known = fd >= 0;
	if (fd >= 0)
		close(fd);
	return known;
}

void vg_rewind_setup(struct vg_probe *p)
{
	p->skel->rodata->kstop_rewind = vg_rewind_supported();
}

bool vg_rewind_event_ok(const struct vg_spec *s, const struct vg_plan *plan,
			int event)
{
	const struct vg_event *ev = &s->events[event];

	if (ev->kind != VG_EV_BEFORE)
		return false;
	/* a return probe on the same function: the kernel hijacks the
	 * return address after the handlers, at the sp a rewind moved */
	for (int j = 0; j < s->nevents; j++)
		if (s->events[j].kind == VG_EV_AFTER &&
		    !strcmp(s->events[j].name, ev->name))
			return false;
	/* placed past writes that would not redo (plan/placement.h) */
	for (int j = 0; j < plan->nsites; j++)
		if (plan->sites[j].event == event && plan->sites[j].norewind)
			return false;
	return true;
}

int vg_rewind_config(struct vg_probe *p, const struct vg_probe_opts *o)
{
	const struct vg_spec *s = p->spec;
	int fd = bpf_map__fd(p->skel->maps.rewind_ok);

	if (!p->skel->rodata->kstop_rewind || !o->plan->kernel)
		return 0;
	for (int prop = 0; prop < s->nprops; prop++) {
		const struct vg_property *pr = &s->props[prop];

		if (!o->plan->kernel[prop])
			continue;
		for (int b = 0; b < pr->nbindings; b++) {
			uint32_t i = (uint32_t)pr->bindings[b].event;
			uint8_t ok = vg_rewind_event_ok(s, o->plan, (int)i);

			if (ok && bpf_map_update_elem(fd, &i, &ok, 0))
				return -1;
		}
	}
	return 0;
}

bool vg_probe_rewound(const struct vg_probe *p, pid_t tid, uint64_t *bp)
{
	struct {
		uint64_t bp, sp, call, seen[8];
	} r;
	uint32_t key = (uint32_t)tid;

	if (!p || !p->skel->rodata->kstop_rewind ||
	    bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.rewound), &key, &r))
		return false;
	*bp = r.bp;
	return true;
}

const char *vg_rewind_stop_note(const struct vg_probe *p,
				const struct vg_spec *spec, int event,
				unsigned flags, char *buf, size_t len)
{
	const struct vg_event *ev;
	int skipped = 0;
	bool jmp = false;

	if (!(flags & VG_RF_STOPPED) || (flags & VG_RF_REWOUND) || event < 0 ||
	    event >= spec->nevents)
		return NULL;
	ev = &spec->events[event];
	if (ev->kind != VG_EV_BEFORE)
		return NULL;
	if (flags & VG_RF_INPROC) {	/* the in-process tier's stop */
		if (vg_jmp_stop_inproc_moved(p, event))
			snprintf(buf, len, "stopped at the call of %s, after its first instructions, which only set registers (the in-process tier, patched past them: %s has stored nothing)",
				 ev->name, ev->name);
		else
			snprintf(buf, len, "stopped at the call of %s, before its first instruction (the in-process tier: nothing of %s has run)",
				 ev->name, ev->name);
		return buf;
	}
	if (!vg_jmp_stop_event(p, event, &skipped, &jmp))
		skipped = 0;
	if (jmp)
		snprintf(buf, len, "stopped at %s's jmp (a tail call)%s: the stop took effect at the jmp's target (in the callee); the gdb command file vigil writes for a target it leaves stopped puts the thread back on the jmp",
			 ev->name, skipped == 1 ? ", after its first instruction, which stores nothing"
				 : skipped ? ", after the instructions before it, which store nothing" : "");
	else if (skipped)	/* placed on the first one the kernel emulates */
		snprintf(buf, len, "stopped after %s's first %d instructions (its probe is on instruction %d, which the kernel emulates; the ones before it store nothing)%s",
			 ev->name, skipped + 1, skipped + 1,
			 vg_rewind_supported() ? ", not sent back to the call (through a register, a jump, or it has a return probe)"
					       : ", not sent back to the call (this kernel does not let a uprobe program move the thread)");
	else if (!vg_rewind_supported())
		snprintf(buf, len, "stopped after %s's first instruction (this kernel does not let a uprobe program move the thread back to the call, or VIGIL_NO_REWIND is set)",
			 ev->name);
	else
		snprintf(buf, len, "stopped after %s's first instruction (the call into it is not one vigil can step again: through a register, a jump, or %s has a return probe)",
			 ev->name, ev->name);
	return buf;
}
