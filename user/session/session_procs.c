/* The target's process tree (user/session/session_internal.h): the forks
 * and execs it reports, and with --follow-fork the descendants monitored
 * beside it, each with its own monitor and evidence. */
#include "session_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "act/scenario.h"
#include "ckpt/ckpt.h"
#include "monitor/monitor.h"
#include "proc/guard.h"
#include "report/evidence.h"
#include "report/report.h"
#include "live_load.h"
#include "symval.h"
#include "watch_load.h"
#include "watchset.h"

/* --follow-fork runs every property in the user tier (the kernel tier's
 * slices are keyed by their parameters only, and a child has the parent's
 * addresses), and does not mix with what saves or replays one process. */
int vg_session_follow_check(struct session *ss, char (*why)[256],
			    struct vg_err *e)
{
	const char *no = NULL;

	if (!ss->o->follow_forks || vg_session_watch_kernel(ss))
		return 0;	/* (watch's own checks: session_watch.c) */
	if (ss->o->tier == VG_TIER_KERNEL)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s runs every property in the user tier (kernel-tier slices do not tell processes apart): not with --tier=kernel",
				    ss->o->watch_exe ? "vigil watch" : "--follow-fork");
	if (ss->o->watch_exe)
		;	/* its own refusals (session_watch.c); its checkpoints
			 * are per process (ckpt/watch_ckpt.c) */
	else if (ss->o->record_path)
		no = "--record";
	else if (ss->o->fork_snapshots || ss->o->state_path ||
		 ss->o->on_violation == VG_OV_CHECKPOINT)
		no = "checkpoints";
	for (int p = 0; !no && !ss->o->watch_exe && p < ss->spec->nprops; p++)
		for (int r = 0; r < ss->spec->props[p].nreactions; r++)
			for (int a = 0; a < ss->spec->props[p].reactions[r].nactions; a++) {
				int k = ss->spec->props[p].reactions[r].actions[a].kind;

				if (k == VG_ACT_CHECKPOINT || k == VG_ACT_RESTORE)
					no = "checkpoint and restore reactions";
			}
	if (no)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s does not go with %s: they concern one process",
				    ss->o->watch_exe ? "vigil watch" : "--follow-fork",
				    no);
	for (int p = 0; p < ss->spec->nprops; p++) {
		ss->kernel[p] = false;
		snprintf(why[p], sizeof(why[p]),
			 "%s (kernel-tier slices do not tell processes apart)",
			 ss->o->watch_exe ? "vigil watch" : "--follow-fork");
	}
	return 0;
}

/* Apart from vg_session_monitor_of, which runs for every event: with
 * this in it, gcc cleared the 4 KB vg_err on every call (a fifth of
 * vigil's CPU in the user tier). */
static struct vg_monitor *kid_monitor_new(struct session *ss, pid_t pid)
{
	struct vg_monitor_opts mo = { .max_slices = ss->o->max_slices };
	struct vg_monitor_hooks hooks = { .ctx = ss,
					  .transition = vg_session_on_transition };
	struct vg_err e = { 0 };
	struct vg_evidence *x;
	struct vg_monitor *m;
	bool user[ss->spec->nprops + 1];
	void *v;

	/* (vigil watch --tier=kernel) kernel-tier properties are mirrored,
	 * not evaluated, as in the target's monitor */
	for (int i = 0; i < ss->spec->nprops; i++)
		user[i] = !ss->kernel[i];
	mo.evaluate = user;
	v = realloc(ss->kids, (ss->nkids + 1) * sizeof(*ss->kids));
	if (v)
		ss->kids = v;
	/* vigil watch: a smaller ring per process (its memory is touched
	 * as the process runs: 64k steps of a busy process were 2.5 MB) */
	x = v ? vg_evidence_new(ss->spec, ss->o->watch_exe ? 4096 : 0,
				ss->o->evidence) : NULL;
	m = x ? vg_monitor_new(ss->spec, &mo, &hooks, &e) : NULL;
	if (!m) {
		vg_evidence_free(x);
		fprintf(stderr, "vigil: no monitor for pid %d (%s): its events go to the target's\n",
			pid, e.msg[0] ? e.msg : "out of memory");
		return ss->mon;
	}
	vg_evidence_set_stacks(x, vg_session_event_stack, ss);
	/* vigil unload of a property the session started with (vigil
	 * watch): not in the processes that come later either */
	for (int i = 0; vg_load_gone(ss) && i < ss->spec->nprops; i++)
		if (vg_load_gone(ss)[i])
			vg_monitor_disable(m, i);
	memset(&ss->kids[ss->nkids], 0, sizeof(ss->kids[0]));
	ss->kids[ss->nkids].ns_pid = pid;
	ss->kids[ss->nkids].pid = pid;
	ss->kids[ss->nkids].gone = false;
	ss->kids[ss->nkids].evidence = x;
	ss->kids[ss->nkids++].mon = m;
	return m;
}

/* --follow-fork: each followed process has a monitor of its own, made at
 * its first event, so that its slices (the same addresses, after a fork)
 * are not the parent's. Out of memory, the target's monitor takes its
 * events, and vigil says so. */
struct vg_monitor *vg_session_monitor_of(struct session *ss, pid_t pid)
{
	if (pid == ss->pid || !ss->o->follow_forks)
		return ss->mon;
	for (int i = 0; i < ss->nkids; i++)
		if (ss->kids[i].pid == pid)
			return ss->kids[i].mon;
	return kid_monitor_new(ss, pid);
}

struct vg_evidence *vg_session_evidence_of(const struct session *ss,
					   pid_t pid)
{
	for (int i = 0; pid != ss->pid && i < ss->nkids; i++)
		if (ss->kids[i].pid == pid)
			return ss->kids[i].evidence;
	return ss->evidence;
}

/* A forked child's memory is a copy of its parent's: so are its slices.
 * Its monitor starts with every slice of the parent's not in a violation
 * state (those were reported, in the parent), variables and globals too.
 * A slice in a state that waits on a watchpoint is inconclusive in the
 * child: the watchpoints are the target's, not armed in it. */
struct kid_copy {
	struct session *ss;
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
	const struct vg_spec *spec = k->ss->spec;
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

static void kid_from_parent(struct session *ss, pid_t parent, pid_t child)
{
	struct vg_monitor *from = vg_session_monitor_of(ss, parent);
	struct vg_monitor *to = vg_session_monitor_of(ss, child);
	struct kid_copy k = { .ss = ss, .to = to };
	struct vg_err e = { 0 };

	if (to == ss->mon || to == from)
		return;		/* no monitor of its own (said already) */
	vg_monitor_foreach(from, copy_slice, &k);
	for (int p = 0; p < ss->spec->nprops; p++) {
		const int64_t *g = vg_monitor_globals(from, p);

		for (int i = 0; g && i < ss->spec->props[p].nglobals; i++)
			k.failed += !!vg_monitor_set_global(to, p, i, g[i], &e);
		if (vg_monitor_prop_inconclusive(from, p))
			vg_monitor_mark_inconclusive(to, p);
	}
	if (k.failed)
		fprintf(stderr, "vigil: pid %d: %d of its parent's slices could not be copied (out of memory)\n",
			child, k.failed);
}

void vg_session_kid_copy(struct session *ss, pid_t parent, pid_t child)
{
	kid_from_parent(ss, parent, child);
}

/* A followed process exec'd: its memory is a new program's, so the
 * slices copied from its parent at the fork, and those of its old
 * program, are gone with it (each set back to its initial state, which
 * frees it). */
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

static void kid_forget(struct session *ss, pid_t pid)
{
	struct kid_slices k = { 0 };
	struct vg_monitor *m = NULL;
	struct vg_err e = { 0 };

	for (int i = 0; i < ss->nkids; i++)
		if (ss->kids[i].pid == pid)
			m = ss->kids[i].mon;
	if (!m)
		return;
	vg_monitor_foreach(m, note_slice, &k);
	for (int i = 0; i < k.n; i++) {
		const struct vg_property *p = &ss->spec->props[k.s[i].prop];
		int64_t vars[p->nvars + 1];

		for (int v = 0; v < p->nvars; v++)
			vars[v] = p->vars[v].init;
		vg_monitor_set(m, k.s[i].prop, k.s[i].mask, k.s[i].params, 0,
			       vars, &e);
	}
	free(k.s);
}

bool vg_session_kids_running(struct session *ss)
{
	for (int i = 0; i < ss->nkids; i++) {
		char path[64], st[512], *c;
		FILE *f;
		bool alive;

		if (ss->kids[i].gone)
			continue;
		/* its exit record may have been lost: /proc says too */
		snprintf(path, sizeof(path), "/proc/%d/stat", ss->kids[i].pid);
		f = fopen(path, "r");
		alive = f && fgets(st, sizeof(st), f) &&
			(c = strrchr(st, ')')) && c[1] && c[2] != 'Z' &&
			c[2] != 'X';
		if (f)
			fclose(f);
		if (alive)
			return true;
		ss->kids[i].gone = true;
	}
	return false;
}

/* The target (or a followed process) forked or exec'd, or a followed
 * process ended. vigil run's own exec of the program is the start of the
 * run, not news. */
int vg_session_on_process(struct session *ss, const struct vg_rec_proc *p)
{
	char path[sizeof(p->path)];
	struct stat st;
	bool same;

	if (ss->watch_root)	/* a vigil load unit in vigil watch */
		return vg_watch_unit_process(ss, p);
	if (ss->o->watch_exe && p->h.event != VG_PROC_FORK)
		return vg_session_watch_process(ss, p);
	if (p->h.event == VG_PROC_EXIT) {	/* a followed process ended */
		vg_probe_unfollow(ss->probe, (pid_t)p->child);
		for (int i = 0; i < ss->nkids; i++)
			if (ss->kids[i].pid == (pid_t)p->child)
				ss->kids[i].gone = true;
		return 0;
	}
	if (p->h.event == VG_PROC_FORK) {
		bool followed = p->h.flags & VG_RF_FOLLOWED;

		if (vg_ckpt_run_is_snapshot(ss->ckpt, (pid_t)p->child))
			return 0;
		/* first, since the child is held stopped until then (and let
		 * go even if this fails) */
		if (followed && ss->o->watch_exe &&
		    !vg_session_watch_room(ss, (pid_t)p->child))
			return 0;	/* let go, said */
		if (followed && vg_session_watch_kernel(ss)) {
			/* the parent's kernel-tier slices cannot be copied
			 * for it while the parent runs on */
			vg_session_watch_unfollowed_fork(ss, (pid_t)p->h.pid,
							 (pid_t)p->child);
			return 0;
		}
		if (followed) {
			struct vg_err fe = { 0 };

			kid_from_parent(ss, (pid_t)p->h.pid, (pid_t)p->child);
			vg_guard_add(ss->guard, (pid_t)p->child);
			/* vigil load's units: their probes in before it runs */
			if (ss->o->watch_exe)
				vg_watch_load_forked(ss, (pid_t)p->child);
			if (vg_probe_follow(ss->probe, (pid_t)p->child, &fe)) {
				fprintf(stderr, "vigil: pid %u: %s: it runs unmonitored\n",
					p->child, fe.msg);
				if (ss->o->watch_exe)
					vg_watch_load_forget(ss, (pid_t)p->child, false);
				followed = false;
			} else if (ss->o->watch_exe) {
				vg_session_watch_forked(ss, (pid_t)p->child);
			}
		}
		vg_report_process(ss->report, VG_PROC_FORK, p->h.pid, p->child,
				  NULL, followed, ++ss->forks + ss->execs);
		return 0;
	}
	if (!ss->o->pid && !ss->launch_exec_seen) {
		/* the program is loaded, stopped there for its watchpoints
		 * (bpf/vigil/lifecycle.bpf.c, stop_at_exec) */
		ss->launch_exec_seen = true;
		vg_symval_exec(ss->symval, ss->exe, p->start_code,
			       p->interp_base);
		if (!vg_probe_has_global_watches(ss->probe))
			return 0;
		if (vg_watchset_start(ss->ws, ss->err)) {
			/* it has run none of its code: end it rather than let
			 * it run unwatched */
			kill(ss->pid, SIGKILL);
			return -1;
		}
		kill(ss->pid, SIGCONT);
		return 0;
	}
	memcpy(path, p->path, sizeof(path));
	path[sizeof(path) - 1] = 0;
	/* the same file as the program the probes are on? (the path may be
	 * /proc/self/exe, or a link) */
	same = !stat(ss->exe, &st) && st.st_ino == p->ino &&
	       major(st.st_dev) == p->dev >> 20 &&
	       minor(st.st_dev) == (p->dev & 0xfffff);
	if (ss->o->follow_forks && (pid_t)p->h.pid != ss->pid)
		kid_forget(ss, (pid_t)p->h.pid);
	if (same && (pid_t)p->h.pid == ss->pid)	/* its globals moved */
		vg_symval_exec(ss->symval, ss->exe, p->start_code,
			       p->interp_base);
	vg_report_process(ss->report, VG_PROC_EXEC, p->h.pid, 0, path, same,
			  ss->forks + ++ss->execs);
	return 0;
}
