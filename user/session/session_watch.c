/* vigil watch: every process running one executable (user/watch/watch.h).
 *
 * The session has no target of its own (pid 0). Each watched process is a
 * followed process of --follow-fork's kind (session_procs.c): a monitor
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
#include "session_internal.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/gdb.h"
#include "act/scenario.h"
#include "follow/follow.h"
#include "monitor/monitor.h"
#include "proc/guard.h"
#include "probe/jmp_stop.h"
#include "proc/procinfo.h"
#include "report/evidence.h"
#include "report/report.h"
#include "sym/symbolize.h"
#include "util/json.h"
#include "watchmatch/watchmatch.h"
#include "watch_hooks.h"
#include "ckpt/ckpt.h"
#include "watch_load.h"
#include <unistd.h>

/* processes said one by one as they come and go; then only counted */
#define VG_WATCH_SAID 20

/* vigil watch's own state, the session's watch (NULL outside vigil
 * watch, and in a vigil load unit, which counts in its root's): its
 * counts, which processes it watches */
struct vg_session_watch {
	struct vg_watch_stats stats;
	struct vg_watch_match *match;
};

const struct vg_watch_match *vg_session_watch_match(const struct session *ss)
{
	return ss->watch ? ss->watch->match : NULL;
}

bool vg_session_watch_stopped(const struct session *ss)
{
	return ss->watch && ss->watch->stats.stopped;
}

static bool namer(void *ctx, uint32_t pid, struct vg_report_proc *out)
{
	struct session *ss = ctx;
	const struct vg_kid *k = vg_follow_find(ss->procs, (pid_t)pid);

	if (!k)
		return false;
	out->ns_pid = (uint32_t)k->ns_pid;
	out->cgroup = k->cgroup ? k->cgroup : "";
	return true;
}

static void hook(struct session *ss, const struct vg_kid *k, pid_t pid,
		 enum vg_watch_what what, int status)
{
	const struct vg_watch_hooks *h = ss->o->watch_hooks;
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
static void say(struct session *ss, const struct vg_kid *k, pid_t pid,
		const char *what, const char *detail)
{
	FILE *j = vg_report_json(ss->report);
	uint64_t n = !strcmp(what, "refused") ? ss->watch->stats.refused
		     : !strcmp(what, "exited") ? ss->watch->stats.exited
		     : !strcmp(what, "left") ? 0
					     : ss->watch->stats.processes;

	if (n <= VG_WATCH_SAID && !ss->o->quiet) {
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

void vg_session_watch_namer(struct session *ss, struct vg_report *r)
{
	vg_report_set_proc_namer(r, namer, ss);
}

int vg_session_watch_check(struct session *ss, struct vg_err *e)
{
	const char *no = NULL;

	if (!ss->o->watch_exe)
		return 0;
	/* each refusal says why and what does it for one process
	 * (docs/reference/watch-and-containers.md) */
	if (ss->o->dynamic)
		no = "--dynamic: a watched process gets all its probes when it is adopted (vigil attach --dynamic -p PID attaches them as slices need them, for one process)";
	else if (ss->o->interactive)
		no = "--interactive: gdb takes one process (a stop reaction leaves the violating process stopped and prints the gdb command for it; vigil attach --interactive -p PID for one)";
	else if (ss->o->record_path)
		no = "--record: a recording is one process's events (vigil attach --record FILE -p PID)";
	else if (ss->o->fork_snapshots || ss->o->state_path)
		no = "--snapshot=fork or a restored monitor state: these are for one process (vigil attach, vigil restore --monitor)";
	for (int i = 0; !no && i < ss->spec->nevents; i++)
		if (vg_event_watches(&ss->spec->events[i]))
			no = "watchpoint events (write, read, access, change): hardware watchpoints are armed per thread of one process (vigil attach -p PID)";
	for (int p = 0; !no && p < ss->spec->nprops; p++)
		for (int r = 0; r < ss->spec->props[p].nreactions; r++)
			for (int a = 0; a < ss->spec->props[p].reactions[r].nactions; a++)
				if (ss->spec->props[p].reactions[r].actions[a].kind == VG_ACT_RESTORE)
					no = "the restore reaction: it brings a checkpoint back in place of one process (the checkpoint reaction works per process; vigil restore DIR opens its image)";
	if (no)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "vigil watch does not take %s", no);
	if (!(ss->watch = calloc(1, sizeof(*ss->watch))))
		return vg_errf(e, "out of memory");
	if (!(ss->watch->match = vg_watch_match_new(ss->o->watch_exe,
						    ss->o->watch_lib,
						    ss->o->watch_same_build,
						    e)))
		return -1;
	if (ss->o->watch_hooks && ss->o->watch_hooks->stats)
		*ss->o->watch_hooks->stats = ss->watch->stats;
	return 0;
}

static void stats_changed(struct session *ss)
{
	if (ss->watch->stats.live > ss->watch->stats.max_live)
		ss->watch->stats.max_live = ss->watch->stats.live;
	if (ss->o->watch_hooks && ss->o->watch_hooks->stats)
		*ss->o->watch_hooks->stats = ss->watch->stats;
}

/* Is there room for one more? If not, pid is let go (a held one resumes),
 * counted and named. */
static bool room(struct session *ss, pid_t pid)
{
	char why[96];

	if (ss->watch->stats.live < ss->o->max_procs)
		return true;
	vg_probe_refuse(ss->probe, pid);
	vg_watch_load_forget(ss, pid, false);	/* vigil load's units */
	ss->watch->stats.refused++;
	stats_changed(ss);
	snprintf(why, sizeof(why), "--max-procs %u reached, it runs unmonitored",
		 ss->o->max_procs);
	say(ss, NULL, pid, "refused", why);
	hook(ss, NULL, pid, VG_WATCH_REFUSED, 0);
	return false;
}

bool vg_session_watch_room(struct session *ss, pid_t child)
{
	return room(ss, child);
}

/* pid becomes a watched process: its monitor, where it lives. */
static struct vg_kid *kid_new(struct session *ss, pid_t pid)
{
	struct vg_proc_where w;
	struct vg_err e = { 0 };
	struct vg_kid *k;

	vg_session_monitor_of(ss, pid);	/* makes its monitor */
	if (!(k = vg_follow_find(ss->procs, pid)))
		return NULL;	/* out of memory, said */
	k->gone = false;
	k->stopped = false;
	k->violations = 0;
	k->ns_pid = pid;
	free(k->cgroup);
	k->cgroup = NULL;
	if (!vg_proc_where(pid, &w, &e)) {
		k->ns_pid = w.ns_pid;
		k->cgroup = strdup(w.cgroup);
	}
	vg_guard_add(ss->guard, pid);
	ss->watch->stats.processes++;
	ss->watch->stats.live++;
	stats_changed(ss);
	return k;
}

/* Its verdicts, then its state goes. */
static void kid_end(struct session *ss, struct vg_kid *k,
		    enum vg_watch_what what, int status, const char *detail)
{
	struct vg_monitor_stats ms;
	pid_t pid = k->pid;
	char note[160];

	vg_report_set_evidence(ss->report, k->evidence);
	vg_report_final(ss->report, k->mon, (uint32_t)pid);
	vg_report_set_evidence(ss->report, ss->evidence);
	vg_monitor_stats(k->mon, &ms);
	if (ms.slices_refused) {
		snprintf(note, sizeof(note),
			 "%llu slices refused (--max-slices %u per process): its verdicts are inconclusive",
			 (unsigned long long)ms.slices_refused,
			 ss->o->max_slices);
		fprintf(stderr, "vigil: watch: pid %d: %s\n", pid, note);
	}
	if (what == VG_WATCH_EXITED)
		ss->watch->stats.exited++;
	ss->watch->stats.live--;
	stats_changed(ss);
	say(ss, k, pid, what == VG_WATCH_EXITED ? "exited" : "left", detail);
	hook(ss, k, pid, what, status);
	/* vigil load's units: theirs too (an exit: their own record,
	 * after their last events of it, watch_load.c) */
	if (what != VG_WATCH_EXITED)
		vg_watch_load_forget(ss, pid, true);
	vg_follow_remove(ss->procs, k);
	vg_proc_root_forget(pid);
	vg_ckpt_run_watch_forget(ss->ckpt, pid);
}

void vg_session_watch_drop(struct session *ss, pid_t pid, const char *detail)
{
	struct vg_kid *k = vg_follow_find(ss->procs, pid);

	vg_probe_refuse(ss->probe, pid);
	if (k)
		kid_end(ss, k, VG_WATCH_LEFT, 0, detail);
	else
		vg_watch_load_forget(ss, pid, false);
}

/* Follow pid: held (at its exec) or running (found in /proc). */
static void adopt(struct session *ss, pid_t pid, bool held, bool running)
{
	struct vg_err e = { 0 };
	struct vg_kid *k;

	if (vg_follow_find(ss->procs, pid)) {	/* found twice (an exec raced the
					 * scan): the exec's links win */
		if (held)
			vg_probe_follow(ss->probe, pid, &e);
		return;
	}
	if (!room(ss, pid))
		return;
	if (!(k = kid_new(ss, pid))) {
		vg_probe_refuse(ss->probe, pid);
		return;
	}
	/* vigil load's units: their probes in before it runs on */
	vg_watch_load_adopt(ss, pid);
	if (held ? vg_probe_follow(ss->probe, pid, &e)
		 : vg_probe_adopt(ss->probe, pid, &e)) {
		fprintf(stderr, "vigil: watch: pid %d: %s: it runs unmonitored\n",
			pid, e.msg);
		k->gone = true;
		kid_end(ss, k, VG_WATCH_LEFT, 0, "its probes could not be attached");
		return;
	}
	{
		char own[512], detail[640];

		snprintf(detail, sizeof(detail), "%s",
			 running ? "running already"
			 : ss->o->watch_lib ? "held as it mapped the library until its probes were in"
					    : "held at its exec until its probes were in");
		/* a container's own copies (probe_remap.c) */
		if (vg_probe_own_files(ss->probe, pid, own, sizeof(own)))
			snprintf(detail + strlen(detail),
				 sizeof(detail) - strlen(detail),
				 "; %s", own);
		say(ss, k, pid, running ? "attached" : "started", detail);
	}
	hook(ss, k, pid, running ? VG_WATCH_ATTACHED : VG_WATCH_STARTED, 0);
}

void vg_session_watch_forked(struct session *ss, pid_t child)
{
	struct vg_kid *k = vg_follow_find(ss->procs, child);

	if (!k)
		return;
	/* its monitor exists (a copy of its parent's): where it lives */
	k->gone = false;
	k->violations = 0;
	k->stopped = false;
	{
		struct vg_proc_where w;
		struct vg_err e = { 0 };

		k->ns_pid = child;
		if (!vg_proc_where(child, &w, &e)) {
			k->ns_pid = w.ns_pid;
			free(k->cgroup);
			k->cgroup = strdup(w.cgroup);
		}
	}
	ss->watch->stats.processes++;
	ss->watch->stats.live++;
	stats_changed(ss);
	say(ss, k, child, "forked", NULL);
	hook(ss, k, child, VG_WATCH_FORKED, 0);
}

int vg_session_watch_open(struct session *ss, struct vg_err *e)
{
	DIR *d;
	struct dirent *de;

	if (!ss->o->watch_exe)
		return 0;
	vg_report_set_proc_namer(ss->report, namer, ss);
	/* the exec tracepoint is in already: a process that execs now is
	 * held there; one found here too is adopted once */
	if (!(d = opendir("/proc")))
		return vg_errf(e, "cannot list /proc: %m");
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid() ||
		    !vg_watch_match_running(ss->watch->match, (pid_t)pid))
			continue;
		adopt(ss, (pid_t)pid, false, true);
	}
	closedir(d);
	if (!ss->o->quiet)
		fprintf(stderr, "vigil: watch: %s: %llu processes %s, monitored; those started later are held at %s until their probes are in\n",
			ss->o->watch_exe,
			(unsigned long long)ss->watch->stats.live,
			ss->o->watch_lib ? "mapping it" : "running it",
			ss->o->watch_lib ? "their mapping of it"
					 : "their exec");
	return 0;
}

int vg_session_watch_process(struct session *ss, const struct vg_rec_proc *p)
{
	pid_t pid = (pid_t)p->h.pid;
	struct vg_kid *k;

	if (p->h.event == VG_PROC_EXIT) {
		pid = (pid_t)p->child;
		vg_probe_unfollow(ss->probe, pid);
		if (vg_session_watch_kernel(ss))
			vg_probe_forget_kslices(ss->probe, pid);
		if ((k = vg_follow_find(ss->procs, pid)))
			kid_end(ss, k, VG_WATCH_EXITED, (int)p->dev, NULL);
		return 0;
	}
	if (p->h.event != VG_PROC_EXEC)
		return 0;	/* forks: session_procs.c */
	k = vg_follow_find(ss->procs, pid);
	if (!k) {
		/* --same-build: held for its file name; another build goes */
		if ((p->h.flags & VG_RF_FOLLOWED) && !ss->o->watch_lib &&
		    !vg_watch_match_exec(ss->watch->match, pid, p->dev,
					 p->ino)) {
			vg_probe_refuse(ss->probe, pid);
			vg_watch_load_forget(ss, pid, false);
			return 0;
		}
		if (p->h.flags & VG_RF_FOLLOWED)
			adopt(ss, pid, p->h.flags & VG_RF_FORKSTOP, false);
		return 0;
	}
	/* a watched process exec'd: the watched program again (a new
	 * history), or another one (no longer watched) */
	if (vg_session_watch_kernel(ss))
		vg_probe_forget_kslices(ss->probe, pid);
	if (vg_watch_match_exec(ss->watch->match, pid, p->dev, p->ino)) {
		vg_follow_remove(ss->procs, k);
		ss->watch->stats.live--;
		ss->watch->stats.processes--;	/* the same process */
		if ((k = kid_new(ss, pid)))
			say(ss, k, pid, "started", "exec'd the program again: a new history");
		vg_watch_load_exec(ss, pid);
		return 0;
	}
	vg_probe_refuse(ss->probe, pid);
	{
		char path[sizeof(p->path) + 16];

		snprintf(path, sizeof(path), "exec'd %.*s", (int)sizeof(p->path), p->path);
		kid_end(ss, k, VG_WATCH_LEFT, 0, path);
	}
	return 0;
}

void vg_session_watch_transition(struct session *ss,
				 const struct vg_slice_view *s, int to,
				 const struct vg_mon_event *ev)
{
	const struct vg_property *p = &ss->spec->props[s->prop];
	const struct vg_watch_hooks *h = ss->o->watch_hooks;
	/* a vigil load unit's process is the session's (watch_load.c) */
	struct session *rs = ss->watch_root ? ss->watch_root : ss;
	struct vg_kid *k = vg_follow_find(rs->procs, (pid_t)ev->pid);
	bool stopped = vg_scenario_target_stopped(ss->sc);

	/* a checkpoint it asked for: taken after the drain, of it alone (a
	 * unit takes none, live_load.c) */
	if (!ss->watch_root)
		vg_ckpt_run_watch_note(ss->ckpt, (pid_t)ev->pid);
	if (p->states[to].kind == VG_STATE_VIOLATION) {
		rs->watch->stats.violations++;
		if (k)
			k->violations++;
		stats_changed(rs);
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
	if (!stopped && !vg_scenario_target_killed(ss->sc))
		return;
	if (stopped) {
		/* this process is gdb's now: its probes go (no int3 in the
		 * text gdb reads), its slices stay until it ends; the others
		 * are watched on */
		const char *why;
		pid_t spid = vg_scenario_stop_pid(ss->sc);
		pid_t tid = vg_scenario_stop_tid(ss->sc, &why);
		char gdb[4200];
		struct vg_err ge = { 0 };

		vg_probe_unfollow(rs->probe, spid);
		vg_watch_load_unfollow(rs, spid);	/* vigil load's */
		vg_guard_keep(rs->guard, spid);	/* the user's now */
		rs->watch->stats.stopped++;
		if ((k = vg_follow_find(rs->procs, spid)))
			k->stopped = true;
		stats_changed(rs);
		struct vg_gdb_pc_mend mend[VG_GDB_MAX_MENDS];
		int nmend = !ss->stop_event ? 0 :
			vg_jmp_stop_mends(ss->probe, spid, ss->stop_event - 1,
					  mend, VG_GDB_MAX_MENDS);

		ss->stop_event = 0;	/* this process's */
		if (vg_gdb_prepare_mend(spid, tid ? tid : spid, why, 0, mend,
					nmend, gdb, sizeof(gdb), &ge))
			fprintf(stderr, "vigil: %s\n", ge.msg);
		else
			fprintf(stderr, "vigil: watch: pid %d is left stopped at the violation (its probes removed; the other processes are watched on). Debug it with:\n  %s\n",
				spid, gdb);
		hook(rs, k, spid, VG_WATCH_STOPPED, 0);
	}
	/* the next process's reactions start afresh */
	vg_scenario_next_process(ss->sc);
}

bool vg_session_watch_done(struct session *ss)
{
	const struct vg_watch_hooks *h = ss->o->watch_hooks;

	return ss->o->watch_exe && h && h->keep_going &&
	       !h->keep_going(h->ctx);
}

void vg_session_watch_finish(struct session *ss)
{
	FILE *j;
	struct vg_watch_stats *w = ss->watch ? &ss->watch->stats : NULL;

	if (!ss->o->watch_exe || !w)
		return;
	/* the ones still running: their verdicts so far (they run on) */
	while (vg_follow_count(ss->procs) > 0) {
		struct vg_kid *k = vg_follow_at(ss->procs,
						vg_follow_count(ss->procs) - 1);

		kid_end(ss, k, VG_WATCH_LEFT, 0,
			k->stopped ? "vigil ends, it stays stopped for gdb"
				   : "vigil ends, it runs on");
	}
	fprintf(stderr, "vigil: watch: %llu processes monitored (at most %llu at once, --max-procs %u), %llu refused, %llu exited, %llu violations, %llu left stopped\n",
		(unsigned long long)w->processes,
		(unsigned long long)w->max_live, ss->o->max_procs,
		(unsigned long long)w->refused, (unsigned long long)w->exited,
		(unsigned long long)w->violations,
		(unsigned long long)w->stopped);
	if ((j = vg_report_json(ss->report))) {
		fprintf(j, "{\"type\":\"watch\",\"exe\":");
		vg_json_str(j, ss->o->watch_exe);
		fprintf(j, ",\"processes\":%llu,\"max_at_once\":%llu,\"max_procs\":%u,\"refused\":%llu,\"exited\":%llu,\"violations\":%llu,\"stopped\":%llu}\n",
			(unsigned long long)w->processes,
			(unsigned long long)w->max_live, ss->o->max_procs,
			(unsigned long long)w->refused,
			(unsigned long long)w->exited,
			(unsigned long long)w->violations,
			(unsigned long long)w->stopped);
		fflush(j);
	}
}

void vg_session_watch_free(struct session *ss)
{
	if (ss->watch)
		vg_watch_match_free(ss->watch->match);
	free(ss->watch);
	ss->watch = NULL;
}

static bool attach_namer(void *ctx, uint32_t pid, struct vg_report_proc *out)
{
	struct session *ss = ctx;

	if ((pid_t)pid != ss->pid)
		return namer(ctx, pid, out);	/* a followed fork's */
	out->ns_pid = (uint32_t)ss->target_where->ns_pid;
	out->cgroup = ss->target_where->cgroup;
	return true;
}

int vg_session_attach_where(struct session *ss, struct vg_err *e)
{
	struct vg_proc_where w;

	if (ss->o->watch_exe || ss->o->pid <= 0)
		return 0;
	if (vg_proc_where(ss->pid, &w, e))
		return -1;
	/* a process in vigil's own namespaces needs no more than its pid */
	if (w.ns_pid == ss->pid && !w.other_root)
		return 0;
	if (!(ss->target_where = malloc(sizeof(*ss->target_where))))
		return vg_errf(e, "out of memory");
	*ss->target_where = w;
	vg_report_set_proc_namer(ss->report, attach_namer, ss);
	if (!ss->o->quiet)
		fprintf(stderr, "vigil: pid %d is pid %d in its pid namespace, cgroup %s%s\n",
			ss->pid, w.ns_pid, w.cgroup[0] ? w.cgroup : "(unknown)",
			w.other_root ? "; its files are read through its own root (/proc/PID/root)" : "");
	return 0;
}

bool vg_session_watch_kernel(const struct session *ss)
{
	return ss->o->watch_exe && ss->o->tier == VG_TIER_KERNEL;
}

void vg_session_watch_kproc(struct session *ss, pid_t pid,
			    struct vg_monitor **mon, struct vg_evidence **x)
{
	const struct vg_kid *k;

	if (!ss->o->watch_exe || !(k = vg_follow_find(ss->procs, pid)))
		return;
	*mon = k->mon;
	*x = k->evidence;
}

void vg_session_watch_unfollowed_fork(struct session *ss, pid_t parent,
				      pid_t child)
{
	char why[128];

	vg_probe_refuse(ss->probe, child);
	vg_watch_load_forget(ss, child, false);
	ss->watch->stats.refused++;
	stats_changed(ss);
	snprintf(why, sizeof(why),
		 "a fork of pid %d, not followed in the kernel tier (--tier=user follows forks)",
		 parent);
	say(ss, NULL, child, "refused", why);
	hook(ss, NULL, child, VG_WATCH_REFUSED, 0);
}

static void mirror_one(void *ctx, pid_t tgid, int prop, const uint64_t *key,
		       int state, const int64_t *vars)
{
	struct session *ss = ctx;
	const struct vg_property *p = &ss->spec->props[prop];
	uint64_t params[VG_MAX_PARAMS] = { key[0], key[1] };
	struct vg_err e;
	const struct vg_kid *k = vg_follow_find(ss->procs, tgid);

	if (k)
		vg_monitor_set(k->mon, prop, (1u << p->nparams) - 1,
			       params, state, vars, &e);
}

void vg_session_watch_mirror(struct session *ss)
{
	if (vg_session_watch_kernel(ss))
		vg_probe_foreach_kslice_proc(ss->probe, mirror_one, ss);
}

bool vg_session_watch_signal(struct session *ss, int sig)
{
	const struct vg_watch_hooks *h = ss->o->watch_hooks;

	return h && h->on_signal && h->on_signal(h->ctx, sig);
}

struct vg_symbolizer *vg_session_watch_symbolizer(struct session *ss,
						 pid_t pid)
{
	struct vg_kid *k = vg_follow_find(ss->procs, pid);

	if (!k)
		return NULL;
	if (!k->sym && (k->sym = vg_symbolizer_new(pid)))
		vg_symbolizer_add_file(k->sym, ss->exe);
	return k->sym;
}
