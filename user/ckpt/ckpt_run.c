/* Checkpoints inside a live run: the order of freezing, detaching,
 * dumping and resuming, and the i-RV loop "checkpoint while good, restore
 * on violation". CRIU itself is checkpoint.c. */
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

#include "ckpt_internal.h"
#include "probe/probe.h"
#include "probe/returns.h"
#include "act/scenario.h"
#include "proc/proc.h"
#include "util/clock.h"
#include "util/rundir.h"

struct vg_ckpt_run *vg_ckpt_run_new(struct vg_run *r,
				    const struct vg_ckpt_run_opts *o)
{
	struct vg_ckpt_run *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->run = r;
	c->o = *o;
	return c;
}

static int write_state(void *ctx, FILE *out, struct vg_err *e)
{
	struct vg_ckpt_run *c = ctx;

	/* the session's properties, what a restore in the session reads
	 * (restore.c), vigil load's units: the session knows them */
	return vg_ckpt_host_write_state(c->run, out, e);
}

/* Events the probes saw: in the kernel tier most never become records. */
static uint64_t events_seen(const struct vg_ckpt_run *c)
{
	struct vg_run_counts n;

	vg_run_counts(c->run, &n);
	return n.events;
}

void vg_ckpt_rearm(struct vg_ckpt_run *c)
{
	vg_probe_arm_checkpoint(vg_run_probe(c->run),
				vg_now_ns(CLOCK_MONOTONIC) +
				c->o.gap_ms * 1000000ull);
}

static int ensure_ring(struct vg_ckpt_run *c, struct vg_err *e)
{
	struct vg_ckpt_opts co = {
		.dir = c->o.dir,
		.keep = c->o.keep,
		.min_gap_ms = c->o.gap_ms,
	};

	if (c->ck)
		return 0;
	c->ck = vg_ckpt_new(vg_run_pid(c->run), vg_run_exe(c->run), &co, e);
	return c->ck ? 0 : -1;
}

/* A fork snapshot: no CRIU, and the probes may stay, because the child
 * shares the text pages and their int3s go with the uprobes (a child hit
 * is filtered out by pid, and vigil's exit removes them from every
 * process). */
static void fork_snapshot(struct vg_ckpt_run *c, const char *reason,
			  bool good, bool keep_stopped)
{
	pid_t pid = vg_run_pid(c->run);
	struct vg_err fe = { 0 };
	pid_t child;

	if (!c->fs && !(c->fs = vg_fsnap_new(c->o.keep))) {
		fprintf(stderr, "vigil: fork snapshot failed: out of memory\n");
		c->failed++;
		return;
	}
	child = vg_fsnap_take(c->fs, pid, good, &fe);
	if (child < 0) {
		fprintf(stderr, "vigil: %s; monitoring continues\n", fe.msg);
		c->failed++;
	} else {
		c->taken++;
		c->snap_pids[c->nsnaps++ % 16] = child;
		fprintf(stderr, "vigil: fork snapshot pid %d (%s, after %llu events)\n",
			child, reason, (unsigned long long)events_seen(c));
	}
	if (!keep_stopped)
		kill(pid, SIGCONT);
}

void vg_ckpt_not_taken(struct vg_ckpt_run *c, pid_t pid, const char *what,
		       const char *reason, const char *why)
{
	if (pid == vg_run_pid(c->run))
		fprintf(stderr, "vigil: %s: %s (%s); monitoring continues\n",
			what, why, reason);
	else	/* one process of vigil watch */
		fprintf(stderr, "vigil: watch: pid %d: %s: %s (%s); monitoring continues\n",
			pid, what, why, reason);
	vg_ckpt_host_told(c->run, pid, NULL, reason, what, why);
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
static bool defer_at_trampoline(struct vg_ckpt_run *c, const char *reason,
				bool keep_stopped)
{
	pid_t pid = vg_run_pid(c->run);
	int tid = vg_proc_in_uprobe_page(pid);
	char why[96];

	if (!tid)
		return false;
	snprintf(why, sizeof(why), "thread %d is returning from a probed function", tid);
	vg_ckpt_not_taken(c, pid, "checkpoint deferred", reason, why);
	c->skipped++;
	if (!keep_stopped)
		kill(pid, SIGCONT);
	vg_ckpt_rearm(c);
	return true;
}

int vg_ckpt_run_take(struct vg_ckpt_run *c, const char *reason, bool good,
		     struct vg_err *e)
{
	struct vg_probe *probe = vg_run_probe(c->run);
	pid_t pid = vg_run_pid(c->run);
	bool keep_stopped = vg_scenario_target_stopped(
				    vg_run_scenario(c->run)) || c->hold;
	struct vg_err ce = { 0 };
	char img[PATH_MAX + 64];
	uint64_t events;
	pid_t tracer;
	int rc;

	/* a kernel-tier stop for this checkpoint already kept the gap */
	bool forced = c->kstop;

	c->kstop = false;
	if (c->o.watch) {	/* no one target: per process, watch_ckpt.c */
		fprintf(stderr, "vigil: watch: a checkpoint on demand names no process: vigil watch takes them by reaction, per process (--on-violation checkpoint); monitoring continues\n");
		return 0;
	}
	/* CRIU (and a fork snapshot's ptrace) cannot take a process another
	 * tracer holds: a reaction's checkpoint while gdb is attached is
	 * not taken, and says how to take one (gdb's `vigil checkpoint`
	 * lets go of the process for it, and is not traced here) */
	if ((tracer = vg_proc_tracer(pid)) > 0 && tracer != getpid()) {
		char why[256];

		snprintf(why, sizeof(why), "pid %d is traced by process %d (gdb?), and neither CRIU nor a fork snapshot can take a traced process: take one from gdb with `vigil checkpoint`, which lets go of it first",
			 pid, (int)tracer);
		vg_ckpt_not_taken(c, pid, "checkpoint not taken", reason, why);
		c->skipped++;
		vg_ckpt_rearm(c);
		return 0;
	}
	if (c->o.fork_snapshots) {
		good = good && !vg_ckpt_violated_now(c);
		if (!vg_ckpt_gap_ok(&c->last_fsnap_ns, c->o.gap_ms) && !forced) {
			c->skipped++;
			return 0;
		}
		if (!keep_stopped && vg_proc_stop(pid, &ce)) {
			vg_ckpt_not_taken(c, pid, "fork snapshot failed", reason, ce.msg);
			c->failed++;
			return 0;
		}
		if (defer_at_trampoline(c, reason, keep_stopped))
			return 0;
		fork_snapshot(c, reason, good, keep_stopped);
		vg_ckpt_rearm(c);
		return 0;
	}
	if (ensure_ring(c, &ce)) {
		vg_ckpt_not_taken(c, pid, "checkpoint failed", reason, ce.msg);
		c->failed++;
		return 0;
	}
	if (!vg_ckpt_due(c->ck) && !forced) {
		c->skipped++;
		return 0;
	}
	if (!keep_stopped && vg_proc_stop(pid, &ce)) {
		vg_ckpt_not_taken(c, pid, "checkpoint failed", reason, ce.msg);
		c->failed++;
		return 0;
	}
	if (defer_at_trampoline(c, reason, keep_stopped))
		return 0;
	vg_probe_suspend(probe);
	vg_ckpt_host_units_suspend(c->run);	/* and drained */
	/* a function with a pending `after` probe would return into the
	 * [uprobes] page, which a restored image has not (it died of
	 * SIGSEGV): its real return address goes back on the stack. Its
	 * `after` event was lost anyway with the links just closed. */
	vg_returns_mend(probe, pid, true);
	/* what the features put in the process (the in-process tier) out
	 * of it, before the drain that reads its last records; told below,
	 * taken or not, they put it back */
	if (vg_ckpt_host_prepare(c->run, pid, &ce)) {
		vg_ckpt_not_taken(c, pid, "checkpoint deferred", reason, ce.msg);
		c->skipped++;
		goto resume;
	}
	if (vg_ckpt_host_drain(c->run, e) < 0)
		return -1;
	/* good means "no violation yet": the drain above may have met one */
	good = good && !vg_ckpt_violated_now(c);
	events = events_seen(c);
	rc = vg_ckpt_take(c->ck, reason, events, good, write_state, c, img,
			  sizeof(img), &ce);
	if (rc) {
		vg_ckpt_not_taken(c, pid, "checkpoint failed", reason, ce.msg);
		c->failed++;
	} else {
		c->taken++;
		fprintf(stderr, "vigil: checkpoint %s (%s, after %llu events)\n",
			img, reason, (unsigned long long)events);
		vg_ckpt_host_told(c->run, pid, img, reason, NULL, NULL);
	}
resume:
	if (vg_probe_resume(probe, e) || vg_ckpt_host_units_resume(c->run, e)) {
		/* never leave the target frozen for a monitor that is gone */
		if (!keep_stopped)
			kill(pid, SIGCONT);
		return -1;
	}
	if (!keep_stopped)
		kill(pid, SIGCONT);
	vg_ckpt_rearm(c);
	return 0;
}

int vg_ckpt_run_asked(struct vg_ckpt_run *c, const char *reason, bool good,
		      bool hold, bool *taken, struct vg_err *e)
{
	uint64_t before = c->taken;
	int rc;

	c->hold = hold;
	/* asked for: --checkpoint-gap is for reactions (a waiting one was
	 * checked when it was made) */
	c->kstop = true;
	if (hold) {	/* the SIGSTOP gdb queued must have landed */
		for (int i = 0; i < 500 &&
				vg_proc_state(vg_run_pid(c->run)) != 'T'; i++)
			usleep(1000);
	}
	rc = vg_ckpt_run_take(c, reason, good, e);
	c->hold = false;
	*taken = c->taken != before;
	return rc;
}

void vg_ckpt_wait_gone(struct vg_ckpt_run *c)
{
	pid_t pid = vg_run_pid(c->run);
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (!c->o.attached) {
		int st;

		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	} else if (fd >= 0) {
		poll(&pfd, 1, 5000);
	}
	if (fd >= 0)
		close(fd);
	/* the parent (not us) may take a moment to reap an attached target */
	for (int i = 0; i < 500 && kill(pid, 0) == 0; i++)
		usleep(10000);
}

/* `restore`: kill the target, bring back the newest checkpoint taken in an
 * accepting state, left stopped. The session then ends, handing that
 * process to the user; `vigil restore --monitor` resumes monitoring. */
static int restore_fork_snapshot(struct vg_ckpt_run *c)
{
	pid_t child = c->fs ? vg_fsnap_last_good(c->fs) : 0;
	char why[PATH_MAX + 128];

	if (!child) {
		fprintf(stderr, "vigil: restore: no fork snapshot was taken in an accepting state; the target stays as it is\n");
		return 0;
	}
	kill(vg_run_pid(c->run), SIGKILL);
	vg_ckpt_wait_gone(c);
	snprintf(c->restored_from, sizeof(c->restored_from),
		 "the fork snapshot pid %d", child);
	snprintf(why, sizeof(why), "restored from %s", c->restored_from);
	vg_ckpt_host_set_pid(c->run, child);
	c->restored = true;
	c->restored_child = child;
	vg_scenario_set_target(vg_run_scenario(c->run), child, true, why);
	return 0;
}

static int restore_last_good(struct vg_ckpt_run *c)
{
	const char *img = c->ck ? vg_ckpt_last_good(c->ck) : NULL;
	struct vg_err re = { 0 };
	char why[512];
	pid_t pid;

	if (c->o.fork_snapshots)
		return restore_fork_snapshot(c);
	if (!img) {
		fprintf(stderr, "vigil: restore: no checkpoint was taken in an accepting state; the target stays as it is\n");
		return 0;
	}
	snprintf(c->restored_from, sizeof(c->restored_from), "%s", img);
	kill(vg_run_pid(c->run), SIGKILL);
	vg_ckpt_wait_gone(c);
	pid = vg_ckpt_restore(img, &re);
	if (pid < 0) {
		fprintf(stderr, "vigil: %s\n", re.msg);
		c->restored = true;	/* the target is gone: end the session */
		c->restored_from[0] = 0;
		return 0;
	}
	vg_ckpt_host_set_pid(c->run, pid);
	c->restored = true;
	snprintf(why, sizeof(why), "restored from the checkpoint %s", img);
	vg_scenario_set_target(vg_run_scenario(c->run), pid, true, why);
	return 0;
}

/* Would a checkpoint not asked for by hand be taken now (--checkpoint-gap)?
 * Read only: the checkpoint itself keeps the time. */
static bool gap_open(const struct vg_ckpt_run *c)
{
	uint64_t now = vg_now_ns(CLOCK_MONOTONIC);

	if (c->o.fork_snapshots)
		return !c->last_fsnap_ns || now - c->last_fsnap_ns >=
			c->o.gap_ms * 1000000ull;
	return !c->ck || vg_ckpt_due(c->ck);
}

/* gdb's extension traces the target: CRIU cannot dump it until gdb lets
 * go, which gdb can do at a stop only. The reaction waits for gdb
 * (vg_ckpt_host_gdb_checkpoint), which asks for it at the stop the
 * reaction makes, as `vigil checkpoint` typed in gdb does. Another tracer
 * (plain gdb, strace) cannot be asked: vg_ckpt_run_take says so. */
static bool left_to_gdb(struct vg_ckpt_run *c, const char *reason, bool good)
{
	pid_t tracer = vg_proc_tracer(vg_run_pid(c->run));
	bool forced = c->kstop;

	if (tracer <= 0 || tracer == getpid() || c->o.watch ||
	    c->o.follow_forks || !vg_ckpt_host_gdb_traces(c->run, tracer))
		return false;
	c->kstop = false;
	if (!forced && !gap_open(c))
		c->skipped++;
	else if (!defer_at_trampoline(c, reason, true) &&
		 !vg_ckpt_host_gdb_checkpoint(c->run, reason, good))
		c->skipped++;	/* one waits for gdb already */
	vg_ckpt_rearm(c);
	return true;
}

int vg_ckpt_run_reaction(struct vg_ckpt_run *c, const char *reason,
			 bool good, struct vg_err *e)
{
	if (left_to_gdb(c, reason, good))
		return 0;
	return vg_ckpt_run_take(c, reason, good, e);
}

int vg_ckpt_run_requests(struct vg_ckpt_run *c, struct vg_err *e)
{
	struct vg_scenario *sc = vg_run_scenario(c->run);
	struct vg_scenario_req r;

	if (c->o.watch)	/* each process's own (watch_ckpt.c) */
		return vg_watch_ckpt_run(c, e);
	vg_scenario_take_requests(sc, &r);
	/* a restore makes a checkpoint of the bad state pointless */
	if (r.checkpoint && !r.restore && !vg_scenario_target_killed(sc)) {
		struct vg_scenario_req later;

		if (vg_ckpt_run_reaction(c, r.reason, r.good, e))
			return -1;
		/* the drain inside may ask again: this checkpoint is later
		 * than those requests, so it answers them; a restore stays */
		vg_scenario_take_requests(sc, &later);
		r.restore |= later.restore;
	}
	if (r.restore && !vg_scenario_target_killed(sc))
		return restore_last_good(c);
	/* stopped for a checkpoint that was not taken: let it go */
	if (c->kstop) {
		c->kstop = false;
		if (!vg_scenario_target_stopped(sc) &&
		    !vg_scenario_target_killed(sc))
			kill(vg_run_pid(c->run), SIGCONT);
		vg_ckpt_rearm(c);
	}
	return 0;
}

void vg_ckpt_run_kernel_stop(struct vg_ckpt_run *c)
{
	if (c)
		c->kstop = true;
}

bool vg_ckpt_run_restored(const struct vg_ckpt_run *c, const char **from)
{
	if (from)
		*from = c ? c->restored_from : "";
	return c && c->restored;
}

unsigned vg_ckpt_run_gen(const struct vg_ckpt_run *c)
{
	return c ? c->gen : 0;
}

int vg_ckpt_run_image(const struct vg_ckpt_run *c, int i, char *path,
		      size_t len)
{
	return c ? vg_ckpt_image(c->ck, i, path, len) : -1;
}

bool vg_ckpt_run_is_snapshot(const struct vg_ckpt_run *c, pid_t pid)
{
	for (unsigned i = 0; c && i < 16; i++)
		if (c->snap_pids[i] == pid)
			return true;
	return false;
}

void vg_ckpt_run_summary(const struct vg_ckpt_run *c, FILE *out)
{
	if (!c)
		return;
	if (c->taken || c->skipped || c->failed)
		fprintf(out, "vigil: checkpoints: taken=%llu skipped=%llu (--checkpoint-gap) failed=%llu\n",
			(unsigned long long)c->taken,
			(unsigned long long)c->skipped,
			(unsigned long long)c->failed);
	if (c->restored && !c->restored_from[0])
		fprintf(out, "vigil: the restore failed and the target is gone\n");
}

void vg_ckpt_run_advertise(struct vg_ckpt_run *c)
{
	char dir[PATH_MAX - 64];
	struct vg_err e;
	FILE *f;
	int fd;

	if (vg_rundir(dir, sizeof(dir), &e))
		return;
	snprintf(c->session_file, sizeof(c->session_file), "%s/session-%d",
		 dir, vg_run_pid(c->run));
	fd = open(c->session_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		c->session_file[0] = 0;
		return;
	}
	fprintf(f, "%d\n", getpid());
	fclose(f);
}

void vg_ckpt_run_unadvertise(struct vg_ckpt_run *c)
{
	if (!c)
		return;
	if (c->session_file[0])
		unlink(c->session_file);
	c->session_file[0] = 0;
}

void vg_ckpt_run_free(struct vg_ckpt_run *c)
{
	if (!c)
		return;
	vg_watch_ckpt_free(c);
	vg_ckpt_free(c->ck);
	/* snapshots are copies of the target: none outlives the session,
	 * but the one a restore handed to the user */
	vg_fsnap_free(c->fs, c->restored_child);
	free(c);
}
