/* `vigil lint --binary`: the plan, as the session would install it. */
#include "plan.h"

#include "vigil_event.h"

const char *vg_plan_prog_name(const struct vg_plan *p, enum vg_plan_prog k)
{
	switch (k) {
	case VG_PROG_ENTRY:
		return p->any_kernel ? "vg_entry_k" : "vg_entry";
	case VG_PROG_ENTRY_S:
		return "vg_entry_s";
	case VG_PROG_STASH:
		return "vg_stash";
	case VG_PROG_RETURN:
		return p->any_kernel ? "vg_return_k" : "vg_return";
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

void vg_plan_print(const struct vg_plan *p, FILE *out)
{
	const struct vg_spec *s = p->spec;

	fprintf(out, "plan:\n");
	for (int i = 0; i < p->nprops; i++) {
		fprintf(out, "  property %s: %s tier", s->props[i].name,
			p->props[i].kernel ? "kernel" : "user");
		if (p->props[i].stop_mask) {
			fprintf(out, ", stops entering");
			for (int st = 0; st < s->props[i].nstates && st < 32; st++)
				if (p->props[i].stop_mask >> st & 1)
					fprintf(out, " %s", s->props[i].states[st].name);
		}
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
	}
	for (int i = 0; i < p->nsites; i++) {
		const struct vg_plan_site *u = &p->sites[i];
		const struct vg_event *ev = &s->events[u->event];

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
		print_reads(ev, u->retprobe, out);
		fprintf(out, "\n");
	}
	fprintf(out, "  tracepoints: sched_process_exit sched_process_fork sched_process_exec%s%s\n",
		p->tp_signal ? " signal_deliver" : "",
		p->tp_syscalls ? " sys_enter" : "");
	if (p->nwatch_globals)
		fprintf(out, "  watchpoints on globals: %d\n", p->nwatch_globals);
}
