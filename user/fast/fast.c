/* The in-process tier as a feature (fast.h): its options, what it asks of
 * the plan, and its install at the start and removal at the end. */
#include "fast.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast/fast_internal.h"
#include "follow/follow_run.h"
#include "plan/plan.h"

struct fast {
	struct vg_run *run;
	struct vg_plan_fast_req req;
	bool off;			/* --no-fast */
	const char *refused;		/* why this run cannot patch */
	struct vg_fast_run *installed;
	char lost[512];			/* why it could not be put back after
					 * a checkpoint: the run ends */
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
	if (!list && !f->off &&	/* the default (plan.h) */
	    !(list = vg_plan_fast_default()))
		f->off = true;	/* VIGIL_FAST=off: the spec's `fast` too */
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
	struct vg_follow_host_how how;
	int n;

	if (!f || !plan->nfast || f->refused)
		return 0;
	vg_follow_host_how(run, &how);
	if (vg_fast_install(vg_run_pid(run), !vg_run_attached(run),
			    how.follow, plan,
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

/* Out of the target before a CRIU dump (fast_ckpt.c says how) */
static int checkpoint_prepare(void *state, pid_t of, struct vg_err *e)
{
	struct fast *f = state;
	char msg[sizeof(e->msg)];

	if (!f->installed || of != vg_fast_pid(f->installed))
		return 0;
	if (!vg_fast_take_out(f->installed, e))
		return 0;
	snprintf(msg, sizeof(msg), "%s", e->msg);
	return vg_errf(e, "the in-process tier could not be taken out of it: %.3000s",
		       msg);
}

/* and back in after it, taken or not */
static void put_back(struct fast *f, bool fresh)
{
	struct vg_err e = { 0 };

	if (!vg_fast_is_out(f->installed))
		return;
	if (vg_fast_put_back(f->installed, fresh, &e)) {
		/* the plan gave those calls no uprobe: the run cannot go on
		 * without them (drained ends it) */
		snprintf(f->lost, sizeof(f->lost), "%.400s", e.msg);
		return;
	}
	if (!vg_run_quiet(f->run))
		fprintf(stderr, "vigil: in-process tier: %d function%s patched again\n",
			vg_fast_nhooks(f->installed),
			vg_fast_nhooks(f->installed) == 1 ? "" : "s");
}

static void checkpoint(void *state, pid_t of, const char *dir,
		       const char *reason, const char *what, const char *why)
{
	struct fast *f = state;

	if (f->installed && of == vg_fast_pid(f->installed))
		put_back(f, false);
}

/* a restore in the session: the old process (and the tier in it) is
 * gone; the restored one has none of it (taken out before its dump) */
static void replaced(void *state, pid_t pid)
{
	struct fast *f = state;

	if (!f->installed || pid != vg_fast_pid(f->installed))
		return;
	vg_fast_gone(f->installed);
	put_back(f, true);
}

static int drained(void *state, struct vg_err *e)
{
	struct fast *f = state;

	if (f->lost[0])
		return vg_errf(e, "the in-process tier could not be put back in pid %d after a checkpoint: %s; its functions are not monitored any more (--no-fast leaves every call to uprobes)",
			       vg_run_pid(f->run), f->lost);
	return 0;
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
	uint64_t ns, waited = vg_fast_waited(f->installed, &ns);

	/* the program went at vigil's pace rather than lose records */
	if (waited && !vg_run_quiet(f->run))
		fprintf(stderr, "vigil: in-process tier: the program waited %" PRIu64 " time%s for room in the ring, %.3f s in all (vigil took the records more slowly than it made them)\n",
			waited, waited == 1 ? "" : "s", (double)ns / 1e9);
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
	.drained = drained,
	.checkpoint_prepare = checkpoint_prepare,
	.checkpoint = checkpoint,
	.replaced = replaced,
	.ctl = ctl,
	.end = end,
	.released = released,
};
