/* What --leak-check adds before the run (leaks.h): the property of
 * vigil's own that holds the target at _exit, abort, raise/kill and at
 * valgrind's client requests, and its part of the plan (the holds, the
 * allocation stacks the loss records need); which properties' slices are
 * heap blocks; the kinds of --show-leak-kinds. */
#include "leaks.h"

#include <stdlib.h>
#include <string.h>

#include "leakscan/scan.h"
#include "plan/plan.h"

static const char hold_spec[] =
	"property " VG_LEAK_HOLD_PROP " \"vigil's leak check: the program is held at _exit while its memory is scanned\"\n"
	"state running accepting {\n"
	"  before exit(code) -> running\n"
	"  before _exit(code) -> running\n"
	"  before abort() -> running\n"
	"  before __assert_fail(assertion) -> running\n"
	"  before raise(sig) -> running\n"
	"  before kill(pid, sig) -> running\n"
	"  before " VG_LEAK_CREQ_EVENT "(request, arg1, arg2, arg3, arg4, arg5) -> running\n"
	"}\n";

bool vg_leak_block_prop(const struct vg_property *p, int *size_var)
{
	size_t n = strlen(p->name);

	if (strcmp(p->name, "leak") &&
	    (n < 5 || strcmp(p->name + n - 5, "_leak")))
		return false;
	if (p->nparams != 1 || p->param_types[0] != VG_TYPE_PTR)
		return false;
	for (int i = 0; i < p->nvars; i++)
		if (!strcmp(p->vars[i].name, "size")) {
			*size_var = i;
			return true;
		}
	return false;
}

static bool any_block_prop(const struct vg_spec *spec)
{
	int v;

	for (int i = 0; i < spec->nprops; i++)
		if (vg_leak_block_prop(&spec->props[i], &v))
			return true;
	return false;
}

int vg_leaks_prepare(struct vg_spec *spec, bool leak_check,
		     struct vg_err *e)
{
	if (!leak_check)
		return 0;
	if (!any_block_prop(spec))
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "--leak-check needs a property whose slices are heap blocks (one named leak with a pointer slice and a `size` variable): add specs/lib/leak.vigil");
	if (vg_spec_load_string(spec, "<--leak-check>", hold_spec, e))
		return -1;
	/* its client requests are probed where the code makes them (plan/
	 * plan_creq.c), not at a function of that name */
	for (int i = 0; i < spec->nevents; i++)
		if (spec->events[i].kind == VG_EV_BEFORE &&
		    !strcmp(spec->events[i].name, VG_LEAK_CREQ_EVENT)) {
			spec->events[i].client_request = true;
			spec->events[i].creq_for |= VG_CREQ_FOR_LEAKS;
		}
	return 0;
}

int vg_leaks_plan(const struct vg_spec *spec, struct vg_plan_leaks *out,
		  struct vg_err *e)
{
	size_t ne = (size_t)spec->nevents + 1;

	out->hold_prop = -1;
	out->holds = calloc(ne, sizeof(bool));
	out->stacks = calloc(ne, sizeof(bool));
	if (!out->holds || !out->stacks) {
		vg_leaks_plan_free(out);
		return vg_errf(e, "out of memory");
	}
	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *pr = &spec->props[i];
		int v;

		/* the hold at _exit (and abort); exit's caller (its return
		 * address is read with the stack) marks where exit's frames
		 * end */
		if (!strcmp(pr->name, VG_LEAK_HOLD_PROP)) {
			out->hold_prop = i;
			for (int b = 0; b < pr->nbindings; b++) {
				int ev = pr->bindings[b].event;

				/* (a client request holds the process in
				 * its probe, for the leak requests only) */
				if (spec->events[ev].client_request)
					continue;
				if (vg_leak_hold_kind(spec->events[ev].name))
					out->holds[ev] = true;
				else
					out->stacks[ev] = true;
			}
		}
		/* the allocations take their stacks: the loss records are
		 * grouped by them */
		if (!vg_leak_block_prop(pr, &v))
			continue;
		for (int t = 0; t < pr->ntrans; t++) {
			int ev = pr->trans[t].event;
			enum vg_event_kind k = spec->events[ev].kind;

			if (pr->states[pr->trans[t].to].kind ==
			    VG_STATE_NONACCEPTING &&
			    (k == VG_EV_BEFORE || k == VG_EV_AFTER))
				out->stacks[ev] = true;
		}
	}
	return 0;
}

void vg_leaks_plan_free(struct vg_plan_leaks *pl)
{
	free(pl->holds);
	free(pl->stacks);
	pl->holds = pl->stacks = NULL;
}

int vg_leak_kinds_parse(const char *list, unsigned *out)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	*out = 0;
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		int k = 0;

		if (!strcmp(t, "all")) {
			*out = (1u << VG_LEAK_NKINDS) - 1;
			continue;
		}
		while (k < VG_LEAK_NKINDS && strcmp(t, vg_leak_kind_name(k)))
			k++;
		if (k == VG_LEAK_NKINDS)
			return -1;
		*out |= 1u << k;
	}
	return *out ? 0 : -1;
}

