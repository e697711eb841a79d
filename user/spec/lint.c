/* Warnings about specs that load but cannot mean what their author meant:
 * states nothing enters or nothing reaches, and transitions that never
 * fire. It reads only the compiled spec, so it sees what the monitor will
 * run (a guard counts as constant when its bytecode reads nothing). */
#include "spec_internal.h"

#include <stdlib.h>

#define VG_LINT_REGS 4		/* x86 debug registers per thread */

/* 1: always holds, 0: never holds, -1: depends on the event */
static int guard_value(const struct vg_property *p, struct vg_code_ref g)
{
	int64_t v;

	if (!g.len)
		return 1;
	if (vg_code_eval_const(p->code + g.off, g.len, &v))
		return -1;
	return v != 0;
}

static void warn(FILE *out, struct vg_loc loc, const char *what)
{
	if (out)
		fprintf(out, "%s:%d:%d: warning: %s\n", loc.file, loc.line,
			loc.col, what);
}

/* Transitions that can never fire: a constant-false guard, or an earlier
 * transition of the same state and event that always fires first.
 * why[i]: -1 live, -2 guard always false, j shadowed by transition j. */
static void dead_transitions(const struct vg_property *p, int *why)
{
	for (int i = 0; i < p->ntrans; i++) {
		const struct vg_transition *t = &p->trans[i];

		why[i] = -1;
		for (int j = 0; j < i && why[i] == -1; j++)
			if (p->trans[j].from == t->from &&
			    p->trans[j].event == t->event &&
			    guard_value(p, p->trans[j].guard) == 1)
				why[i] = j;
		if (why[i] == -1 && guard_value(p, t->guard) == 0)
			why[i] = -2;
	}
}

/* A state is unused when no transition names it; unreachable when only
 * transitions that cannot fire, or only other unreachable states, lead
 * to it. */
static int lint_states(const struct vg_property *p, const int *why, FILE *out)
{
	char msg[512];
	bool *entered = calloc((size_t)p->nstates + 1, sizeof(bool));
	bool *reached = calloc((size_t)p->nstates + 1, sizeof(bool));
	int *queue = calloc((size_t)p->nstates + 1, sizeof(int));
	int n = 0, head = 0, tail = 0;

	if (!entered || !reached || !queue)
		goto out;
	for (int i = 0; i < p->ntrans; i++)
		if (p->trans[i].from != p->trans[i].to)
			entered[p->trans[i].to] = true;
	for (int i = 0; i < p->nstates; i++)	/* timeouts enter too */
		if (p->states[i].timed && p->states[i].timeout_to != i)
			entered[p->states[i].timeout_to] = true;
	reached[0] = true;
	queue[tail++] = 0;
	while (head < tail) {
		int s = queue[head++];

		for (int i = 0; i < p->ntrans; i++)
			if (p->trans[i].from == s && why[i] == -1 &&
			    !reached[p->trans[i].to]) {
				reached[p->trans[i].to] = true;
				queue[tail++] = p->trans[i].to;
			}
		if (p->states[s].timed && !reached[p->states[s].timeout_to]) {
			reached[p->states[s].timeout_to] = true;
			queue[tail++] = p->states[s].timeout_to;
		}
	}
	for (int s = 1; s < p->nstates; s++) {
		if (!entered[s])
			snprintf(msg, sizeof(msg), "unused state '%s' in property %s: no transition enters it",
				 p->states[s].name, p->name);
		else if (!reached[s])
			snprintf(msg, sizeof(msg), "state '%s' in property %s is not reachable from the initial state '%s'",
				 p->states[s].name, p->name, p->states[0].name);
		else
			continue;
		warn(out, p->states[s].loc, msg);
		n++;
	}
out:
	free(entered);
	free(reached);
	free(queue);
	return n;
}

static int lint_transitions(const struct vg_spec *spec,
			    const struct vg_property *p, const int *why,
			    FILE *out)
{
	char msg[512];
	int n = 0;

	for (int i = 0; i < p->ntrans; i++) {
		const struct vg_transition *t = &p->trans[i];
		const struct vg_event *ev = &spec->events[t->event];

		if (why[i] >= 0)
			snprintf(msg, sizeof(msg), "transition on %s%s%s can never fire: the transition at line %d on the same event in state '%s' %s",
				 vg_event_kind_name(ev->kind),
				 ev->name[0] ? " " : "", ev->name,
				 p->trans[why[i]].loc.line,
				 p->states[t->from].name,
				 p->trans[why[i]].guard.len
					 ? "has a guard that always holds"
					 : "has no guard and comes first");
		else if (why[i] == -2)
			snprintf(msg, sizeof(msg), "transition on %s%s%s can never fire: its guard is always false",
				 vg_event_kind_name(ev->kind),
				 ev->name[0] ? " " : "", ev->name);
		else
			continue;
		warn(out, t->loc, msg);
		n++;
	}
	return n;
}

/* Debug registers a slice in state s of p holds, at most: one per
 * watched scalar (`q->count`, aligned: a debug register covers 1, 2, 4 or
 * 8 aligned bytes), up to all of them for `*p @ n` */
static int state_registers(const struct vg_spec *spec,
			   const struct vg_property *p, int s)
{
	int regs = 0;
	uint64_t seen[4] = { 0 };	/* events counted, below 256 */

	for (int t = 0; t < p->ntrans; t++) {
		const struct vg_event *ev = &spec->events[p->trans[t].event];
		int e = p->trans[t].event;

		if (p->trans[t].from != s || !vg_event_watches(ev) ||
		    !ev->wloc.per_slice || (seen[e / 64 & 3] >> (e % 64) & 1))
			continue;
		seen[e / 64 & 3] |= 1ull << (e % 64);
		regs += ev->kind == VG_EV_CHANGE ? ev->ncloc
			: ev->wloc.count[0] ? VG_LINT_REGS : 1;
	}
	return regs;
}

/* What vigil will meet at run time: x86 has four debug registers per
 * thread, globals hold theirs for the whole run, and each slice in a
 * watching state needs its own. A state that needs more than are left is
 * a warning; the others get a note saying how many slices fit at once. */
static int lint_watch_budget(const struct vg_spec *spec, FILE *out)
{
	int globals = 0, n = 0;
	char msg[512];

	for (int i = 0; i < spec->nevents; i++)
		if (vg_event_watches(&spec->events[i]) &&
		    !spec->events[i].wloc.per_slice)
			globals += spec->events[i].kind == VG_EV_CHANGE
				   ? spec->events[i].ncloc : 1;
	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *p = &spec->props[i];

		for (int s = 0; s < p->nstates; s++) {
			int regs = state_registers(spec, p, s);
			int left = VG_LINT_REGS - globals;

			if (!regs)
				continue;
			if (regs > left) {
				snprintf(msg, sizeof(msg), "a slice of %s in state %s needs %s%d debug registers and the globals leave %d of %d: none of its slices can be watched there (--watch-policy decides; they end inconclusive)",
					 p->name, p->states[s].name,
					 regs > 1 ? "up to " : "", regs,
					 left < 0 ? 0 : left, VG_LINT_REGS);
				warn(out, p->states[s].loc, msg);
				n++;
			} else if (out) {
				fprintf(out, "%s:%d:%d: note: a slice of %s in state %s takes %s%d of the %d debug registers%s: %d slice%s at a time can be watched there; more are refused (inconclusive) or evict the oldest, as --watch-policy says\n",
					p->states[s].loc.file,
					p->states[s].loc.line,
					p->states[s].loc.col, p->name,
					p->states[s].name,
					regs > 1 ? "up to " : "", regs,
					VG_LINT_REGS,
					globals ? " the globals leave" : "",
					left / regs, left / regs == 1 ? "" : "s");
			}
		}
	}
	if (globals > VG_LINT_REGS) {
		snprintf(msg, sizeof(msg), "the spec watches %d globals and x86 has %d debug registers per thread",
			 globals, VG_LINT_REGS);
		warn(out, spec->events[0].loc, msg);
		n++;
	}
	return n;
}

int vg_spec_lint(const struct vg_spec *spec, FILE *out)
{
	int n = lint_watch_budget(spec, out);

	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *p = &spec->props[i];
		int *why = calloc((size_t)p->ntrans + 1, sizeof(int));

		if (!why)
			return n;
		dead_transitions(p, why);
		n += lint_states(p, why, out);
		n += lint_transitions(spec, p, why, out);
		free(why);
	}
	return n;
}
