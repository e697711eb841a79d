/* The leak check as a feature of the run (feature/feature.h): its
 * options, and the hooks through which the session core drives it. The
 * core knows none of this folder; it calls these hooks as it calls every
 * feature's. */
#include "leaks.h"

#include <stdlib.h>

#include "feature/feature.h"
#include "monitor/monitor.h"
#include "plan/plan.h"

#define ONE_PROCESS "the leak check is for one process (vigil run or attach)"

struct leak_feature {
	bool leak_check;
	const struct vg_spec *spec;
	struct vg_plan_leaks plan;	/* its part of the plan, until built */
	struct vg_leaks *l;
};

static const char *check_kinds(const char *arg)
{
	unsigned k;

	return vg_leak_kinds_parse(arg, &k)
		? "is not a list of definite, indirect, possible, reachable, or all"
		: NULL;
}

static unsigned kinds(const struct vg_run *run, const char *opt)
{
	const char *v = vg_run_option(run, opt);
	unsigned k = 0;

	if (v && vg_leak_kinds_parse(v, &k))
		k = 0;	/* (checked on the command line) */
	return k;
}

/* --leak-check adds vigil's own property, which holds the target at
 * _exit, before anything counts the spec's properties and events. Every
 * run has the check: SIGUSR1 and `vigil ctl leaks` ask without it. */
static int prepare(struct vg_run *run, struct vg_spec *spec, void **state,
		   struct vg_err *e)
{
	struct leak_feature *f = calloc(1, sizeof(*f));

	if (!f)
		return vg_errf(e, "out of memory");
	*state = f;
	f->plan.hold_prop = -1;
	f->spec = spec;
	f->leak_check = vg_run_option(run, "leak-check") != NULL;
	return vg_leaks_prepare(spec, f->leak_check, e);
}

static int plan(void *state, struct vg_plan_opts *po, struct vg_err *e)
{
	struct leak_feature *f = state;

	if (!f->leak_check)
		return 0;
	if (vg_leaks_plan(f->spec, &f->plan, e))
		return -1;
	po->leak_check = &f->plan;
	return 0;
}

static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	struct leak_feature *f = *state;
	struct vg_leaks_opts lo = {
		.leak_check = f->leak_check,
		.suppressions = vg_run_option(run, "suppressions"),
		.show = kinds(run, "show-leak-kinds"),
		.errors = kinds(run, "errors-for-leak-kinds"),
	};

	vg_leaks_plan_free(&f->plan);	/* the plan is built */
	return (f->l = vg_leaks_new(run, &lo, e)) ? 0 : -1;
}

static void record(void *state, const struct vg_mon_event *ev, uint32_t flags)
{
	vg_leaks_note(((struct leak_feature *)state)->l, ev);
}

/* the checks valgrind's client requests asked for, then the one at exit:
 * both while the hold still stops the target */
static int drained(void *state, struct vg_err *e)
{
	struct leak_feature *f = state;

	vg_leaks_creq(f->l);
	vg_leaks_at_exit(f->l);
	return 0;
}

static int ctl(void *state, const char *cmd, json_t *args, char **text,
	       json_t **data, struct vg_err *e)
{
	return vg_leaks_ctl(((struct leak_feature *)state)->l, cmd, args,
			    text, data, e);
}

static void dump(void *state)
{
	vg_leaks_on_demand(((struct leak_feature *)state)->l);
}

static void finish(void *state, const struct vg_run_end *end)
{
	vg_leaks_end(((struct leak_feature *)state)->l, end->exited,
		     end->exit_signal);
}

static void released(void *state, const struct vg_run_end *end)
{
	struct leak_feature *f = state;

	vg_leaks_plan_free(&f->plan);	/* (a run that ended before start) */
	vg_leaks_free(f->l);
	free(f);
}

static const struct vg_feature_opt opts[] = {
	{ "leak-check", NULL, false,
	  "with specs/lib/leak.vigil: at exit, hold the program at _exit (or\n      at abort, a failed assert, a raise that kills it) and class its\n      live blocks as memcheck does (definitely, indirectly, possibly\n      lost, still reachable) by a scan of its memory; loss records by\n      allocation stack; the leak property's verdict then counts lost\n      blocks only, not still reachable ones nor the C library's own;\n      also where the program asks with valgrind's VALGRIND_DO_LEAK_CHECK\n      and the like",
	  NULL, ONE_PROCESS },
	{ "suppressions", "FILE", false,
	  "leave out the loss records FILE matches (LSan's leak:PATTERN lines\n      or valgrind's Memcheck:Leak entries;\n      docs/reference/leak-check.md)",
	  NULL, ONE_PROCESS },
	{ "show-leak-kinds", "LIST", false,
	  "the kinds whose records are printed: definite,indirect,possible,\n      reachable or all (default definite,possible; JSON has all)",
	  check_kinds, ONE_PROCESS },
	{ "errors-for-leak-kinds", "LIST", false,
	  "the kinds the leak property counts as errors at exit (default\n      definite,indirect,possible)",
	  check_kinds, ONE_PROCESS },
	{ NULL },
};

const struct vg_feature vg_leaks_feature = {
	.name = "leaks",
	.opts = opts,
	.prepare = prepare,
	.plan = plan,
	.start = start,
	.record = record,
	.drained = drained,
	.ctl = ctl,
	.dump = dump,
	.finish = finish,
	.released = released,
};
