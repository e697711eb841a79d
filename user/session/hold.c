/* Records whose probe stopped the target for user space to act first
 * (VG_RF_ARMSTOP): --dynamic attaching a probe, a transition arming a
 * watchpoint, a watchpoint hit that may stop the target where it wrote.
 * Once the records of a drain are handled -- probes attached, watchpoints
 * armed, reactions run -- the processes they stopped are let go, unless a
 * reaction wants that one stopped or killed it. The in-process tier's
 * holds stop no process: the record's thread waits in the agent until
 * then (vg_probe_holds_done).
 *
 * A watchpoint's program runs in the debug exception with interrupts off,
 * where bpf_send_signal only queues the SIGSTOP (irq_work): it is sent
 * just after the program has submitted its record, before the thread
 * returns to user space. Resuming before it lands would be undone by it,
 * and the target would stay stopped; so vigil waits until the thread of
 * each record is stopped (or gone) before it sends SIGCONT. */
#include "session_internal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "act/scenario.h"
#include "proc/proc.h"
#include "util/clock.h"

#define HOLD_WAIT_MS 50		/* for a queued SIGSTOP to land */

void vg_hold_note(struct session *ss, const struct vg_rec_hdr *h)
{
	struct vg_holds *hs = &ss->holds;

	if (!(h->flags & VG_RF_ARMSTOP) || h->time_ns < hs->since_ns)
		return;
	hs->pending++;
	hs->pending_sum_ns += h->time_ns - hs->since_ns;
	/* the in-process tier's thread waits in the agent instead, until
	 * vg_probe_holds_done (below) */
	if (h->flags & VG_RF_INPROC)
		return;

	hs->count++;
	/* every thread held: each one's SIGSTOP must have landed before the
	 * SIGCONT (two threads of one process held in one drain: waiting
	 * for the last one only let the other's land after it) */
	for (int i = 0; i < hs->n; i++)
		if (hs->held[i].pid == (pid_t)h->pid &&
		    hs->held[i].tid == (pid_t)h->tid)
			return;
	if (hs->n < (int)(sizeof(hs->held) / sizeof(hs->held[0]))) {
		hs->held[hs->n].pid = (pid_t)h->pid;
		hs->held[hs->n++].tid = (pid_t)h->tid;
	} else {	/* more threads than slots: the target at least */
		hs->overflow = true;
	}
}

static bool keep_stopped(struct session *ss, pid_t pid)
{
	return (vg_scenario_target_stopped(ss->p.sc) &&
		vg_scenario_stop_pid(ss->p.sc) == pid) ||
	       vg_scenario_target_killed(ss->p.sc);
}

/* is thread tid stopped, or gone? */
static bool settled(pid_t tid)
{
	char st = vg_proc_state(tid);

	return !st || st == 'T' || st == 't' || st == 'Z' || st == 'X';
}

static void wait_settled(pid_t tid)
{
	uint64_t end = vg_now_ns(CLOCK_MONOTONIC) + HOLD_WAIT_MS * 1000000ull;
	struct timespec nap = { 0, 20000 };

	while (!settled(tid) && vg_now_ns(CLOCK_MONOTONIC) < end)
		nanosleep(&nap, NULL);
}

int vg_hold_release(struct session *ss, struct vg_err *e)
{
	/* what must happen while they wait: the features' (the leak check
	 * at exit, the probes --dynamic's arming stops asked for) */
	int rc = vg_features_drained(ss, e);
	struct vg_holds *hs = &ss->holds;

	for (int i = 0; i < hs->n; i++)
		if (!keep_stopped(ss, hs->held[i].pid))
			wait_settled(hs->held[i].tid);
	for (int i = 0; i < hs->n; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = hs->held[j].pid == hs->held[i].pid;
		if (!seen && !keep_stopped(ss, hs->held[i].pid))
			kill(hs->held[i].pid, SIGCONT);	/* once a process */
	}
	if (hs->overflow && ss->pid > 0 && !keep_stopped(ss, ss->pid))
		kill(ss->pid, SIGCONT);
	/* a reaction that wants the process stopped stopped it itself
	 * (act/scenario.c): its waiting thread goes on when it does */
	vg_probe_holds_done(ss->p.probe);
	hs->n = 0;
	hs->overflow = false;
	if (hs->pending) {	/* each waited from its probe until now */
		double now = (double)(vg_now_ns(CLOCK_MONOTONIC) -
				      hs->since_ns);

		hs->waits += hs->pending;
		hs->waited_ns += (double)hs->pending * now -
				 (double)hs->pending_sum_ns;
		hs->pending = hs->pending_sum_ns = 0;
	}
	return rc;
}

void vg_hold_finish(struct session *ss)
{
	/* a stop whose record was never read (vigil interrupted between
	 * the probe's SIGSTOP and the drain) must not outlive vigil */
	if (ss->holds.count && ss->pid > 0 && !keep_stopped(ss, ss->pid))
		kill(ss->pid, SIGCONT);
	struct vg_err e = { 0 };

	if (vg_hold_release(ss, &e))
		fprintf(stderr, "vigil: %s\n", e.msg);
	/* what a user asks of a slow run: how much of it was vigil's
	 * holds (a watchpoint armed before the thread goes on) */
	if (ss->holds.waits && !ss->o->quiet)
		fprintf(stderr, "vigil: holds: the program waited %llu time%s for vigil, %.3f s in all (%.0f us each on average)\n",
			(unsigned long long)ss->holds.waits,
			ss->holds.waits == 1 ? "" : "s",
			ss->holds.waited_ns / 1e9,
			ss->holds.waited_ns / 1e3 / ss->holds.waits);
}
