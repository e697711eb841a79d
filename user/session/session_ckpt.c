/* Checkpoints and restores inside a live session: the order of freezing,
 * detaching, dumping and resuming, and the i-RV loop "checkpoint while
 * good, restore on violation". CRIU itself is act/checkpoint.c. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe/returns.h"
#include "act/checkpoint.h"
#include "act/scenario.h"
#include "act/snapshot_fork.h"
#include "monitor/monitor.h"
#include "proc/proc.h"
#include "session_internal.h"
#include "util/clock.h"
#include "util/rundir.h"
#include "monstate.h"
#include "live.h"
#include "live_load.h"
#include "watch_ckpt.h"

static int write_state(void *ctx, FILE *out, struct vg_err *e)
{
	struct session *ss = ctx;

	/* the session's properties, then what a restore in the session
	 * reads (session_restore.c), then each of vigil load's units in a
	 * section of its own ("loaded FILE": live_load.h) */
	if (vg_monstate_write(out, ss->spec, ss->mon, ss->probe, ss->kernel,
			      e))
		return -1;
	vg_session_state_extra(ss, out);
	return vg_load_write_state(ss, out, e);
}

/* Events the probes saw: in the kernel tier most never become records. */
static uint64_t events_seen(const struct session *ss)
{
	uint64_t events, lost;

	vg_session_event_totals(ss, &events, &lost);
	return events;
}

/* The kernel tier may stop the target for the next checkpoint from
 * --checkpoint-gap on. */
static void rearm(struct session *ss)
{
	vg_probe_arm_checkpoint(ss->probe, vg_now_ns(CLOCK_MONOTONIC) +
					   ss->o->checkpoint_gap_ms * 1000000ull);
}

static int ensure_ring(struct session *ss, struct vg_err *e)
{
	struct vg_ckpt_opts co = {
		.dir = ss->o->checkpoint_dir,
		.keep = ss->o->checkpoints,
		.min_gap_ms = ss->o->checkpoint_gap_ms,
	};

	if (ss->ck)
		return 0;
	ss->ck = vg_ckpt_new(ss->pid, ss->exe, &co, e);
	return ss->ck ? 0 : -1;
}

/* A fork snapshot: no CRIU, and the probes may stay, because the child
 * shares the text pages and their int3s go with the uprobes (a child hit
 * is filtered out by pid, and vigil's exit removes them from every
 * process). */
static void fork_snapshot(struct session *ss, const char *reason, bool good,
			  bool keep_stopped)
{
	struct vg_err fe = { 0 };
	pid_t child;

	if (!ss->fs && !(ss->fs = vg_fsnap_new(ss->o->checkpoints))) {
		fprintf(stderr, "vigil: fork snapshot failed: out of memory\n");
		ss->ckpt_failed++;
		return;
	}
	child = vg_fsnap_take(ss->fs, ss->pid, good, &fe);
	if (child < 0) {
		fprintf(stderr, "vigil: %s; monitoring continues\n", fe.msg);
		ss->ckpt_failed++;
	} else {
		ss->ckpt_taken++;
		ss->snap_pids[ss->nsnaps++ % 16] = child;
		fprintf(stderr, "vigil: fork snapshot pid %d (%s, after %llu events)\n",
			child, reason, (unsigned long long)events_seen(ss));
	}
	if (!keep_stopped)
		kill(ss->pid, SIGCONT);
}

void vg_session_ckpt_not_taken(struct session *ss, pid_t pid,
			       const char *what, const char *reason,
			       const char *why)
{
	if (pid == ss->pid)
		fprintf(stderr, "vigil: %s: %s (%s); monitoring continues\n",
			what, why, reason);
	else	/* one process of vigil watch */
		fprintf(stderr, "vigil: watch: pid %d: %s: %s (%s); monitoring continues\n",
			pid, what, why, reason);
	vg_features_checkpoint(ss, pid, NULL, reason, what, why);
}

/* The order matters:
 *  1. stop every thread of the target, so it makes no call while
 *     2. the uprobes are detached (CRIU must not save their int3s);
 *  3. drain the ring buffer: every event before the stop reaches the
 *     monitor, whose state is then exactly the target's;
 *  4. dump, with the monitor state beside the image;
 *  5. attach the probes again, 6. resume the target.
 * A stop the target was already in (a `stop` reaction) is kept. */
/* A thread stopped inside a uretprobe's return trampoline (a stop at an
 * `after` event leaves it there) cannot be brought back: its next
 * instruction is in the [uprobes] page, which neither CRIU nor a fork
 * keeps. Skip this occasion; the next one will do. */
static bool defer_at_trampoline(struct session *ss, const char *reason,
				bool keep_stopped)
{
	int tid = vg_proc_in_uprobe_page(ss->pid);
	char why[96];

	if (!tid)
		return false;
	snprintf(why, sizeof(why), "thread %d is returning from a probed function", tid);
	vg_session_ckpt_not_taken(ss, ss->pid, "checkpoint deferred", reason, why);
	ss->ckpt_skipped++;
	if (!keep_stopped)
		kill(ss->pid, SIGCONT);
	rearm(ss);
	return true;
}

int vg_session_checkpoint(struct session *ss, const char *reason, bool good,
			  struct vg_err *e)
{
	bool keep_stopped = vg_scenario_target_stopped(ss->sc) ||
			    ss->ckpt_hold;
	struct vg_err ce = { 0 };
	char img[PATH_MAX + 64];
	uint64_t events;
	pid_t tracer;
	int rc;

	/* a kernel-tier stop for this checkpoint already kept the gap */
	bool forced = ss->ckpt_stop;

	ss->ckpt_stop = false;
	if (ss->o->watch_exe) {	/* no one target: per process, watch_ckpt.c */
		fprintf(stderr, "vigil: watch: a checkpoint on demand names no process: vigil watch takes them by reaction, per process (--on-violation checkpoint); monitoring continues\n");
		return 0;
	}
	/* CRIU (and a fork snapshot's ptrace) cannot take a process another
	 * tracer holds: a reaction's checkpoint while gdb is attached is
	 * not taken, and says how to take one (gdb's `vigil checkpoint`
	 * lets go of the process for it, and is not traced here) */
	if ((tracer = vg_proc_tracer(ss->pid)) > 0 && tracer != getpid()) {
		char why[256];

		snprintf(why, sizeof(why), "pid %d is traced by process %d (gdb?), and neither CRIU nor a fork snapshot can take a traced process: take one from gdb with `vigil checkpoint`, which lets go of it first",
			 ss->pid, (int)tracer);
		vg_session_ckpt_not_taken(ss, ss->pid, "checkpoint not taken", reason, why);
		ss->ckpt_skipped++;
		rearm(ss);
		return 0;
	}
	if (ss->o->fork_snapshots) {
		good = good && !vg_session_violated_now(ss);
		if (!vg_ckpt_gap_ok(&ss->last_fsnap_ns,
				    ss->o->checkpoint_gap_ms) && !forced) {
			ss->ckpt_skipped++;
			return 0;
		}
		if (!keep_stopped && vg_proc_stop(ss->pid, &ce)) {
			vg_session_ckpt_not_taken(ss, ss->pid, "fork snapshot failed", reason, ce.msg);
			ss->ckpt_failed++;
			return 0;
		}
		if (defer_at_trampoline(ss, reason, keep_stopped))
			return 0;
		fork_snapshot(ss, reason, good, keep_stopped);
		rearm(ss);
		return 0;
	}
	if (ensure_ring(ss, &ce)) {
		vg_session_ckpt_not_taken(ss, ss->pid, "checkpoint failed", reason, ce.msg);
		ss->ckpt_failed++;
		return 0;
	}
	if (!vg_ckpt_due(ss->ck) && !forced) {
		ss->ckpt_skipped++;
		return 0;
	}
	if (!keep_stopped && vg_proc_stop(ss->pid, &ce)) {
		vg_session_ckpt_not_taken(ss, ss->pid, "checkpoint failed", reason, ce.msg);
		ss->ckpt_failed++;
		return 0;
	}
	if (defer_at_trampoline(ss, reason, keep_stopped))
		return 0;
	vg_probe_suspend(ss->probe);
	vg_load_suspend(ss);	/* and drained */
	/* a function with a pending `after` probe would return into the
	 * [uprobes] page, which a restored image has not (it died of
	 * SIGSEGV): its real return address goes back on the stack. Its
	 * `after` event was lost anyway with the links just closed. */
	vg_returns_mend(ss->probe, ss->pid, true);
	if (vg_probe_drain(ss->probe, vg_session_on_record, ss, e) < 0)
		return -1;
	/* good means "no violation yet": the drain above may have met one */
	good = good && !vg_session_violated_now(ss);
	events = events_seen(ss);
	rc = vg_ckpt_take(ss->ck, reason, events, good, write_state, ss, img,
			  sizeof(img), &ce);
	if (rc) {
		vg_session_ckpt_not_taken(ss, ss->pid, "checkpoint failed", reason, ce.msg);
		ss->ckpt_failed++;
	} else {
		ss->ckpt_taken++;
		fprintf(stderr, "vigil: checkpoint %s (%s, after %llu events)\n",
			img, reason, (unsigned long long)events);
		vg_features_checkpoint(ss, ss->pid, img, reason, NULL, NULL);
	}
	if (vg_probe_resume(ss->probe, e) || vg_load_resume(ss, e)) {
		/* never leave the target frozen for a monitor that is gone */
		if (!keep_stopped)
			kill(ss->pid, SIGCONT);
		return -1;
	}
	if (!keep_stopped)
		kill(ss->pid, SIGCONT);
	rearm(ss);
	return 0;
}

/* Wait until pid is gone, reaping it when it is our child. */
void vg_session_wait_gone(struct session *ss)
{
	int fd = (int)syscall(SYS_pidfd_open, ss->pid, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (!ss->o->pid) {
		int st;

		while (waitpid(ss->pid, &st, 0) < 0 && errno == EINTR)
			;
	} else if (fd >= 0) {
		poll(&pfd, 1, 5000);
	}
	if (fd >= 0)
		close(fd);
	/* the parent (not us) may take a moment to reap an attached target */
	for (int i = 0; i < 500 && kill(ss->pid, 0) == 0; i++)
		usleep(10000);
}

/* `restore`: kill the target, bring back the newest checkpoint taken in an
 * accepting state, left stopped. The session then ends, handing that
 * process to the user; `vigil restore --monitor` resumes monitoring. */
static int restore_fork_snapshot(struct session *ss)
{
	pid_t child = ss->fs ? vg_fsnap_last_good(ss->fs) : 0;
	char why[PATH_MAX + 128];

	if (!child) {
		fprintf(stderr, "vigil: restore: no fork snapshot was taken in an accepting state; the target stays as it is\n");
		return 0;
	}
	kill(ss->pid, SIGKILL);
	vg_session_wait_gone(ss);
	snprintf(ss->restored_from, sizeof(ss->restored_from),
		 "the fork snapshot pid %d", child);
	snprintf(why, sizeof(why), "restored from %s", ss->restored_from);
	ss->pid = child;
	ss->restored = true;
	ss->restored_child = child;
	vg_scenario_set_target(ss->sc, child, true, why);
	return 0;
}

static int restore_last_good(struct session *ss)
{
	const char *img = ss->ck ? vg_ckpt_last_good(ss->ck) : NULL;
	struct vg_err re = { 0 };
	char why[512];
	pid_t pid;

	if (ss->o->fork_snapshots)
		return restore_fork_snapshot(ss);
	if (!img) {
		fprintf(stderr, "vigil: restore: no checkpoint was taken in an accepting state; the target stays as it is\n");
		return 0;
	}
	snprintf(ss->restored_from, sizeof(ss->restored_from), "%s", img);
	kill(ss->pid, SIGKILL);
	vg_session_wait_gone(ss);
	pid = vg_ckpt_restore(img, &re);
	if (pid < 0) {
		fprintf(stderr, "vigil: %s\n", re.msg);
		ss->restored = true;	/* the target is gone: end the session */
		ss->restored_from[0] = 0;
		return 0;
	}
	ss->pid = pid;
	ss->restored = true;
	snprintf(why, sizeof(why), "restored from the checkpoint %s", img);
	vg_scenario_set_target(ss->sc, pid, true, why);
	return 0;
}

/* Would a checkpoint not asked for by hand be taken now (--checkpoint-gap)?
 * Read only: the checkpoint itself keeps the time. */
static bool gap_open(const struct session *ss)
{
	uint64_t now = vg_now_ns(CLOCK_MONOTONIC);

	if (ss->o->fork_snapshots)
		return !ss->last_fsnap_ns || now - ss->last_fsnap_ns >=
			ss->o->checkpoint_gap_ms * 1000000ull;
	return !ss->ck || vg_ckpt_due(ss->ck);
}

/* gdb's extension traces the target: CRIU cannot dump it until gdb lets
 * go, which gdb can do at a stop only. The reaction waits for gdb
 * (vg_live_want_checkpoint), which asks for it at the stop the reaction
 * makes, as `vigil checkpoint` typed in gdb does. Another tracer (plain
 * gdb, strace) cannot be asked: vg_session_checkpoint says so. */
static bool left_to_gdb(struct session *ss, const char *reason, bool good)
{
	pid_t tracer = vg_proc_tracer(ss->pid);
	bool forced = ss->ckpt_stop;

	if (tracer <= 0 || tracer == getpid() || ss->o->watch_exe ||
	    ss->o->follow_forks || !vg_live_gdb_traces(ss, tracer))
		return false;
	ss->ckpt_stop = false;
	if (!forced && !gap_open(ss))
		ss->ckpt_skipped++;
	else if (!defer_at_trampoline(ss, reason, true))
		vg_live_want_checkpoint(ss, reason, good);
	rearm(ss);
	return true;
}

int vg_session_reaction_checkpoint(struct session *ss, const char *reason,
				   bool good, struct vg_err *e)
{
	if (left_to_gdb(ss, reason, good))
		return 0;
	return vg_session_checkpoint(ss, reason, good, e);
}

int vg_session_requests(struct session *ss, struct vg_err *e)
{
	struct vg_scenario_req r;

	if (ss->o->watch_exe)	/* each process's own (watch_ckpt.c) */
		return vg_watch_ckpt_run(ss, e);
	vg_scenario_take_requests(ss->sc, &r);
	/* a restore makes a checkpoint of the bad state pointless */
	if (r.checkpoint && !r.restore && !vg_scenario_target_killed(ss->sc)) {
		struct vg_scenario_req later;

		if (vg_session_reaction_checkpoint(ss, r.reason, r.good, e))
			return -1;
		/* the drain inside may ask again: this checkpoint is later
		 * than those requests, so it answers them; a restore stays */
		vg_scenario_take_requests(ss->sc, &later);
		r.restore |= later.restore;
	}
	if (r.restore && !vg_scenario_target_killed(ss->sc))
		return restore_last_good(ss);
	/* stopped for a checkpoint that was not taken: let it go */
	if (ss->ckpt_stop) {
		ss->ckpt_stop = false;
		if (!vg_scenario_target_stopped(ss->sc) &&
		    !vg_scenario_target_killed(ss->sc))
			kill(ss->pid, SIGCONT);
		rearm(ss);
	}
	return 0;
}

void vg_session_advertise(struct session *ss)
{
	char dir[PATH_MAX - 64];
	struct vg_err e;
	FILE *f;
	int fd;

	if (vg_rundir(dir, sizeof(dir), &e))
		return;
	snprintf(ss->session_file, sizeof(ss->session_file), "%s/session-%d",
		 dir, ss->pid);
	fd = open(ss->session_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		ss->session_file[0] = 0;
		return;
	}
	fprintf(f, "%d\n", getpid());
	fclose(f);
}

void vg_session_unadvertise(struct session *ss)
{
	if (ss->session_file[0])
		unlink(ss->session_file);
	ss->session_file[0] = 0;
}

void vg_session_ckpt_free(struct session *ss)
{
	vg_ckpt_free(ss->ck);
	ss->ck = NULL;
	/* snapshots are copies of the target: none outlives the session,
	 * but the one a restore handed to the user */
	vg_fsnap_free(ss->fs, ss->restored_child);
	ss->fs = NULL;
}
