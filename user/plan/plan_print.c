/* `vigil lint --binary`: the plan, as the session would install it. */
#include "plan.h"

#include <string.h>

#include "sym/cxxnames.h"
#include "vigil_event.h"

const char *vg_plan_prog_name(const struct vg_plan *p, enum vg_plan_prog k)
{
	switch (k) {
	case VG_PROG_ENTRY:
		return p->kernel_progs ? "vg_entry_k" : "vg_entry";
	case VG_PROG_ENTRY_S:
		return "vg_entry_s";
	case VG_PROG_STASH:
		return "vg_stash";
	case VG_PROG_RETURN:
		return p->kernel_progs ? "vg_return_k" : "vg_return";
	case VG_PROG_CREQ:
		return "vg_creq";
	default:
		return "vg_return_s";
	}
}

static void print_flags(uint32_t f, FILE *out)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ VG_EVF_USER, "user" }, { VG_EVF_WAKE, "wake" },
		{ VG_EVF_STACK, "stack" }, { VG_EVF_HOLD, "hold" },
		{ VG_EVF_ENTER, "enter" }, { VG_EVF_LEAVE, "leave" },
	};
	bool any = false;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & names[i].bit) {
			fprintf(out, "%s%s", any ? "," : " ", names[i].name);
			any = true;
		}
	if (!any)
		fprintf(out, " kernel-only");
}

/* what the probe reads: arguments, return value, memory */
static void print_reads(const struct vg_event *ev, bool ret, FILE *out)
{
	int n = 0;

	fprintf(out, ", reads");
	for (int k = 0; !ret && k < ev->nfields; k++)
		fprintf(out, "%s%s", n++ ? "," : " ",
			ev->argname[k][0] ? ev->argname[k] : "_");
	if (ret && (ev->uses_ret || ev->kind == VG_EV_AFTER))
		fprintf(out, "%sreturn value", n++ ? "," : " ");
	for (int k = 0; k < ev->ncaps; k++)
		fprintf(out, "%s%s", n++ ? "," : " ", ev->caps[k].text);
	if (!n)
		fprintf(out, " nothing");
}

/* An event's entry of the event table, as the probes get it (the kernel
 * tier's fields aside, which its tables add at load); one token per
 * field, the form tests/e2e/plan_installed.sh reads back from the
 * kernel's map: flags=0x9 arg0=reg0/sext4 arg1=stack8/raw8 ret=zext8
 * cap0=s1+16>8/4s slots=3 */
static void print_conf(const struct vg_ev_conf *c, FILE *out)
{
	static const char *const conv[] = { "raw", "sext", "zext", "bool" };

	fprintf(out, "    table: flags=0x%x", c->flags);
	for (int k = 0; (c->flags & VG_EVF_ARGS) && k < VG_MAX_FIELDS; k++) {
		const struct vg_arg_plan *a = &c->arg[k];

		if (a->where == VG_ARG_NONE || !a->size)	/* not read */
			continue;
		if (a->where == VG_ARG_REG)
			fprintf(out, " arg%d=reg%u", k, a->reg);
		else
			fprintf(out, " arg%d=stack%d", k, a->stack_off);
		fprintf(out, "/%s%u", conv[a->conv & 3], a->size);
	}
	if (c->flags & VG_EVF_RETX)
		fprintf(out, " ret=%s%u", conv[c->ret_conv & 3], c->ret_size);
	for (uint32_t k = 0; k < c->ncaps && k < VG_MAX_CAPS; k++) {
		const struct vg_cap_plan *cp = &c->cap[k];

		fprintf(out, " cap%u=s%u", k, cp->src);
		for (int i = 0; i < cp->nsteps && i < VG_CAP_STEPS; i++)
			fprintf(out, "%s%u", i ? ">" : "+", cp->off[i]);
		if (cp->str)
			fprintf(out, "/str%u", cp->str_idx);
		else
			fprintf(out, "/%u%s", cp->size, cp->is_signed ? "s" : "");
	}
	if (c->inside)
		fprintf(out, " inside=%u", c->inside);
	if (c->outside)
		fprintf(out, " outside=0x%x", c->outside);
	if (c->arms)
		fprintf(out, " arms=0x%llx", (unsigned long long)c->arms);
	/* the kernel-tier properties it feeds: k, binding, slice slots */
	for (uint32_t k = 0; k < c->nkprops && k < VG_KMAX_EV_PROPS; k++)
		fprintf(out, " kprop%u=b%u/s%u,%u", c->kprop[k], c->kbind[k],
			c->kslot[k][0], c->kslot[k][1]);
	fprintf(out, " slots=%u\n", c->rec_slots);
}

static void print_watches(const struct vg_plan *p, FILE *out)
{
	const struct vg_spec *s = p->spec;

	for (int i = 0; i < p->ngwatch; i++) {
		const struct vg_plan_gwatch *g = &p->gwatch[i];

		fprintf(out, "  watchpoint %s %s: global %s at 0x%llx (+ load bias), %u bytes, %s\n",
			vg_event_kind_name(s->events[g->event].kind),
			s->events[g->event].name, g->name,
			(unsigned long long)g->link_addr, g->len,
			g->read ? "read/write" : "write");
	}
	for (int i = 0; i < p->nswatch; i++) {
		const struct vg_plan_swatch *w = &p->swatch[i];
		const struct vg_property *pr = &s->props[w->prop];

		for (int k = 0; k < w->nloc; k++) {
			const struct vg_plan_wloc *l = &w->loc[k];

			fprintf(out, "  watchpoint %s %s of %s: per slice, from %s %s",
				vg_event_kind_name(s->events[w->event].kind),
				s->events[w->event].name, pr->name,
				l->base_var ? "variable" : "parameter",
				l->base_var ? pr->vars[l->base].name
					    : pr->params[l->base]);
			for (uint32_t j = 0; j < l->ty.nsteps && j < VG_CAP_STEPS; j++)
				fprintf(out, "%s%u", j ? " then load, +" : " +",
					l->ty.off[j]);
			fprintf(out, ", %u byte%s each", l->ty.elem,
				l->ty.elem == 1 ? "" : "s");
			if (l->count_kind == VG_WCOUNT_CONST)
				fprintf(out, ", %lld of them", (long long)l->count);
			else if (l->count_kind != VG_WCOUNT_ONE)
				fprintf(out, ", as many as %s %s",
					l->count_kind == VG_WCOUNT_VAR ? "variable" : "parameter",
					l->count_kind == VG_WCOUNT_VAR
					? pr->vars[l->count].name
					: pr->params[l->count]);
			if (l->src_event >= 0)
				fprintf(out, " (type from %s's DWARF)",
					s->events[l->src_event].name);
			fprintf(out, "\n");
		}
	}
}

void vg_plan_blind_line(const struct vg_plan *p, char *buf, size_t len)
{
	const struct vg_spec *s = p->spec;
	size_t n;
	int said = 0;

	buf[0] = 0;
	if (!p->no_debug_regs)
		return;
	n = snprintf(buf, len, "this machine's debug registers do not fire%s%s%s",
		     p->no_debug_regs_why ? " (" : "",
		     p->no_debug_regs_why ? p->no_debug_regs_why : "",
		     p->no_debug_regs_why ? ")" : "");
	for (int i = 0; i < p->nprops && n < len; i++) {
		const struct vg_property *pr = &s->props[i];

		for (int b = 0; p->blind[i] && b < pr->nbindings && n < len;
		     b++) {
			const struct vg_event *ev =
				&s->events[pr->bindings[b].event];

			if (vg_event_watches(ev))
				n += snprintf(buf + n, len - n, "%s%s: %s %s",
					      said++ ? ", " : ": these events cannot be seen: ",
					      pr->name,
					      vg_event_kind_name(ev->kind),
					      ev->name);
		}
	}
	if (n < len)
		snprintf(buf + n, len - n, "%s",
			 said ? "; nothing is armed for them, and what they guard ends inconclusive; calls into libc, system calls and faults that touch watched memory are still seen"
			      : "; no property here watches memory");
}

void vg_plan_print(const struct vg_plan *p, FILE *out)
{
	const struct vg_spec *s = p->spec;
	char blind[2048];

	vg_plan_blind_line(p, blind, sizeof(blind));
	if (blind[0])
		fprintf(out, "machine: %s\n", blind);
	fprintf(out, "plan:\n");
	for (int i = 0; i < p->nprops; i++) {
		fprintf(out, "  property %s: %s tier%s", s->props[i].name,
			p->props[i].kernel ? "kernel" : "user",
			p->props[i].inproc_mem
			? " (in-process, with the agent's object map)"
			: p->props[i].bpf_mem
			? " (in the BPF probes, with their object map)" : "");
		if (p->props[i].stop_mask) {
			fprintf(out, ", stops entering");
			for (int st = 0; st < s->props[i].nstates && st < 32; st++)
				if (p->props[i].stop_mask >> st & 1)
					fprintf(out, " %s", s->props[i].states[st].name);
		}
		if (p->props[i].unseen[0])
			fprintf(out, ", inconclusive at best: %s",
				p->props[i].unseen);
		fprintf(out, "\n");
	}
	for (int i = 0; i < p->nevents; i++) {
		fprintf(out, "  event %d %s %s:", i,
			vg_event_kind_name(s->events[i].kind), s->events[i].name);
		print_flags(p->events[i].flags, out);
		if (p->events[i].arms)
			fprintf(out, ", arms 0x%llx",
				(unsigned long long)p->events[i].arms);
		fprintf(out, "\n");
		if (p->nsites || p->ngwatch || p->nswatch)	/* with a binary */
			print_conf(&p->events[i].conf, out);
	}
	for (int i = 0; i < p->nsites; i++) {
		const struct vg_plan_site *u = &p->sites[i];
		const struct vg_event *ev = &s->events[u->event];

		if (u->fast) {	/* patched in the target: no uprobe */
			fprintf(out, "  in-process %s %s: %s+0x%llx, %s (%s)",
				vg_event_kind_name(ev->kind), ev->name, u->path,
				(unsigned long long)u->func,
				u->retprobe ? "at its return" : "at its entry",
				u->fast_by ? u->fast_by : "?");
			if (!u->retprobe && u->patch != u->func)
				fprintf(out, ", patched at +0x%llx, past what its entry probe was moved over",
					(unsigned long long)(u->patch - u->func));
			print_reads(ev, u->retprobe, out);
			fprintf(out, "\n");
			continue;
		}
		fprintf(out, "  %s %s %s: %s+0x%llx, %s", u->retprobe ? "uretprobe" : "uprobe",
			vg_event_kind_name(ev->kind), ev->name, u->path,
			(unsigned long long)u->offset,
			vg_plan_prog_name(p, u->prog));
		if (!u->retprobe && u->offset != u->func)
			fprintf(out, ", moved +%llu",
				(unsigned long long)(u->offset - u->func));
		if (!u->retprobe)
			fprintf(out, ", %s", u->emulated ? "emulated" : "single-stepped");
		if (u->dormant)
			fprintf(out, ", dormant");
		if (u->fast_why[0])
			fprintf(out, ", not in-process: %s", u->fast_why);
		print_reads(ev, u->retprobe, out);
		fprintf(out, "\n");
	}
	fprintf(out, "  tracepoints: sched_process_exit sched_process_fork sched_process_exec%s%s\n",
		p->tp_signal ? " signal_deliver" : "",
		p->tp_syscalls ? " sys_enter" : "");
	if (p->nwatch_globals)
		fprintf(out, "  watchpoints on globals: %d\n", p->nwatch_globals);
	print_watches(p, out);
	if (p->kt.nkprops)
		fprintf(out, "  kernel tables: %d propert%s, %u instructions of code, %d transition groups\n",
			p->kt.nkprops, p->kt.nkprops == 1 ? "y" : "ies",
			p->kt.ncode, p->kt.ntrans);
}


/* what lint --binary says of a memory read: "s: what position 4 points
 * to, 8 bytes, read at the return" */
static void print_capture(FILE *out, const struct vg_event *ev, int k,
			  const struct vg_cap_plan *c)
{
	const struct vg_capture *cap = &ev->caps[k];
	const char *when = ev->kind == VG_EV_AFTER ? "the return" : "the call";

	if (cap->word)
		fprintf(out, "    %s: what position %d points to, ", cap->text,
			cap->src + 1);
	else
		fprintf(out, "    %s: ", cap->text);
	if (cap->is_str)
		fprintf(out, "a C string, read at %s\n", when);
	else
		fprintf(out, "%d bytes%s, read at %s\n", c->size,
			c->is_signed ? " (signed)" : "", when);
}

void vg_plan_describe(const struct vg_plan *plan, FILE *out)
{
	const struct vg_spec *spec = plan->spec;

	/* the plan's entry sites, one per function event (an `after`
	 * event's entry half is where its return probe goes too) */
	for (int i = 0; i < plan->nsites; i++) {
		const struct vg_plan_site *u = &plan->sites[i];
		const struct vg_event *ev = &spec->events[u->event];
		const struct vg_plan_event *pe = &plan->events[u->event];
		bool first = true, entry = false;
		char shown[1024];

		for (int k = 0; k < i; k++)
			first &= plan->sites[k].event != u->event;
		for (int k = 0; k < plan->nsites; k++)
			entry |= plan->sites[k].event == u->event &&
				 !plan->sites[k].retprobe;
		/* one line per function the name stands for (each overload
		 * of a C++ name has its sites); a return probe has its line
		 * only when no entry site says where it is */
		if (!u->retprobe || !entry) {
			fprintf(out, "probe %s %s: %s+0x%llx",
				vg_event_kind_name(ev->kind), ev->name, u->path,
				(unsigned long long)u->func);
			/* what a C++ name resolved to, as gdb shows it */
			vg_demangle_into(u->sym, shown, sizeof(shown));
			if (u->sym[0] && strcmp(shown, ev->name))
				fprintf(out, " (%s)", shown);
			if (u->retprobe && u->offset != u->func)
				/* `after f()` without arguments */
				fprintf(out, ": return probe moved +%llu past %d instruction%s to %s\n",
					(unsigned long long)(u->offset - u->func),
					u->skipped, u->skipped == 1 ? "" : "s",
					u->insn);
			else if (u->retprobe)
				fprintf(out, ": return probe at the entry\n");
			else if (u->skipped)
				fprintf(out, ", entry probe moved +%llu past %d instruction%s to %s",
					(unsigned long long)(u->offset - u->func),
					u->skipped, u->skipped == 1 ? "" : "s",
					u->insn);
			else if (u->emulated)
				fprintf(out, ", on %s", u->insn);
			if (!u->retprobe && u->jmp)	/* probe/jmp_stop.h */
				fprintf(out, " (a stop lands at its target; gdb's file puts it back)");
			if (!u->retprobe)
				fprintf(out, ": %s\n", u->emulated
					? "fast (emulated)"
					: "SLOW (single-stepped, ~10x the cost)");
		}
		if (!first)
			continue;	/* the arguments: once per event */
		if (ev->kind == VG_EV_AFTER && entry)
			fprintf(out, "probe %s %s: return probe %s\n",
				vg_event_kind_name(ev->kind), ev->name,
				u->offset != u->func ? "with the entry probe"
						     : "at the entry");
		for (int k = 0; k < ev->nfields; k++)
			if (ev->argname[k][0])
				fprintf(out, "    %s: %s\n", ev->argname[k],
					pe->what[k]);
		if (ev->kind == VG_EV_AFTER && ev->uses_ret)
			fprintf(out, "    return value: %s\n",
				pe->what[VG_SLOT_RET]);
		for (int k = 0; k < ev->ncaps; k++)
			print_capture(out, ev, k, &pe->conf.cap[k]);
	}
}
