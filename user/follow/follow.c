/* The processes a run follows (follow.h): a set of records, each its
 * own allocation so that a record's address outlives the others' coming
 * and going, and what a fork or an exec does to a followed monitor. */
#include "follow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor.h"
#include "report/evidence.h"
#include "report/report.h"
#include "spec/spec.h"
#include "sym/symbolize.h"

struct vg_follow {
	struct vg_kid **k;
	int n, cap;
	uint64_t forks, execs;		/* by the target's tree (VG_REC_PROC) */
	bool launch_exec_seen;		/* vigil run: the exec that starts it */
	uint64_t prog_ino;		/* ... and the file it ran, as the */
	uint32_t prog_dev;		/* kernel encodes it */
};

struct vg_follow *vg_follow_new(void)
{
	return calloc(1, sizeof(struct vg_follow));
}

static void kid_free(struct vg_kid *k)
{
	vg_monitor_free(k->mon);
	vg_evidence_free(k->evidence);
	vg_symbolizer_free(k->sym);
	free(k->cgroup);
	free(k);
}

void vg_follow_free(struct vg_follow *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++)
		kid_free(f->k[i]);
	free(f->k);
	free(f);
}

struct vg_kid *vg_follow_add(struct vg_follow *f, pid_t pid,
			     struct vg_monitor *mon, struct vg_evidence *x)
{
	struct vg_kid *k;

	if (f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 8;
		void *v = realloc(f->k, cap * sizeof(*f->k));

		if (!v)
			return NULL;
		f->k = v;
		f->cap = cap;
	}
	if (!(k = calloc(1, sizeof(*k))))
		return NULL;
	k->pid = pid;
	k->ns_pid = pid;
	k->mon = mon;
	k->evidence = x;
	f->k[f->n++] = k;
	return k;
}

struct vg_kid *vg_follow_find(const struct vg_follow *f, pid_t pid)
{
	for (int i = 0; f && i < f->n; i++)
		if (f->k[i]->pid == pid)
			return f->k[i];
	return NULL;
}

int vg_follow_count(const struct vg_follow *f)
{
	return f ? f->n : 0;
}

struct vg_kid *vg_follow_at(const struct vg_follow *f, int i)
{
	return f && i >= 0 && i < f->n ? f->k[i] : NULL;
}

void vg_follow_foreach(const struct vg_follow *f,
		       void (*cb)(void *ctx, struct vg_kid *k), void *ctx)
{
	for (int i = 0; f && i < f->n; i++)
		cb(ctx, f->k[i]);
}

void vg_follow_remove(struct vg_follow *f, struct vg_kid *k)
{
	for (int i = 0; f && i < f->n; i++)
		if (f->k[i] == k) {
			kid_free(k);
			f->k[i] = f->k[--f->n];
			return;
		}
}

void vg_follow_mark_gone(struct vg_follow *f, pid_t pid)
{
	for (int i = 0; f && i < f->n; i++)
		if (f->k[i]->pid == pid)
			f->k[i]->gone = true;
}

int vg_follow_live(const struct vg_follow *f)
{
	int n = 0;

	for (int i = 0; f && i < f->n; i++)
		n += !f->k[i]->gone;
	return n;
}

bool vg_follow_running(struct vg_follow *f)
{
	for (int i = 0; f && i < f->n; i++) {
		char path[64], st[512], *c;
		FILE *fp;
		bool alive;

		if (f->k[i]->gone)
			continue;
		/* its exit record may have been lost: /proc says too */
		snprintf(path, sizeof(path), "/proc/%d/stat", f->k[i]->pid);
		fp = fopen(path, "r");
		alive = fp && fgets(st, sizeof(st), fp) &&
			(c = strrchr(st, ')')) && c[1] && c[2] != 'Z' &&
			c[2] != 'X';
		if (fp)
			fclose(fp);
		if (alive)
			return true;
		f->k[i]->gone = true;
	}
	return false;
}

uint64_t vg_follow_next_deadline(const struct vg_follow *f)
{
	uint64_t d = UINT64_MAX;

	for (int i = 0; f && i < f->n; i++) {
		uint64_t k = vg_monitor_next_deadline(f->k[i]->mon);

		d = k < d ? k : d;
	}
	return d;
}

int vg_follow_expire(struct vg_follow *f, uint64_t now, struct vg_err *e)
{
	int fired = 0, r;

	for (int i = 0; f && i < f->n; i++) {
		if ((r = vg_monitor_expire(f->k[i]->mon, now, e)) < 0)
			return -1;
		fired += r;
	}
	return fired;
}

void vg_follow_report_final(const struct vg_follow *f, struct vg_report *r,
			    int prop)
{
	for (int i = 0; f && i < f->n; i++) {
		vg_report_set_evidence(r, f->k[i]->evidence);
		if (prop < 0)
			vg_report_final(r, f->k[i]->mon, (uint32_t)f->k[i]->pid);
		else
			vg_report_final_prop(r, f->k[i]->mon,
					     (uint32_t)f->k[i]->pid, prop);
	}
}

void vg_follow_disable(struct vg_follow *f, int prop)
{
	for (int i = 0; f && i < f->n; i++)
		vg_monitor_disable(f->k[i]->mon, prop);
}

uint64_t vg_follow_count_fork(struct vg_follow *f)
{
	return ++f->forks + f->execs;
}

uint64_t vg_follow_count_exec(struct vg_follow *f)
{
	return f->forks + ++f->execs;
}

void vg_follow_counts(const struct vg_follow *f, uint64_t *forks,
		      uint64_t *execs)
{
	*forks = f ? f->forks : 0;
	*execs = f ? f->execs : 0;
}

bool vg_follow_launch_exec(struct vg_follow *f, uint64_t ino, uint32_t dev)
{
	if (f->launch_exec_seen)
		return false;
	f->launch_exec_seen = true;
	f->prog_ino = ino;
	f->prog_dev = dev;
	return true;
}

int vg_follow_is_program(const struct vg_follow *f, uint64_t ino,
			 uint32_t dev)
{
	if (!f || !f->launch_exec_seen || !f->prog_ino)
		return -1;
	return f->prog_ino == ino && f->prog_dev == dev;
}

/* A forked child's memory is a copy of its parent's: so are its slices.
 * Its monitor starts with every slice of the parent's not in a violation
 * state (those were reported, in the parent), variables and globals too.
 * A slice in a state that waits on a watchpoint is inconclusive in the
 * child: the watchpoints are the target's, not armed in it. */
struct kid_copy {
	const struct vg_spec *spec;
	struct vg_monitor *to;
	int failed;
};

static bool waits_on_watch(const struct vg_spec *spec, int prop, int state)
{
	const struct vg_property *p = &spec->props[prop];

	for (int t = 0; t < p->ntrans; t++)
		if (p->trans[t].from == state &&
		    vg_event_watches(&spec->events[p->trans[t].event]))
			return true;
	return false;
}

static void copy_slice(void *ctx, const struct vg_slice_view *s)
{
	struct kid_copy *k = ctx;
	const struct vg_spec *spec = k->spec;
	struct vg_err e = { 0 };

	if (spec->props[s->prop].states[s->state].kind == VG_STATE_VIOLATION)
		return;
	if (vg_monitor_set(k->to, s->prop, s->mask, s->params, s->state,
			   s->vars, &e)) {
		k->failed++;
		return;
	}
	if (s->inconclusive || waits_on_watch(spec, s->prop, s->state))
		vg_monitor_mark_slice_inconclusive(k->to, s->prop, s->mask,
						   s->params);
}

int vg_follow_copy_monitor(const struct vg_spec *spec,
			   struct vg_monitor *from, struct vg_monitor *to)
{
	struct kid_copy k = { .spec = spec, .to = to };
	struct vg_err e = { 0 };

	vg_monitor_foreach(from, copy_slice, &k);
	for (int p = 0; p < spec->nprops; p++) {
		const int64_t *g = vg_monitor_globals(from, p);

		for (int i = 0; g && i < spec->props[p].nglobals; i++)
			k.failed += !!vg_monitor_set_global(to, p, i, g[i], &e);
		if (vg_monitor_prop_inconclusive(from, p))
			vg_monitor_mark_inconclusive(to, p);
	}
	return k.failed;
}

/* A followed process exec'd: its memory is a new program's, so the
 * slices copied from its parent at the fork, and those of its old
 * program, are gone with it: listed first, then each set back to its
 * initial state (which frees it), not while the monitor's foreach walks
 * them. */
struct kid_slices {
	int n, cap;
	struct { int prop; uint32_t mask; uint64_t params[VG_MAX_PARAMS]; } *s;
};

static void note_slice(void *ctx, const struct vg_slice_view *v)
{
	struct kid_slices *k = ctx;

	if (k->n == k->cap) {
		int cap = k->cap ? 2 * k->cap : 64;
		void *p = realloc(k->s, cap * sizeof(*k->s));

		if (!p)
			return;
		k->s = p;
		k->cap = cap;
	}
	k->s[k->n].prop = v->prop;
	k->s[k->n].mask = v->mask;
	memcpy(k->s[k->n].params, v->params, sizeof(k->s[0].params));
	k->n++;
}

void vg_follow_forget_slices(const struct vg_spec *spec,
			     struct vg_monitor *m)
{
	struct kid_slices k = { 0 };
	struct vg_err e = { 0 };

	vg_monitor_foreach(m, note_slice, &k);
	for (int i = 0; i < k.n; i++) {
		const struct vg_property *p = &spec->props[k.s[i].prop];
		int64_t vars[p->nvars + 1];

		for (int v = 0; v < p->nvars; v++)
			vars[v] = p->vars[v].init;
		vg_monitor_set(m, k.s[i].prop, k.s[i].mask, k.s[i].params, 0,
			       vars, &e);
	}
	free(k.s);
}
