/* The calls no probe can take on this machine (plan.h,
 * vg_plan_pass_unseen).
 *
 * A function that starts with a VEX or EVEX instruction (glibc's memset
 * and strchr on an AVX-512 machine) gets no uprobe: the kernel's
 * out-of-line single-step of that instruction made programs compute
 * wrong results (plan.c, vector_insn_at). The in-process tier never
 * single-steps it (its patch moves the instruction, copied as is, to a
 * trampoline), so only a site that tier did not take is left without a
 * probe. Library specs must load on every machine: the rest of the spec
 * loads, the event is never seen, and what its properties conclude
 * cannot be `accepting` (the session marks them inconclusive from the
 * start, as for lost records), with the function, its file and the
 * reason said before the run and in the summary. A violation such a
 * property reports is in doubt only when an unseen call could have led
 * its slice elsewhere than to a violation (unseen_doubts).
 *
 * An event that counts an `outside` depth is refused instead: uncounted,
 * the depth would let the calls the clause leaves out be checked, and a
 * false violation is worse than no verdict. */
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

/* why the site has no probe: the refusal and the in-process tier's reason
 * (off: --no-fast; else the site's fast_why, or that nobody asked) */
static void why_not(const struct vg_plan_site *u, const char *off,
		    char *buf, size_t len)
{
	if (!off && !u->fast_why[0])
		off = "not asked for: --fast NAME, or `fast NAME` in the spec";
	snprintf(buf, len, "it starts with an AVX or AVX-512 (VEX/EVEX) instruction: a uprobe on it made the program compute wrong results on this kernel (its out-of-line copy), and the in-process tier did not take it (%s)",
		 off ? off : u->fast_why);
}

/* Drop site k */
static void drop(struct vg_plan *p, int k)
{
	memmove(&p->sites[k], &p->sites[k + 1],
		(size_t)(p->nsites - k - 1) * sizeof(*p->sites));
	p->nsites--;
}

/* u's event cannot be seen there: each property that takes it says so,
 * and the warning names them (given once per event) */
static void unseen(struct vg_plan *p, const struct vg_plan_site *u,
		   const char *why, FILE *warn)
{
	const struct vg_spec *s = p->spec;
	const struct vg_event *ev = &s->events[u->event];
	const char *file = strrchr(u->path, '/');
	char names[256] = "";
	size_t n = 0;

	file = file ? file + 1 : u->path;
	for (int k = 0; k < s->nprops; k++) {
		struct vg_plan_prop *pp = &p->props[k];

		if (!vg_prop_binds(s, k, u->event))
			continue;
		if (n < sizeof(names))
			n += snprintf(names + n, sizeof(names) - n, "%s%s",
				      n ? ", " : "", s->props[k].name);
		for (int t = 0; t < s->props[k].ntrans; t++) {
			const struct vg_transition *tr = &s->props[k].trans[t];

			if (tr->event == u->event &&
			    s->props[k].states[tr->to].kind != VG_STATE_VIOLATION)
				pp->unseen_doubts = true;
		}
		if (!pp->unseen[0])
			snprintf(pp->unseen, sizeof(pp->unseen),
				 "%s %.64s in %.200s cannot be probed on this machine",
				 vg_event_kind_name(ev->kind), ev->name, file);
	}
	p->nwarnings++;
	if (warn)
		fprintf(warn, "vigil: %s:%d:%d: warning: %s %s in %s is not probed: %s; loaded without it: %s cannot see it, and ends inconclusive, never accepting\n",
			ev->loc.file, ev->loc.line, ev->loc.col,
			vg_event_kind_name(ev->kind), ev->name, u->path, why,
			names[0] ? names : "no property");
}

int vg_plan_pass_unseen(struct vg_plan *p, const struct vg_plan_opts *o,
			struct vg_err *e)
{
	bool *told = calloc((size_t)p->nevents + 1, sizeof(bool));
	char why[512];
	int rc = 0;

	if (!told)
		return vg_errf(e, "out of memory");
	for (int k = 0; k < p->nsites && !rc; k++) {
		const struct vg_plan_site *u = &p->sites[k];
		const struct vg_event *ev = &p->spec->events[u->event];

		if (!u->vector_entry || u->fast)
			continue;
		why_not(u, o->fast_off ? "--no-fast" : NULL, why, sizeof(why));
		if (ev->marks_inside) {
			rc = vg_errf_code(e, VG_EXIT_USAGE,
					  "%.256s:%d:%d: %.256s in %.1024s is not probed: %s; it counts an `outside` depth, which uncounted would let the calls the clause leaves out be checked: probe its caller instead",
					  ev->loc.file, ev->loc.line,
					  ev->loc.col, ev->name, u->path, why);
			break;
		}
		/* said once for the event: its entry and return sites */
		if (!told[u->event])
			unseen(p, u, why, o->warn);
		told[u->event] = true;
		drop(p, k--);
	}
	free(told);
	return rc;
}
