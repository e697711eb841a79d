/* vigil watch: the `checkpoint` reaction (and --on-violation checkpoint),
 * per watched process (watch/watch_session.c).
 *
 * A reaction asks for a checkpoint of the process whose event took the
 * slice; the request is noted with that process (several processes may
 * ask within one drain) and carried out after the drain, as the one-process
 * session does (ckpt_run.c), for that process alone:
 *   1. stop its threads (the kernel tier may have stopped it already, at
 *      the transition: VG_RF_CKPT);
 *   2. take its own uprobe links out (vg_probe_pause_proc): every int3
 *      leaves its text, none leaves any other process's, whose links are
 *      their own; the others run on, monitored;
 *   3. put the real return addresses back on its stack for functions
 *      whose `after` probe is pending (vg_returns_mend);
 *   4. drain the ring buffer, so its monitor has every event before the
 *      stop;
 *   5. dump it with `criu dump --leave-running`, its monitor state beside
 *      the image: its own slices only (its monitor, and of the kernel
 *      table the slices keyed by its tgid), written as a one-process state
 *      that `vigil restore DIR --monitor SPEC` loads like any;
 *   6. its links back in, and it runs on -- unless a reaction left it
 *      stopped for gdb (its probes stay out then).
 * Images go to --checkpoint-dir DIR/ckpt-PID (default
 * /dev/shm/vigil-UID/ckpt-PID), a ring of --checkpoints per process;
 * --checkpoint-gap holds per process (and, for the kernel tier's stop at
 * the transition, for all of them: one gate in the kernel). */
#include "ckpt_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "act/scenario.h"
#include "probe/probe.h"
#include "probe/returns.h"
#include "proc/proc.h"
#include "util/clock.h"
#include "util/json.h"

struct wck_req {
	pid_t pid;
	bool want;		/* a checkpoint (else only the kernel tier's
				 * stop to undo) */
	bool good;
	bool kstopped;		/* stopped by the kernel tier for it */
	char reason[256];
};

struct wck_ring {
	pid_t pid;
	struct vg_ckpt *ck;
};

struct vg_watch_ckpt {
	struct wck_req *reqs;
	int nreqs, reqs_cap;
	struct wck_ring *rings;
	int nrings, rings_cap;
};

static struct vg_watch_ckpt *state(struct vg_ckpt_run *c)
{
	if (!c->wck)
		c->wck = calloc(1, sizeof(*c->wck));
	return c->wck;
}

void vg_ckpt_run_watch_note(struct vg_ckpt_run *c, pid_t pid)
{
	struct vg_scenario *sc = vg_run_scenario(c->run);
	struct vg_scenario_req r;
	struct vg_watch_ckpt *w;
	struct wck_req *q;
	bool kstopped = c->kstop;

	c->kstop = false;
	vg_scenario_take_requests(sc, &r);
	/* a kill reaction too: nothing left to keep */
	if (vg_scenario_target_killed(sc))
		r.checkpoint = false;
	if (!r.checkpoint && !kstopped)
		return;
	if (!(w = state(c)))
		goto nomem;
	for (int i = 0; i < w->nreqs; i++)
		if (w->reqs[i].pid == pid) {	/* one per process and drain */
			w->reqs[i].kstopped |= kstopped;
			if (r.checkpoint && !w->reqs[i].want) {
				w->reqs[i].want = true;
				w->reqs[i].good = r.good;
				snprintf(w->reqs[i].reason,
					 sizeof(w->reqs[i].reason), "%s",
					 r.reason);
			}
			return;
		}
	if (w->nreqs == w->reqs_cap) {
		int cap = w->reqs_cap ? 2 * w->reqs_cap : 8;
		void *v = realloc(w->reqs, cap * sizeof(*w->reqs));

		if (!v)
			goto nomem;
		w->reqs = v;
		w->reqs_cap = cap;
	}
	q = &w->reqs[w->nreqs++];
	*q = (struct wck_req){ .pid = pid, .want = r.checkpoint,
			       .good = r.good, .kstopped = kstopped };
	snprintf(q->reason, sizeof(q->reason), "%s", r.reason);
	return;
nomem:
	fprintf(stderr, "vigil: watch: pid %d: checkpoint failed: out of memory\n",
		pid);
	c->failed++;
	if (kstopped)
		kill(pid, SIGCONT);
}

/* pid's ring of images, made at its first checkpoint */
static struct vg_ckpt *ring_of(struct vg_ckpt_run *c, pid_t pid,
			       struct vg_err *e)
{
	struct vg_watch_ckpt *w = c->wck;
	char dir[PATH_MAX], exe[PATH_MAX];
	struct vg_ckpt_opts co = {
		.keep = c->o.keep,
		.min_gap_ms = c->o.gap_ms,
	};
	struct vg_ckpt *ck;

	for (int i = 0; i < w->nrings; i++)
		if (w->rings[i].pid == pid)
			return w->rings[i].ck;
	if (w->nrings == w->rings_cap) {
		int cap = w->rings_cap ? 2 * w->rings_cap : 8;
		void *v = realloc(w->rings, cap * sizeof(*w->rings));

		if (!v) {
			vg_errf(e, "out of memory");
			return NULL;
		}
		w->rings = v;
		w->rings_cap = cap;
	}
	if (c->o.dir) {	/* one directory per process */
		snprintf(dir, sizeof(dir), "%s/ckpt-%d", c->o.dir, pid);
		co.dir = dir;
	}
	/* the program it runs (with --lib-mapped not the watched file),
	 * which vigil restore checks the pid against */
	if (vg_proc_exe(pid, exe, e) ||
	    !(ck = vg_ckpt_new(pid, exe, &co, e)))
		return NULL;
	w->rings[w->nrings++] = (struct wck_ring){ pid, ck };
	return ck;
}

struct proc_state {
	struct vg_ckpt_run *c;
	pid_t pid;
};

static int write_state(void *ctx, FILE *out, struct vg_err *e)
{
	struct proc_state *ps = ctx;

	/* its own slices only: the session knows them */
	return vg_ckpt_host_write_proc_state(ps->c->run, ps->pid, out, e);
}

static void resume(pid_t pid, bool keep_stopped)
{
	int fd;

	if (keep_stopped)
		return;
	/* through a pidfd: an ended pid reused meanwhile is not signalled */
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0) {
		syscall(SYS_pidfd_send_signal, fd, SIGCONT, NULL, 0);
		close(fd);
	}
}

/* One request; -1 only when the session cannot go on (e set). */
static int take(struct vg_ckpt_run *c, const struct wck_req *q,
		struct vg_err *e)
{
	struct vg_probe *probe = vg_run_probe(c->run);
	struct vg_err ce = { 0 };
	struct vg_ckpt_proc p;
	struct proc_state ps = { c, q->pid };
	char img[PATH_MAX + 64];
	struct vg_ckpt *ck;
	bool keep, paused;
	uint64_t t0, t1, t2;
	int tid, rc;
	FILE *j;

	if (!vg_ckpt_host_proc(c->run, q->pid, &p)) {
		/* it ended, or is watched no more */
		if (q->kstopped)
			resume(q->pid, false);
		return 0;
	}
	/* a reaction left it stopped for gdb: it stays so, probes out */
	keep = p.stopped;
	if (!q->want) {	/* the kernel tier's stop, no checkpoint asked */
		resume(q->pid, keep);
		vg_ckpt_rearm(c);
		return 0;
	}
	if (!(ck = ring_of(c, q->pid, &ce)))
		goto failed;
	if (!vg_ckpt_due(ck) && !q->kstopped) {
		c->skipped++;
		return 0;
	}
	t0 = vg_now_ns(CLOCK_MONOTONIC);
	if (!keep && !q->kstopped && vg_proc_stop(q->pid, &ce))
		goto failed;
	/* a thread stopped in a uretprobe's return trampoline would come
	 * back into a page the image has not (ckpt_run.c) */
	if ((tid = vg_proc_in_uprobe_page(q->pid))) {
		char why[96];

		snprintf(why, sizeof(why), "thread %d is returning from a probed function", tid);
		vg_ckpt_not_taken(c, q->pid, "checkpoint deferred", q->reason,
				  why);
		c->skipped++;
		resume(q->pid, keep);
		vg_ckpt_rearm(c);
		return 0;
	}
	/* a process left stopped for gdb has no links any more */
	paused = !vg_probe_pause_proc(probe, q->pid);
	/* vigil load's units' too */
	vg_ckpt_host_proc_units_pause(c->run, q->pid);

	vg_returns_mend(probe, q->pid, true);
	/* every event before the stop into its monitor (the others' too) */
	if (vg_ckpt_host_drain(c->run, e) < 0) {
		resume(q->pid, keep);
		return -1;
	}
	if (!vg_ckpt_host_proc(c->run, q->pid, &p)) {
		/* cannot be: it is stopped */
		resume(q->pid, keep);
		return 0;
	}
	t1 = vg_now_ns(CLOCK_MONOTONIC);
	rc = vg_ckpt_take(ck, q->reason, p.events, q->good && !p.violations,
			  write_state, &ps, img, sizeof(img), &ce);
	t2 = vg_now_ns(CLOCK_MONOTONIC);
	if (rc) {
		vg_ckpt_not_taken(c, q->pid, "checkpoint failed", q->reason,
				  ce.msg);
		c->failed++;
	} else {
		c->taken++;
		fprintf(stderr, "vigil: watch: pid %d: checkpoint %s (%s, after %llu events); open it with: vigil restore %s --monitor SPEC...\n",
			q->pid, img, q->reason, (unsigned long long)p.events,
			img);
		vg_ckpt_host_told(c->run, q->pid, img, q->reason, NULL, NULL);
		if ((j = vg_ckpt_host_json(c->run))) {
			fprintf(j, "{\"type\":\"checkpoint\",\"pid\":%d,\"dir\":",
				q->pid);
			vg_json_str(j, img);
			fputs(",\"reason\":", j);
			vg_json_str(j, q->reason);
			fputs("}\n", j);
			fflush(j);
		}
	}
	if (paused && !p.stopped)
		vg_ckpt_host_proc_units_unpause(c->run, q->pid);
	if (paused && !p.stopped &&
	    vg_probe_unpause_proc(probe, q->pid, &ce)) {
		/* never left stopped for a monitor that cannot see it */
		fprintf(stderr, "vigil: watch: pid %d: %s: it runs on unmonitored\n",
			q->pid, ce.msg);
		vg_ckpt_host_proc_drop(c->run, q->pid, "its probes could not be attached again after its checkpoint");
	}
	resume(q->pid, keep);
	/* VIGIL_DEBUG=1: how long the process was held, and for what */
	if (getenv("VIGIL_DEBUG"))
		fprintf(stderr, "vigil: debug: pid %d held %.1f ms for its checkpoint: stop, probes out, drain %.1f ms; criu dump and state %.1f ms; probes in %.1f ms\n",
			q->pid, (vg_now_ns(CLOCK_MONOTONIC) - t0) / 1e6,
			(t1 - t0) / 1e6, (t2 - t1) / 1e6,
			(vg_now_ns(CLOCK_MONOTONIC) - t2) / 1e6);
	vg_ckpt_rearm(c);
	return 0;
failed:
	vg_ckpt_not_taken(c, q->pid, "checkpoint failed", q->reason, ce.msg);
	c->failed++;
	if (q->kstopped)
		resume(q->pid, keep);
	return 0;
}

int vg_watch_ckpt_run(struct vg_ckpt_run *c, struct vg_err *e)
{
	struct vg_watch_ckpt *w = c->wck;

	/* requests noted while these are taken (their drains) are taken
	 * too, in turn */
	for (int n = 0; w && n < w->nreqs; n++) {
		struct wck_req q = w->reqs[n];

		if (take(c, &q, e))
			return -1;
	}
	if (w)
		w->nreqs = 0;
	return 0;
}

void vg_ckpt_run_watch_forget(struct vg_ckpt_run *c, pid_t pid)
{
	struct vg_watch_ckpt *w = c ? c->wck : NULL;

	if (!w)
		return;
	/* its images stay on disk; its ring goes */
	for (int i = 0; i < w->nrings; i++)
		if (w->rings[i].pid == pid) {
			vg_ckpt_free(w->rings[i].ck);
			w->rings[i] = w->rings[--w->nrings];
			break;
		}
}

void vg_watch_ckpt_free(struct vg_ckpt_run *c)
{
	struct vg_watch_ckpt *w = c->wck;

	if (!w)
		return;
	for (int i = 0; i < w->nrings; i++)
		vg_ckpt_free(w->rings[i].ck);
	free(w->rings);
	free(w->reqs);
	free(w);
	c->wck = NULL;
}
