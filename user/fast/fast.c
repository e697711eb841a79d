/* The in-process tier as a feature (fast.h): its options, what it asks of
 * the plan, and its install at the start and removal at the end. */
#include "fast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast/fast_internal.h"
#include "plan/plan.h"

struct fast {
	struct vg_run *run;
	struct vg_plan_fast_req req;
	bool off;			/* --no-fast */
	const char *refused;		/* why this run cannot patch */
	struct vg_fast_run *installed;
};

static const char *check_list(const char *arg)
{
	return *arg && !strstr(arg, ",,") ? NULL
		: "a comma-separated list of function names, patterns or `hot`";
}

static int prepare(struct vg_run *run, struct vg_spec *spec, void **state,
		   struct vg_err *e)
{
	struct fast *f = calloc(1, sizeof(*f));
	const char *list = vg_run_option(run, "fast");
	bool given = list != NULL;

	if (!f)
		return vg_errf(e, "out of memory");
	*state = f;
	f->run = run;
	f->off = vg_run_option(run, "no-fast") != NULL;
	f->refused = vg_run_not_patchable(run);
	if (list && f->off)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "--fast and --no-fast do not go together");
	if (!list && !f->off)	/* the default (plan.h) */
		list = vg_plan_fast_default();
	if (list && vg_plan_fast_parse(list, &f->req, e))
		return -1;
	if (given && f->refused)
		fprintf(stderr, "vigil: --fast: %s; the functions keep their uprobes\n",
			f->refused);
	return 0;
}

static int plan(void *state, struct vg_plan_opts *po, struct vg_err *e)
{
	struct fast *f = state;

	vg_plan_fast_apply(&f->req, f->off, po);
	po->no_fast_why = f->refused;
	/* under gdb a user-tier stop holds its thread at the event (the
	 * live side's holds, VG_EVF_HOLD): a uprobe's doing; a kernel-tier
	 * property's stop is the agent's own, at the call */
	if (vg_run_interactive(f->run))
		po->fast_user_why = "--interactive: a user-tier property's stop holds the thread at its event, which the agent cannot (the kernel tier's stops in-process)";
	return 0;
}

static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	struct fast *f = *state;
	int n;

	if (!f || !plan->nfast || f->refused)
		return 0;
	if (vg_fast_install(vg_run_pid(run), !vg_run_attached(run), plan,
			    vg_run_probe(run), &f->installed, e)) {
		char msg[sizeof(e->msg)];

		/* the plan gave those calls no uprobe: refused, not unseen */
		snprintf(msg, sizeof(msg), "%s", e->msg);
		vg_errf(e, "the in-process tier: %.3000s (--no-fast, or VIGIL_FAST=off, leaves every call to uprobes)",
			msg);
		return -1;
	}
	/* vigil run's program waits at its entry, its libraries mapped:
	 * the records of its start now (the loader's rendezvous, whose
	 * mappings name the libraries' globals), as vigil would have read
	 * them with the program held there */
	if (!vg_run_attached(run) && vg_run_drain(run, e) < 0)
		return -1;
	n = vg_fast_nhooks(f->installed);
	if (!vg_run_quiet(run))
		fprintf(stderr, "vigil: in-process tier: %d function%s patched (vigil lint --binary --fast says which)\n",
			n, n == 1 ? "" : "s");
	return 0;
}

/* a stop: the thread an entry stub stopped goes back on its call */
static void stop(void *state, const struct vg_run *run, pid_t pid,
		 pid_t tid)
{
	struct fast *f = state;
	struct vg_err e = { 0 };

	if (!f->installed || pid != vg_run_pid(f->run))
		return;
	if (vg_fast_rewind(f->installed, tid, &e))
		fprintf(stderr, "vigil: thread %d stays in the in-process tier's stub: %s\n",
			tid, e.msg);
}

static int ctl(void *state, const char *cmd, json_t *args, char **text,
	       json_t **data, struct vg_err *e)
{
	struct fast *f = state;

	return vg_fast_ctl(f ? f->installed : NULL, cmd, args, text, data, e);
}

static void end(void *state, const struct vg_run_end *how)
{
	struct fast *f = state;

	vg_fast_uninstall(f->installed, how->exited);
	f->installed = NULL;
}

static void released(void *state, const struct vg_run_end *how)
{
	struct fast *f = state;

	vg_fast_uninstall(f->installed, true);
	free(f->req.buf);
	free(f);
}

static const struct vg_feature_opt opts[] = {
	{ "fast", "LIST", false,
	  "the in-process tier: patch these functions in the target instead\n      of trapping on them (no uprobe: tens of ns a call): `hot` for the\n      memory, string and lock functions, or names and patterns\n      (sqlite3_*); default: hot, or VIGIL_FAST's list (off: none); lint\n      --binary --fast LIST says which it takes and why not the others",
	  check_list, "vigil watch patches no process" },
	{ "no-fast", NULL, false,
	  "no function patched: every call probe a uprobe", NULL, NULL },
	{ NULL },
};

const struct vg_feature vg_fast_feature = {
	.name = "fast",
	.opts = opts,
	.prepare = prepare,
	.plan = plan,
	.start = start,
	.stop = stop,
	.ctl = ctl,
	.end = end,
	.released = released,
};
