/* The features the core calls (user/feature/feature.h): their
 * registration, the core's calls of their hooks, and what they may read
 * of the run. A new feature is one line in `all`. */
#include "session_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "act/scenario.h"
#include "container/container.h"
#include "dynamic/dynamic.h"
#include "fast/fast.h"
#include "follow/follow.h"
#include "leaks/leaks.h"
#include "load/load.h"
#include "monitor/monitor.h"
#include "feature/feature.h"
#include "sinks/sinks.h"
#include "status/status.h"
#include "view/view_feature.h"
#include "webhook/webhook.h"

static const struct vg_feature *const all[] = {
	&vg_status_feature,	/* first: it takes stderr over */
	&vg_container_feature,	/* says where an attached target lives */
	&vg_monitor_dump_feature,	/* SIGUSR1: the monitor before the rest */
	&vg_dyn_feature,	/* a drain's probes in before the leak check */
	&vg_fast_feature,	/* the in-process tier: patched at the start */
	&vg_load_feature,	/* the loaded properties' verdicts first */
	&vg_leaks_feature,
	&vg_sinks_feature,
	&vg_view_feature,
	&vg_webhook_feature,
};
#define NFEAT ((int)(sizeof(all) / sizeof(all[0])))

const struct vg_feature *const *vg_features(int *n)
{
	*n = NFEAT;
	return all;
}

/* the run, as features see it, is the session */
static const struct session *S(const struct vg_run *r)
{
	return (const struct session *)r;
}

const struct vg_spec *vg_run_spec(const struct vg_run *r)
{
	return S(r)->p.spec;
}

pid_t vg_run_pid(const struct vg_run *r)
{
	return S(r)->pid;
}

const char *vg_run_exe(const struct vg_run *r)
{
	return S(r)->exe;
}

const char *vg_run_unit(const struct vg_run *r)
{
	return S(r)->o->unit ? S(r)->o->unit : "";
}

bool vg_run_quiet(const struct vg_run *r)
{
	return S(r)->o->quiet;
}

bool vg_run_live(const struct vg_run *r)
{
	return S(r)->o->live;
}

bool vg_run_interactive(const struct vg_run *r)
{
	return S(r)->o->interactive;
}

bool vg_run_attached(const struct vg_run *r)
{
	return !S(r)->o->watch_exe && S(r)->o->pid > 0;
}

static bool same_pid_ns(pid_t pid)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
	return !stat(path, &a) && !stat("/proc/self/ns/pid", &b) &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

const char *vg_run_not_patchable(const struct vg_run *r)
{
	const struct vg_session_opts *o = S(r)->o;

	if (o->watch_exe)
		return "vigil watch patches no process";
	if (o->fork_snapshots)
		return "--snapshot=fork: a snapshot is a fork of the patched process, carrying the patches and vigil's mappings (the ring, the kernel tier's table) into the process a restore hands over";
	if (o->pid > 0 && !same_pid_ns(o->pid))
		return "the process is in another pid namespace (a container): the agent's thread ids would be the container's";
	return NULL;
}

bool vg_run_target_stopped(const struct vg_run *r)
{
	return S(r)->p.sc && vg_scenario_target_stopped(S(r)->p.sc);
}

const char *vg_run_option(const struct vg_run *r, const char *name)
{
	const struct vg_session_opts *o = S(r)->o;

	for (int i = 0; i < o->nfopts; i++)
		if (!strcmp(o->fopts[i].name, name))
			return o->fopts[i].value;
	return NULL;
}

const struct vg_run *vg_run_part(const struct vg_run *r, int k)
{
	return k ? vg_load_unit(r, k - 1) : r;
}

void vg_run_counts(const struct vg_run *r, struct vg_run_counts *c)
{
	const struct session *ss = S(r);

	memset(c, 0, sizeof(*c));
	vg_session_event_totals(ss, &c->events, &c->lost);
	vg_probe_links(ss->p.probe, &c->probes_attached, &c->probes_planned);
	c->processes = !ss->o->watch_exe && !ss->target_exited;
	c->processes += vg_follow_live(ss->procs);
}

void vg_run_foreach_slice(const struct vg_run *r,
			  void (*cb)(void *ctx, const struct vg_slice_view *s),
			  void *ctx)
{
	const struct session *ss = S(r);

	if (!ss->o->watch_exe)	/* vigil watch: only its processes' */
		vg_monitor_foreach(ss->p.mon, cb, ctx);
	for (int i = 0; i < vg_follow_count(ss->procs); i++) {
		const struct vg_kid *k = vg_follow_at(ss->procs, i);

		if (!k->gone)
			vg_monitor_foreach(k->mon, cb, ctx);
	}
}

bool vg_run_prop_unloaded(const struct vg_run *r, int prop)
{
	return vg_monitor_prop_disabled(S(r)->p.mon, prop);
}

bool vg_run_prop_kernel(const struct vg_run *r, int prop)
{
	return S(r)->p.kernel[prop];
}

int vg_run_monitors(const struct vg_run *r, struct vg_monitor **mons, int max)
{
	const struct session *ss = S(r);
	int n = 0;

	if (n < max)
		mons[n++] = ss->p.mon;
	for (int i = 0; i < vg_follow_count(ss->procs) && n < max; i++)
		mons[n++] = vg_follow_at(ss->procs, i)->mon;
	return n;
}

void vg_run_foreach_monitor(const struct vg_run *r,
			    void (*cb)(void *ctx, pid_t pid,
				       struct vg_monitor *m),
			    void *ctx)
{
	const struct session *ss = S(r);

	if (ss->p.mon)
		cb(ctx, 0, ss->p.mon);
	for (int i = 0; i < vg_follow_count(ss->procs); i++) {
		const struct vg_kid *k = vg_follow_at(ss->procs, i);

		cb(ctx, k->pid, k->mon);
	}
}

uint64_t vg_run_records(const struct vg_run *r)
{
	return S(r)->events;
}

struct vg_report *vg_run_report(const struct vg_run *r)
{
	return S(r)->p.report;
}

struct vg_scenario *vg_run_scenario(const struct vg_run *r)
{
	return S(r)->p.sc;
}

struct vg_probe *vg_run_probe(const struct vg_run *r)
{
	return S(r)->p.probe;
}

int vg_run_drain(struct vg_run *r, struct vg_err *e)
{
	struct session *ss = (struct session *)S(r);

	return vg_probe_drain(ss->p.probe, vg_session_on_record, ss, e);
}

struct vg_evidence *vg_run_evidence(const struct vg_run *r, uint32_t pid)
{
	return vg_session_evidence_of(S(r), (pid_t)pid);
}

void vg_run_sync_kernel(const struct vg_run *r)
{
	vg_session_mirror_kslices((struct session *)S(r));
}

void vg_run_count_transitions(const struct vg_run *r)
{
	vg_probe_count_trans(S(r)->p.probe);
}

uint64_t vg_run_transition_hits(const struct vg_run *r, int t)
{
	return vg_probe_trans_hits(S(r)->p.probe, t);
}

int vg_features_prepare(struct session *ss, struct vg_err *e)
{
	if (!(ss->feature_state = calloc(NFEAT, sizeof(void *))))
		return vg_errf(e, "out of memory");
	for (int i = 0; i < NFEAT; i++)
		if (all[i]->prepare &&
		    all[i]->prepare((struct vg_run *)ss, ss->p.spec,
				    &ss->feature_state[i], e))
			return -1;
	return 0;
}

int vg_features_plan(struct session *ss, struct vg_plan_opts *po,
		     struct vg_err *e)
{
	for (int i = 0; i < NFEAT; i++)
		if (all[i]->plan && ss->feature_state[i] &&
		    all[i]->plan(ss->feature_state[i], po, e))
			return -1;
	return 0;
}

int vg_features_start(struct session *ss, struct vg_plan *plan,
		      struct vg_err *e)
{
	for (int i = 0; i < NFEAT; i++)
		if (all[i]->start &&
		    all[i]->start((struct vg_run *)ss, plan,
				  &ss->feature_state[i], e))
			return -1;
	return 0;
}

/* each started feature's state, in order: for (i = -1; next(...);) */
static bool next(const struct session *ss, int *i)
{
	while (ss->feature_state && ++*i < NFEAT)
		if (ss->feature_state[*i])
			return true;
	return false;
}

/* Call hook of each started feature that has one, with its state and the
 * arguments after it. A loaded unit borrows the session's states
 * (vg_features_share): the hooks about the run's own records, own, are
 * not called for it. */
#define EACH(ss, own, hook, ...)					\
	for (int i_ = -1; !((own) && (ss)->feature_borrowed) &&		\
			  next((ss), &i_);)				\
		if (all[i_]->hook)					\
			all[i_]->hook((ss)->feature_state[i_], ##__VA_ARGS__)
/* the same for a hook that may fail: the first failure is returned */
#define EACH_OR_FAIL(ss, own, hook, ...)				\
	do {								\
		for (int i_ = -1; !((own) && (ss)->feature_borrowed) &&	\
				  next((ss), &i_);)			\
			if (all[i_]->hook &&				\
			    all[i_]->hook((ss)->feature_state[i_],	\
					  __VA_ARGS__))			\
				return -1;				\
		return 0;						\
	} while (0)

void vg_features_transition(struct session *ss, const struct vg_slice_view *s,
			    int from, const struct vg_mon_event *ev)
{
	EACH(ss, false, transition, (const struct vg_run *)ss, s, from, ev);
}

void vg_features_record(struct session *ss, const struct vg_mon_event *ev,
			uint32_t flags)
{
	EACH(ss, true, record, ev, flags);
}

int vg_features_drained(struct session *ss, struct vg_err *e)
{
	EACH_OR_FAIL(ss, true, drained, e);
}

int vg_features_save(struct session *ss, FILE *out, struct vg_err *e)
{
	EACH_OR_FAIL(ss, true, save, out, e);
}

int vg_features_restore(struct session *ss, const char *path,
			struct vg_err *e)
{
	EACH_OR_FAIL(ss, true, restore, path, e);
}

void vg_features_stop(struct session *ss, pid_t pid, pid_t tid)
{
	EACH(ss, false, stop, (const struct vg_run *)ss, pid, tid);
}

void vg_features_dump(struct session *ss)
{
	EACH(ss, false, dump);
}

void vg_features_finish(struct session *ss, const struct vg_run_end *end)
{
	EACH(ss, true, finish, end);
}

void vg_features_tick(struct session *ss)
{
	EACH(ss, false, tick);
}

int vg_features_checkpoint_prepare(struct session *ss, pid_t of,
				   struct vg_err *e)
{
	EACH_OR_FAIL(ss, false, checkpoint_prepare, of, e);
}

void vg_features_replaced(struct session *ss, pid_t pid)
{
	EACH(ss, false, replaced, pid);
}

void vg_features_checkpoint(struct session *ss, pid_t of, const char *dir,
			    const char *reason, const char *what,
			    const char *why)
{
	EACH(ss, false, checkpoint, of, dir, reason, what, why);
}

void vg_features_gdb_terminal(struct session *ss)
{
	EACH(ss, false, gdb_terminal);
}

void vg_features_share(struct session *ss, struct session *unit)
{
	unit->feature_state = ss->feature_state;
	unit->feature_borrowed = true;
}

int vg_features_ctl(struct session *ss, const char *cmd, json_t *args,
		    char **text, json_t **data, struct vg_err *e)
{
	int rc;

	for (int i = -1; next(ss, &i);)
		if (all[i]->ctl && (rc = all[i]->ctl(ss->feature_state[i], cmd,
						    args, text, data, e)))
			return rc;
	return 0;
}

void vg_features_end(struct session *ss, const struct vg_run_end *end)
{
	if (ss->feature_borrowed) {	/* a loaded unit's: the session ends them */
		for (int i = -1; next(ss, &i);)
			if (all[i]->part_end)
				all[i]->part_end(ss->feature_state[i],
						 (const struct vg_run *)ss);
		ss->feature_state = NULL;
		return;
	}
	for (int i = -1; next(ss, &i);) {
		if (all[i]->end)
			all[i]->end(ss->feature_state[i], end);
		if (!all[i]->released)	/* end freed it */
			ss->feature_state[i] = NULL;
	}
	/* the loaded units, freed after this, borrowed the session's */
	for (int k = 0; vg_load_unit((struct vg_run *)ss, k); k++)
		((struct session *)vg_load_unit((struct vg_run *)ss, k))
			->feature_state = NULL;
}

void vg_features_released(struct session *ss, const struct vg_run_end *end)
{
	for (int i = -1; next(ss, &i);)
		all[i]->released(ss->feature_state[i], end);
	free(ss->feature_state);
	ss->feature_state = NULL;
}
