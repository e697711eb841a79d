/* vigil watch's side of the session: every process running one
 * executable (watch.h). The session calls it through the table at the
 * end of this file (feature/watch_ops.h) and is read through vg_run_*
 * and vg_watch_host_*.
 *
 * The session has no target of its own (pid 0). Each watched process is a
 * followed process of --follow-fork's kind (follow/follow_run.c): a monitor
 * and evidence of its own, uprobe links of its own (probe_follow.c). It
 * joins in one of three ways:
 *   - it execs the executable: the exec tracepoint (bpf/lifecycle.bpf.h,
 *     watch_exec) marks it followed and stops it before its first
 *     instruction; its VG_PROC_EXEC record attaches its links and lets it
 *     go, as vigil run's target starts;
 *   - it was running when vigil started: found in /proc and attached
 *     while it runs, as vigil attach does;
 *   - a watched process forked it: held at the fork as --follow-fork does,
 *     its monitor a copy of its parent's.
 * Its exit (VG_PROC_EXIT, after its exit event) reports its last verdicts
 * and frees its monitor, evidence and links. Beyond --max-procs at once a
 * process is let go unmonitored, counted and named.
 *
 * Why per-process links rather than one link per program and file for
 * every process (pid -1, filtered in BPF): a uprobe for any process puts
 * its int3 into every process mapping the file, and the spec's library
 * functions (malloc in libc) are mapped by every process on the machine,
 * each of which would then trap on every call. Per process, a start costs
 * the attach of its links (a few ms, during which it is held), once. */
#include "watch/watch_session.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/gdb.h"
#include "act/scenario.h"
#include "ckpt/ckpt.h"
#include "feature/feature.h"
#include "follow/follow.h"
#include "follow/follow_run.h"
#include "monitor/monitor.h"
#include "probe/jmp_stop.h"
#include "probe/probe.h"
#include "proc/guard.h"
#include "proc/procinfo.h"
#include "report/evidence.h"
#include "report/report.h"
#include "session/session.h"
#include "sym/symbolize.h"
#include "util/json.h"
#include "watch/watch_load.h"
#include "watchmatch/watchmatch.h"

/* processes said one by one as they come and go; then only counted */
#define VG_WATCH_SAID 20

/* vigil watch's own state, the session's one pointer for it (a vigil load
 * unit shares its session's, which counts for it): the session, its
 * counts, which processes it watches */
struct vg_watch_run {
	struct vg_run *run;
	const struct vg_session_opts *o;
	struct vg_watch_cfg cfg;
	struct vg_watch_stats stats;
	struct vg_watch_match *match;
};

/* vigil watch --tier=kernel: slices keyed by process in the kernel (the
 * session's options, and a unit's, which are a copy) */
static bool kernel_tier(const struct vg_run *run)
{
	return vg_watch_host_opts(run)->tier == VG_TIER_KERNEL;
}

static struct vg_follow *procs(const struct vg_watch_run *w)
{
	return vg_follow_host_procs(w->run);
}

static struct vg_probe *probe(const struct vg_watch_run *w)
{
	return vg_run_probe(w->run);
}

static struct vg_report *report(const struct vg_watch_run *w)
{
	return vg_run_report(w->run);
}

static bool namer(void *ctx, uint32_t pid, struct vg_report_proc *out)
{
	struct vg_run *run = ctx;
	const struct vg_kid *k = vg_follow_find(vg_follow_host_procs(run),
						(pid_t)pid);

	if (!k)
		return false;
	out->ns_pid = (uint32_t)k->ns_pid;
	out->cgroup = k->cgroup ? k->cgroup : "";
	return true;
}

void vg_watch_name_procs(struct vg_run *root, struct vg_report *r)
{
	vg_report_set_proc_namer(r, namer, root);
}

static void hook(struct vg_watch_run *w, const struct vg_kid *k, pid_t pid,
		 enum vg_watch_what what, int status)
{
	const struct vg_watch_hooks *h = w->cfg.hooks;
	struct vg_watch_proc wp = { .what = what, .pid = pid, .ns_pid = pid,
				    .cgroup = "", .status = status };

	if (!h || !h->process)
		return;
	if (k) {
		wp.ns_pid = k->ns_pid;
		wp.cgroup = k->cgroup ? k->cgroup : "";
		wp.violations = k->violations;
	}
	h->process(h->ctx, &wp);
}

/* text (the first few of each kind: n is the count of its kind, this
 * one included) and JSON (every one) */
static void say(struct vg_watch_run *w, const struct vg_kid *k, pid_t pid,
		const char *what, const char *detail)
{
	FILE *j = vg_report_json(report(w));
	uint64_t n = !strcmp(what, "refused") ? w->stats.refused
		     : !strcmp(what, "exited") ? w->stats.exited
		     : !strcmp(what, "left") ? 0
					     : w->stats.processes;

	if (n <= VG_WATCH_SAID && !w->o->quiet) {
		fprintf(stderr, "vigil: watch: pid %d", pid);
		if (k && k->ns_pid != pid)
			fprintf(stderr, " (pid %d in its pid namespace)",
				k->ns_pid);
		if (k && k->cgroup && k->cgroup[0])
			fprintf(stderr, ", cgroup %s", k->cgroup);
		fprintf(stderr, ": %s%s%s\n", what, detail ? ": " : "",
			detail ? detail : "");
		if (n == VG_WATCH_SAID)
			fprintf(stderr, "vigil: watch: further processes %s are only counted (--json lists each)\n",
				what);
	}
	if (!j)
		return;
	fprintf(j, "{\"type\":\"process\",\"what\":\"%s\",\"pid\":%d", what,
		pid);
	if (k) {
		fprintf(j, ",\"ns_pid\":%d,\"cgroup\":", k->ns_pid);
		vg_json_str(j, k->cgroup ? k->cgroup : "");
	}
	if (detail) {
		fputs(",\"detail\":", j);
		vg_json_str(j, detail);
	}
	fputs("}\n", j);
	fflush(j);
}

static void watch_free(void *state)
{
	struct vg_watch_run *w = state;

	if (w)
		vg_watch_match_free(w->match);
	free(w);
}

static int check(struct vg_run *run, const void *arg, void **state,
		 struct vg_err *e)
{
	const struct vg_session_opts *o = vg_watch_host_opts(run);
	const struct vg_spec *spec = vg_run_spec(run);
	const struct vg_watch_cfg *cfg = arg;
	struct vg_watch_run *w;
	const char *no = NULL;

	/* each refusal says why and what does it for one process
	 * (docs/reference/watch-and-containers.md) */
	if (o->dynamic)
		no = "--dynamic: a watched process gets all its probes when it is adopted (vigil attach --dynamic -p PID attaches them as slices need them, for one process)";
	else if (o->interactive)
		no = "--interactive: gdb takes one process (a stop reaction leaves the violating process stopped and prints the gdb command for it; vigil attach --interactive -p PID for one)";
	else if (o->record_path)
		no = "--record: a recording is one process's events (vigil attach --record FILE -p PID)";
	else if (o->fork_snapshots || o->state_path)
		no = "--snapshot=fork or a restored monitor state: these are for one process (vigil attach, vigil restore --monitor)";
	for (int i = 0; !no && i < spec->nevents; i++)
		if (vg_event_watches(&spec->events[i]))
			no = "watchpoint events (write, read, access, change): hardware watchpoints are armed per thread of one process (vigil attach -p PID)";
	for (int p = 0; !no && p < spec->nprops; p++)
		for (int r = 0; r < spec->props[p].nreactions; r++)
			for (int a = 0; a < spec->props[p].reactions[r].nactions; a++)
				if (spec->props[p].reactions[r].actions[a].kind == VG_ACT_RESTORE)
					no = "the restore reaction: it brings a checkpoint back in place of one process (the checkpoint reaction works per process; vigil restore DIR opens its image)";
	if (no)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "vigil watch does not take %s", no);
	if (!(w = calloc(1, sizeof(*w))))
		return vg_errf(e, "out of memory");
	*state = w;
	w->run = run;
	w->o = o;
	w->cfg = *cfg;
	if (!(w->match = vg_watch_match_new(o->watch_exe, cfg->lib,
					    cfg->same_build, e)))
		return -1;
	if (cfg->hooks && cfg->hooks->stats)
		*cfg->hooks->stats = w->stats;
	return 0;
}

static const struct vg_watch_match *match(void *state)
{
	return ((struct vg_watch_run *)state)->match;
}

static bool stopped(void *state)
{
	return ((struct vg_watch_run *)state)->stats.stopped;
}

static void stats_changed(struct vg_watch_run *w)
{
	if (w->stats.live > w->stats.max_live)
		w->stats.max_live = w->stats.live;
	if (w->cfg.hooks && w->cfg.hooks->stats)
		*w->cfg.hooks->stats = w->stats;
}

/* Is there room for one more? If not, pid is let go (a held one resumes),
 * counted and named. */
static bool room(void *state, pid_t pid)
{
	struct vg_watch_run *w = state;
	char why[96];

	if (w->stats.live < w->cfg.max_procs)
		return true;
	vg_probe_refuse(probe(w), pid);
	vg_watch_load_forget(w->run, pid, false);	/* vigil load's units */
	w->stats.refused++;
	stats_changed(w);
	snprintf(why, sizeof(why), "--max-procs %u reached, it runs unmonitored",
		 w->cfg.max_procs);
	say(w, NULL, pid, "refused", why);
	hook(w, NULL, pid, VG_WATCH_REFUSED, 0);
	return false;
}

/* pid becomes a watched process: its monitor, where it lives. */
static struct vg_kid *kid_new(struct vg_watch_run *w, pid_t pid)
{
	struct vg_proc_where where;
	struct vg_err e = { 0 };
	struct vg_kid *k;

	vg_watch_host_monitor_of(w->run, pid);	/* makes its monitor */
	if (!(k = vg_follow_find(procs(w), pid)))
		return NULL;	/* out of memory, said */
	k->gone = false;
	k->stopped = false;
	k->violations = 0;
	k->ns_pid = pid;
	free(k->cgroup);
	k->cgroup = NULL;
	if (!vg_proc_where(pid, &where, &e)) {
		k->ns_pid = where.ns_pid;
		k->cgroup = strdup(where.cgroup);
	}
	vg_guard_add(vg_watch_host_guard(w->run), pid);
	w->stats.processes++;
	w->stats.live++;
	stats_changed(w);
	return k;
}

/* Its verdicts, then its state goes. */
static void kid_end(struct vg_watch_run *w, struct vg_kid *k,
		    enum vg_watch_what what, int status, const char *detail)
{
	struct vg_monitor_stats ms;
	pid_t pid = k->pid;
	char note[160];

	vg_report_set_evidence(report(w), k->evidence);
	vg_report_final(report(w), k->mon, (uint32_t)pid);
	vg_report_set_evidence(report(w),
			       vg_run_evidence(w->run, vg_run_pid(w->run)));
	vg_monitor_stats(k->mon, &ms);
	if (ms.slices_refused) {
		snprintf(note, sizeof(note),
			 "%llu slices refused (--max-slices %u per process): its verdicts are inconclusive",
			 (unsigned long long)ms.slices_refused,
			 w->o->max_slices);
		fprintf(stderr, "vigil: watch: pid %d: %s\n", pid, note);
	}
	if (what == VG_WATCH_EXITED)
		w->stats.exited++;
	w->stats.live--;
	stats_changed(w);
	say(w, k, pid, what == VG_WATCH_EXITED ? "exited" : "left", detail);
	hook(w, k, pid, what, status);
	/* vigil load's units: theirs too (an exit: their own record,
	 * after their last events of it, watch_load.c) */
	if (what != VG_WATCH_EXITED)
		vg_watch_load_forget(w->run, pid, true);
	vg_follow_remove(procs(w), k);
	vg_proc_root_forget(pid);
	vg_ckpt_run_watch_forget(vg_watch_host_ckpt(w->run), pid);
}

static void drop(void *state, pid_t pid, const char *detail)
{
	struct vg_watch_run *w = state;
	struct vg_kid *k = vg_follow_find(procs(w), pid);

	vg_probe_refuse(probe(w), pid);
	if (k)
		kid_end(w, k, VG_WATCH_LEFT, 0, detail);
	else
		vg_watch_load_forget(w->run, pid, false);
}

/* Follow pid: held (at its exec) or running (found in /proc). */
static void adopt(struct vg_watch_run *w, pid_t pid, bool held, bool running)
{
	struct vg_err e = { 0 };
	struct vg_kid *k;

	if (vg_follow_find(procs(w), pid)) {	/* found twice (an exec raced the
					 * scan): the exec's links win */
		if (held)
			vg_probe_follow(probe(w), pid, &e);
		return;
	}
	if (!room(w, pid))
		return;
	if (!(k = kid_new(w, pid))) {
		vg_probe_refuse(probe(w), pid);
		return;
	}
	/* vigil load's units: their probes in before it runs on */
	vg_watch_load_adopt(w->run, pid);
	if (held ? vg_probe_follow(probe(w), pid, &e)
		 : vg_probe_adopt(probe(w), pid, &e)) {
		fprintf(stderr, "vigil: watch: pid %d: %s: it runs unmonitored\n",
			pid, e.msg);
		k->gone = true;
		kid_end(w, k, VG_WATCH_LEFT, 0, "its probes could not be attached");
		return;
	}
	{
		char own[512], detail[640];

		snprintf(detail, sizeof(detail), "%s",
			 running ? "running already"
			 : w->cfg.lib ? "held as it mapped the library until its probes were in"
				      : "held at its exec until its probes were in");
		/* a container's own copies (probe_remap.c) */
		if (vg_probe_own_files(probe(w), pid, own, sizeof(own)))
			snprintf(detail + strlen(detail),
				 sizeof(detail) - strlen(detail),
				 "; %s", own);
		say(w, k, pid, running ? "attached" : "started", detail);
	}
	hook(w, k, pid, running ? VG_WATCH_ATTACHED : VG_WATCH_STARTED, 0);
}

static void forked(void *state, pid_t child)
{
	struct vg_watch_run *w = state;
	struct vg_kid *k = vg_follow_find(procs(w), child);

	if (!k)
		return;
	/* its monitor exists (a copy of its parent's): where it lives */
	k->gone = false;
	k->violations = 0;
	k->stopped = false;
	{
		struct vg_proc_where where;
		struct vg_err e = { 0 };

		k->ns_pid = child;
		if (!vg_proc_where(child, &where, &e)) {
			k->ns_pid = where.ns_pid;
			free(k->cgroup);
			k->cgroup = strdup(where.cgroup);
		}
	}
	w->stats.processes++;
	w->stats.live++;
	stats_changed(w);
	say(w, k, child, "forked", NULL);
	hook(w, k, child, VG_WATCH_FORKED, 0);
}

static int open_watch(void *state, struct vg_err *e)
{
	struct vg_watch_run *w = state;
	DIR *d;
	struct dirent *de;

	vg_watch_name_procs(w->run, report(w));
	/* the exec tracepoint is in already: a process that execs now is
	 * held there; one found here too is adopted once */
	if (!(d = opendir("/proc")))
		return vg_errf(e, "cannot list /proc: %m");
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid() ||
		    !vg_watch_match_running(w->match, (pid_t)pid))
			continue;
		adopt(w, (pid_t)pid, false, true);
	}
	closedir(d);
	if (!w->o->quiet)
		fprintf(stderr, "vigil: watch: %s: %llu processes %s, monitored; those started later are held at %s until their probes are in\n",
			w->o->watch_exe,
			(unsigned long long)w->stats.live,
			w->cfg.lib ? "mapping it" : "running it",
			w->cfg.lib ? "their mapping of it"
				   : "their exec");
	return 0;
}

static int process(void *state, const struct vg_rec_proc *p)
{
	struct vg_watch_run *w = state;
	pid_t pid = (pid_t)p->h.pid;
	struct vg_kid *k;

	if (p->h.event == VG_PROC_EXIT) {
		pid = (pid_t)p->child;
		vg_probe_unfollow(probe(w), pid);
		if (kernel_tier(w->run))
			vg_probe_forget_kslices(probe(w), pid);
		if ((k = vg_follow_find(procs(w), pid)))
			kid_end(w, k, VG_WATCH_EXITED, (int)p->dev, NULL);
		return 0;
	}
	if (p->h.event != VG_PROC_EXEC)
		return 0;	/* forks: session/session_procs.c */
	k = vg_follow_find(procs(w), pid);
	if (!k) {
		/* --same-build: held for its file name; another build goes */
		if ((p->h.flags & VG_RF_FOLLOWED) && !w->cfg.lib &&
		    !vg_watch_match_exec(w->match, pid, p->dev, p->ino)) {
			vg_probe_refuse(probe(w), pid);
			vg_watch_load_forget(w->run, pid, false);
			return 0;
		}
		if (p->h.flags & VG_RF_FOLLOWED)
			adopt(w, pid, p->h.flags & VG_RF_FORKSTOP, false);
		return 0;
	}
	/* a watched process exec'd: the watched program again (a new
	 * history), or another one (no longer watched) */
	if (kernel_tier(w->run))
		vg_probe_forget_kslices(probe(w), pid);
	if (vg_watch_match_exec(w->match, pid, p->dev, p->ino)) {
		vg_follow_remove(procs(w), k);
		w->stats.live--;
		w->stats.processes--;	/* the same process */
		if ((k = kid_new(w, pid)))
			say(w, k, pid, "started", "exec'd the program again: a new history");
		vg_watch_load_exec(w->run, pid);
		return 0;
	}
	vg_probe_refuse(probe(w), pid);
	{
		char path[sizeof(p->path) + 16];

		snprintf(path, sizeof(path), "exec'd %.*s", (int)sizeof(p->path), p->path);
		kid_end(w, k, VG_WATCH_LEFT, 0, path);
	}
	return 0;
}

/* run: the session, or a vigil load unit of it, whose spec, scenario and
 * probes the transition is of; the process is the session's */
static void transition(void *state, struct vg_run *run,
		       const struct vg_slice_view *s, int to,
		       const struct vg_mon_event *ev)
{
	struct vg_watch_run *w = state;
	const struct vg_property *p = &vg_run_spec(run)->props[s->prop];
	const struct vg_watch_hooks *h = w->cfg.hooks;
	struct vg_scenario *sc = vg_run_scenario(run);
	struct vg_kid *k = vg_follow_find(procs(w), (pid_t)ev->pid);
	bool stopped = vg_scenario_target_stopped(sc);

	/* a checkpoint it asked for: taken after the drain, of it alone (a
	 * unit takes none, load/load.c) */
	if (run == w->run)
		vg_ckpt_run_watch_note(vg_watch_host_ckpt(run), (pid_t)ev->pid);
	if (p->states[to].kind == VG_STATE_VIOLATION) {
		w->stats.violations++;
		if (k)
			k->violations++;
		stats_changed(w);
		if (h && h->verdict) {
			struct vg_watch_proc wp = { .what = VG_WATCH_STARTED,
						    .pid = (pid_t)ev->pid,
						    .ns_pid = (pid_t)ev->pid,
						    .cgroup = "" };
			struct vg_watch_verdict v = {
				.proc = &wp, .property = p->name,
				.state = p->states[to].name,
				.params = s->params, .nparams = p->nparams,
				.tid = ev->tid, .stopped = stopped,
			};

			if (k) {
				wp.ns_pid = k->ns_pid;
				wp.cgroup = k->cgroup ? k->cgroup : "";
				wp.violations = k->violations;
			}
			h->verdict(h->ctx, &v);
		}
	}
	if (!stopped && !vg_scenario_target_killed(sc))
		return;
	if (stopped) {
		/* this process is gdb's now: its probes go (no int3 in the
		 * text gdb reads), its slices stay until it ends; the others
		 * are watched on */
		const char *why;
		pid_t spid = vg_scenario_stop_pid(sc);
		pid_t tid = vg_scenario_stop_tid(sc, &why);
		char gdb[4200];
		struct vg_err ge = { 0 };

		vg_probe_unfollow(probe(w), spid);
		vg_watch_load_unfollow(w->run, spid);	/* vigil load's */
		vg_guard_keep(vg_watch_host_guard(w->run), spid); /* the user's now */
		w->stats.stopped++;
		if ((k = vg_follow_find(procs(w), spid)))
			k->stopped = true;
		stats_changed(w);
		struct vg_gdb_pc_mend mend[VG_GDB_MAX_MENDS];
		/* this process's stop event, in the probes of run */
		int stop_event = vg_watch_host_take_stop(run);
		int nmend = !stop_event ? 0 :
			vg_jmp_stop_mends(vg_run_probe(run), spid,
					  stop_event - 1, mend,
					  VG_GDB_MAX_MENDS);

		if (vg_gdb_prepare_mend(spid, tid ? tid : spid, why, 0, mend,
					nmend, gdb, sizeof(gdb), &ge))
			fprintf(stderr, "vigil: %s\n", ge.msg);
		else
			fprintf(stderr, "vigil: watch: pid %d is left stopped at the violation (its probes removed; the other processes are watched on). Debug it with:\n  %s\n",
				spid, gdb);
		hook(w, k, spid, VG_WATCH_STOPPED, 0);
	}
	/* the next process's reactions start afresh */
	vg_scenario_next_process(sc);
}

static bool done(void *state)
{
	const struct vg_watch_hooks *h = ((struct vg_watch_run *)state)->cfg.hooks;

	return h && h->keep_going && !h->keep_going(h->ctx);
}

static void finish(void *state)
{
	struct vg_watch_run *w = state;
	struct vg_watch_stats *st = &w->stats;
	FILE *j;

	/* the ones still running: their verdicts so far (they run on) */
	while (vg_follow_count(procs(w)) > 0) {
		struct vg_kid *k = vg_follow_at(procs(w),
						vg_follow_count(procs(w)) - 1);

		kid_end(w, k, VG_WATCH_LEFT, 0,
			k->stopped ? "vigil ends, it stays stopped for gdb"
				   : "vigil ends, it runs on");
	}
	fprintf(stderr, "vigil: watch: %llu processes monitored (at most %llu at once, --max-procs %u), %llu refused, %llu exited, %llu violations, %llu left stopped\n",
		(unsigned long long)st->processes,
		(unsigned long long)st->max_live, w->cfg.max_procs,
		(unsigned long long)st->refused, (unsigned long long)st->exited,
		(unsigned long long)st->violations,
		(unsigned long long)st->stopped);
	if ((j = vg_report_json(report(w)))) {
		fprintf(j, "{\"type\":\"watch\",\"exe\":");
		vg_json_str(j, w->o->watch_exe);
		fprintf(j, ",\"processes\":%llu,\"max_at_once\":%llu,\"max_procs\":%u,\"refused\":%llu,\"exited\":%llu,\"violations\":%llu,\"stopped\":%llu}\n",
			(unsigned long long)st->processes,
			(unsigned long long)st->max_live, w->cfg.max_procs,
			(unsigned long long)st->refused,
			(unsigned long long)st->exited,
			(unsigned long long)st->violations,
			(unsigned long long)st->stopped);
		fflush(j);
	}
}

/* a kernel-tier step of pid in run (the session or a unit): the
 * process's own monitor and evidence */
static void kproc(void *state, struct vg_run *run, pid_t pid,
		  struct vg_monitor **mon, struct vg_evidence **x)
{
	const struct vg_kid *k = vg_follow_find(vg_follow_host_procs(run), pid);

	if (!k)
		return;
	*mon = k->mon;
	*x = k->evidence;
}

static void unfollowed_fork(void *state, pid_t parent, pid_t child)
{
	struct vg_watch_run *w = state;
	char why[128];

	vg_probe_refuse(probe(w), child);
	vg_watch_load_forget(w->run, child, false);
	w->stats.refused++;
	stats_changed(w);
	snprintf(why, sizeof(why),
		 "a fork of pid %d, not followed in the kernel tier (--tier=user follows forks)",
		 parent);
	say(w, NULL, child, "refused", why);
	hook(w, NULL, child, VG_WATCH_REFUSED, 0);
}

static void mirror_one(void *ctx, pid_t tgid, int prop, const uint64_t *key,
		       int state, const int64_t *vars)
{
	struct vg_run *run = ctx;
	const struct vg_property *p = &vg_run_spec(run)->props[prop];
	uint64_t params[VG_MAX_PARAMS] = { key[0], key[1] };
	struct vg_err e;
	const struct vg_kid *k = vg_follow_find(vg_follow_host_procs(run), tgid);

	if (k)
		vg_monitor_set(k->mon, prop, (1u << p->nparams) - 1,
			       params, state, vars, &e);
}

static void mirror(void *state, struct vg_run *run)
{
	if (kernel_tier(run))
		vg_probe_foreach_kslice_proc(vg_run_probe(run), mirror_one, run);
}

static bool on_signal(void *state, int sig)
{
	const struct vg_watch_hooks *h = ((struct vg_watch_run *)state)->cfg.hooks;

	return h && h->on_signal && h->on_signal(h->ctx, sig);
}

static struct vg_symbolizer *symbolizer(void *state, struct vg_run *run,
					pid_t pid)
{
	struct vg_kid *k = vg_follow_find(vg_follow_host_procs(run), pid);

	if (!k)
		return NULL;
	if (!k->sym && (k->sym = vg_symbolizer_new(pid)))
		vg_symbolizer_add_file(k->sym, vg_run_exe(run));
	return k->sym;
}

/* --- vigil load's units: watch_load.c, with the session as root --- */

static int unit_start(void *state, struct vg_run *unit, struct vg_err *e)
{
	return vg_watch_load_start(((struct vg_watch_run *)state)->run, unit,
				   e);
}

static int unit_process(void *state, struct vg_run *unit,
			const struct vg_rec_proc *p)
{
	return vg_watch_load_process(unit, p);
}

static void unit_final(void *state, struct vg_run *unit)
{
	vg_watch_load_final(unit);
}

static void units_forked(void *state, pid_t child)
{
	vg_watch_load_forked(((struct vg_watch_run *)state)->run, child);
}

static void units_forget(void *state, pid_t pid, bool verdicts)
{
	vg_watch_load_forget(((struct vg_watch_run *)state)->run, pid,
			     verdicts);
}

static void units_pause(void *state, pid_t pid)
{
	vg_watch_load_pause(((struct vg_watch_run *)state)->run, pid);
}

static void units_unpause(void *state, pid_t pid)
{
	vg_watch_load_unpause(((struct vg_watch_run *)state)->run, pid);
}

const struct vg_session_watch_ops vg_watch_session_ops = {
	.check = check,
	.match = match,
	.open = open_watch,
	.process = process,
	.room = room,
	.forked = forked,
	.unfollowed_fork = unfollowed_fork,
	.transition = transition,
	.kproc = kproc,
	.symbolizer = symbolizer,
	.mirror = mirror,
	.signal = on_signal,
	.done = done,
	.drop = drop,
	.stopped = stopped,
	.finish = finish,
	.free = watch_free,
	.unit_start = unit_start,
	.unit_process = unit_process,
	.unit_final = unit_final,
	.units_forked = units_forked,
	.units_forget = units_forget,
	.units_pause = units_pause,
	.units_unpause = units_unpause,
};
