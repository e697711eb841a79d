/* What user/load/ asks of the session (load/load.h, vg_load_host_*): a
 * run of a loaded spec's properties opened on the session's process as
 * the session's own are (session.c's open_all), drained, reported and
 * closed; the session's own properties taken out of its probes and
 * monitors for `vigil unload`. The load module sees the session and each
 * unit as a struct vg_run only; this file is where that run is a
 * session again, as ckpt_host.c is for the checkpoints. */
#include "session_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/scenario.h"
#include "ckpt/ckpt.h"
#include "follow/follow.h"
#include "load/load.h"
#include "monitor/monitor.h"
#include "plan/plan.h"
#include "probe/features.h"
#include "report/evidence.h"
#include "report/report.h"
#include "sym/symbolize.h"
#include "symval/symval.h"
#include "live/live.h"

/* A loaded unit's run: a session of its own, with what it borrows from
 * the session spelled out in its own options. */
struct part {
	struct session s;		/* first: a part is its session */
	struct vg_session_opts o;
	struct vg_err err;		/* where its record handling reports */
	char path[PATH_MAX];		/* the file it came from */
};

static struct session *S(struct vg_run *r)
{
	return (struct session *)r;
}

static const struct session *CS(const struct vg_run *r)
{
	return (const struct session *)r;
}

static struct part *P(struct vg_run *r)
{
	return (struct part *)r;	/* the session is a part's first member */
}

struct vg_load **vg_load_host_state(const struct vg_run *r)
{
	return &((struct session *)r)->loaded;
}

void vg_load_host_how(const struct vg_run *r, struct vg_load_host_how *h)
{
	const struct vg_session_opts *o = CS(r)->o;

	h->follow_forks = o->follow_forks;
	h->watch = o->watch_exe != NULL;
	h->dynamic = o->dynamic;
}

void vg_load_host_close_part(struct vg_run *r)
{
	struct session *s;

	if (!r)
		return;
	s = S(r);
	vg_probe_close(s->p.probe);	/* its uprobes detach here */
	vg_follow_free(s->procs);	/* vigil watch: its processes' */
	vg_session_part_free(&s->p);
	vg_spec_free(s->p.spec);
	vg_features_end(s, NULL);	/* borrowed: the features forget it */
	free(P(r));
}

/* Everything a session's own properties get (session.c's open_all), on
 * the process as it runs now. */
static int part_open(struct session *ss, struct part *u, struct vg_err *e)
{
	struct session *s = &u->s;
	struct vg_plan *plan = NULL;
	int rc = -1;

	u->o = *ss->o;
	u->o.pid = ss->pid;		/* attached: launched long ago */
	/* vigil watch: it follows the session's processes (watch_load.c),
	 * whose counts and hooks are the session's */
	if (ss->o->watch_exe)
		s->watch_root = ss;
	u->o.json_path = NULL;		/* the session's JSON is its own */
	u->o.record_path = NULL;
	u->o.state_path = NULL;
	u->o.dynamic = false;
	u->o.live = false;
	s->o = &u->o;
	s->pid = ss->pid;
	s->err = &u->err;
	s->libs = ss->libs;		/* borrowed: the session's */
	s->nlibs = ss->nlibs;
	snprintf(s->exe, sizeof(s->exe), "%s", ss->exe);

	struct vg_plan_opts plo = {
		.binary = s->exe, .libs = s->libs, .nlibs = s->nlibs,
		/* vigil watch: the user tier unless --tier=kernel, as the
		 * session's own (follow/follow_run.c, vg_follow_run_check) */
		.tier = ss->o->watch_exe && !vg_session_watch_kernel(ss)
			? VG_TIER_USER : ss->o->tier,
		.on_violation = ss->o->on_violation,
		.stacks = ss->o->stacks,
		.no_ktimer = !vg_feat_ktimer(NULL),
	};
	if (!(plan = vg_plan_build(s->p.spec, &plo, e)))
		goto out;
	s->p.kernel = calloc((size_t)s->p.spec->nprops + 1, sizeof(bool));
	s->p.stack_on = calloc((size_t)s->p.spec->nevents + 1, sizeof(bool));
	/* its own monitors of the processes it follows (vigil watch's) */
	s->procs = vg_follow_new();
	if (!s->p.kernel || !s->p.stack_on || !s->procs) {
		vg_errf(e, "out of memory");
		goto out;
	}
	if (vg_session_part_open(s, plan, e))
		goto out;
	/* its violations counted and sent where the session's go */
	vg_features_share(ss, s);
	struct vg_probe_opts po = {
		.plan = plan,
		.pid = s->pid,
		.binary = s->exe,
		.libs = s->libs,
		.nlibs = s->nlibs,
		.ringbuf_bytes = ss->o->ringbuf_bytes,
		.max_kslices = ss->o->max_slices,
		.warn = stderr,
		/* vigil watch: the session holds and finds the processes,
		 * the unit follows them (slices keyed by process) */
		.follow_forks = ss->o->watch_exe != NULL,
		.watch = ss->o->watch_exe != NULL,
		.follower = ss->o->watch_exe != NULL,
	};
	if (!(s->p.probe = vg_probe_open(s->p.spec, &po, e)))
		goto out;
	if (ss->o->watch_exe && vg_watch_unit_start(ss, s, e))
		goto out;
	for (int i = 0; i < s->p.spec->nprops; i++)
		fprintf(stderr, "vigil: loaded %s from %s: %s tier%s%s\n",
			s->p.spec->props[i].name, u->path,
			s->p.kernel[i] ? "kernel" : "user",
			s->p.kernel[i] ? "" : " because ",
			s->p.kernel[i] ? ""
			: ss->o->watch_exe ? "vigil watch (the default; --tier=kernel keys kernel-tier slices by process)"
					   : plan->props[i].why);
	for (int i = 0; i < s->p.spec->nprops; i++)	/* plan_unseen.c */
		if (plan->props[i].unseen[0])
			fprintf(stderr, "vigil: loaded %s from %s: %s: it ends inconclusive, never accepting\n",
				s->p.spec->props[i].name, u->path,
				plan->props[i].unseen);
	rc = 0;
out:
	vg_plan_free(plan);
	return rc;
}

struct vg_run *vg_load_host_open_part(struct vg_run *r, struct vg_spec *spec,
				      const char *path, struct vg_err *e)
{
	struct part *u = calloc(1, sizeof(*u));

	if (!u) {
		vg_spec_free(spec);
		vg_errf(e, "out of memory");
		return NULL;
	}
	u->s.p.spec = spec;
	snprintf(u->path, sizeof(u->path), "%s", path);
	if (part_open(S(r), u, e)) {
		vg_load_host_close_part((struct vg_run *)u);
		return NULL;
	}
	return (struct vg_run *)u;
}

const char *vg_load_host_part_path(const struct vg_run *r)
{
	return ((const struct part *)r)->path;
}

int vg_load_host_part_processes(const struct vg_run *r)
{
	return vg_follow_count(CS(r)->procs);
}

void vg_load_host_drain_part(struct vg_run *r, struct vg_run *part)
{
	struct session *ss = S(r), *s = S(part);
	struct part *u = P(part);

	/* the unit borrows the live side while its records go
	 * through: its `vigil break`s (each knows its owner) and its
	 * stops for gdb, as the session's own */
	s->live = ss->live;
	u->err.msg[0] = 0;
	if (vg_probe_drain(s->p.probe, vg_session_on_record, s, &u->err) < 0 ||
	    vg_session_timeouts(s, &u->err))
		fprintf(stderr, "vigil: %s: %s\n", u->path, u->err.msg);
	if (vg_hold_release(s, &u->err))
		fprintf(stderr, "vigil: %s: %s\n", u->path, u->err.msg);
	/* (a `gdb` reaction of a loaded property opens the live session:
	 * the gdb it starts is the session's, its exit ends monitoring) */
	vg_live_keep_going(part);
	s->live = NULL;
}

bool vg_load_host_part_violated(const struct vg_run *part)
{
	return vg_scenario_violated(CS(part)->p.sc);
}

struct vg_scenario *vg_load_host_part_stopped(const struct vg_run *part)
{
	struct vg_scenario *sc = CS(part)->p.sc;

	return vg_scenario_target_stopped(sc) ? sc : NULL;
}

bool vg_load_host_part_final(struct vg_run *part, const char *label)
{
	struct session *s = S(part);

	vg_session_mirror_kslices(s);
	if (s->watch_root)	/* each process's */
		vg_watch_unit_final(s);
	else
		vg_report_final(s->p.report, s->p.mon, 0);
	vg_report_summary(s->p.report, label);
	return vg_report_errors(s->p.report);
}

int vg_load_host_part_write_state(struct vg_run *part, FILE *out,
				  struct vg_err *e)
{
	struct session *s = S(part);

	return vg_monstate_write(out, s->p.spec, s->p.mon, s->p.probe, s->p.kernel, e);
}

int vg_load_host_part_read_state(struct vg_run *part, const char *path,
				 struct vg_err *e)
{
	struct session *s = S(part);

	return vg_monstate_load(path, s->p.spec, s->p.mon, s->p.probe, s->p.kernel, e);
}

json_t *vg_load_host_part_status(struct vg_run *part)
{
	vg_session_mirror_kslices(S(part));
	return vg_live_status(part);
}

json_t *vg_load_host_part_probes(struct vg_run *part)
{
	return vg_live_probes(part);
}

int vg_load_host_push_holds(struct vg_run *r, struct vg_run *part,
			    struct vg_err *e)
{
	return vg_live_push_holds(r, part, e);
}

void vg_load_host_forget_part(struct vg_run *r, struct vg_run *part)
{
	vg_live_forget(r, part);
}

/* Everything the property had to say: records already sent, its kernel
 * slices into the monitor (the verdicts read them). */
void vg_load_host_settle(struct vg_run *r)
{
	struct session *ss = S(r);
	struct vg_err e = { 0 };

	if (vg_probe_drain(ss->p.probe, vg_session_on_record, ss, &e) < 0 ||
	    vg_session_timeouts(ss, &e))
		fprintf(stderr, "vigil: %s\n", e.msg);
	if (vg_hold_release(ss, &e))
		fprintf(stderr, "vigil: %s\n", e.msg);
	vg_live_keep_going(r);
	vg_session_mirror_kslices(ss);
}

void vg_load_host_report_unload(struct vg_run *r, int prop, const char *label)
{
	struct session *ss = S(r);

	/* vigil watch: each process's verdicts, then the summary */
	if (ss->o->watch_exe && vg_follow_count(ss->procs)) {
		vg_follow_report_final(ss->procs, ss->p.report, prop);
		vg_report_set_evidence(ss->p.report, ss->p.evidence);
	}
	vg_report_unload(ss->p.report, ss->p.mon, prop, label);
}

int vg_load_host_unload_prop(struct vg_run *r, int prop, struct vg_err *e)
{
	struct session *ss = S(r);

	/* its breakpoints first: the kernel row the probe keeps for a
	 * restore then has its reactions' stop states alone */
	if (vg_live_forget_prop(r, r, prop, e) ||
	    vg_probe_disable_prop(ss->p.probe, prop, e))
		return -1;
	vg_monitor_disable(ss->p.mon, prop);
	vg_follow_disable(ss->procs, prop);	/* vigil watch's processes */
	return 0;
}

int vg_load_host_restore_prop(struct vg_run *r, int prop, bool gone,
			      struct vg_err *e)
{
	struct session *ss = S(r);

	if (!gone)	/* back: the checkpoint had it */
		return vg_probe_enable_prop(ss->p.probe, prop, e);
	if (vg_probe_disable_prop(ss->p.probe, prop, e))
		return -1;
	/* the monitor is the checkpoint's, fresh: its slices were not
	 * written (monstate.c) */
	vg_monitor_disable(ss->p.mon, prop);
	return 0;
}
