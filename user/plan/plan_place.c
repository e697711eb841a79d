/* The plan's placement pass (plan.h): where on each function its probes
 * go (plan/placement.h), from the registers the probes there really
 * read. It runs after the reads pass, which says from DWARF where each
 * argument is: a probe that reads only %rdi lets placement skip writes to
 * %rsi (pthread_mutex_unlock's mov $1,%esi; inflateInit_'s movs), where
 * counting two registers per argument (a 16-byte struct, which the reads
 * pass refuses anyway) kept them single-stepped. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "placement.h"

/* x86 register numbers of the integer argument registers, in order */
static const int arg_reg[VG_NARGS] = { 7, 6, 2, 1, 8, 9 };

/* The argument registers event ev's probe reads at its function's entry:
 * the positions its spec names, where the reads pass put them (a
 * narrower type or an SSE argument before it moves them; the stack needs
 * none). Buffers checked against watched blocks and memory reads: every
 * argument register, to be sure. */
static unsigned event_reads(const struct vg_plan *p, int ev)
{
	const struct vg_event *x = &p->spec->events[ev];
	const struct vg_ev_conf *c = &p->events[ev].conf;
	unsigned keep = 0;

	if (x->nrng || x->access_for || x->ncaps)
		return VG_PLACE_ARG_REGS;
	for (int i = 0; i < x->nfields && i < VG_MAX_FIELDS; i++) {
		if (!(c->flags & VG_EVF_ARGS)) {
			keep |= i < VG_NARGS ? 1u << arg_reg[i] : 0;
			continue;
		}
		if (c->arg[i].where == VG_ARG_REG)
			keep |= 1u << arg_reg[c->arg[i].reg < VG_NARGS
						  ? c->arg[i].reg : 0];
	}
	return keep;
}

/* ... of every probe on the function of event ev: its before and after
 * events then share one placement, so one trap */
static unsigned keep_regs(const struct vg_plan *p, int ev)
{
	const struct vg_spec *s = p->spec;
	unsigned keep = 0;

	for (int i = 0; i < s->nevents; i++) {
		const struct vg_event *x = &s->events[i];

		if ((x->kind != VG_EV_BEFORE && x->kind != VG_EV_AFTER) ||
		    strcmp(x->name, s->events[ev].name))
			continue;
		keep |= event_reads(p, i);
	}
	return keep;
}

void vg_plan_pass_place(struct vg_plan *p)
{
	for (int i = 0; i < p->nsites; i++) {
		struct vg_plan_site *s = &p->sites[i];
		struct vg_placement pl = { .offset = s->func };

		/* a probe goes on the first instruction the kernel emulates
		 * when the ones before it cannot matter. A return probe
		 * too: they change no stack, so the return address is
		 * still at %rsp, and it shares the entry probes' trap.
		 * VIGIL_NO_PLACEMENT=1 keeps every probe at the entry, for
		 * the benchmark that measures the gain. */
		if (!getenv("VIGIL_NO_PLACEMENT"))
			vg_place_entry(s->path, s->func, s->size,
				       keep_regs(p, s->event), &pl);
		s->offset = pl.offset;
		s->emulated = pl.emulated;
		s->skipped = pl.skipped;
		s->norewind = pl.norewind;
		s->jmp = pl.jmp;
		s->jmp_to = pl.jmp_to;
		snprintf(s->insn, sizeof(s->insn), "%s", pl.insn);
	}
}
