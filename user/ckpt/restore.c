/* `vigil restore [N]` inside a live run (from gdb, or `vigil ctl PID
 * restore`): the program and the monitor go back to checkpoint N together,
 * and the session goes on with the restored process.
 *
 * The order:
 *  1. stop the target and suspend the uprobes (as a checkpoint does), read
 *     the records already sent;
 *  2. take over the descriptors of the files it writes to (outfiles.c),
 *     kill it and wait until its pid is free (CRIU restores the same pid);
 *  3. `criu restore`, the process left stopped; with `vigil run`, vigil is
 *     its subreaper and so its parent again, and reaps it at its exit;
 *  4. the monitor state saved with the image: a new monitor (user tier)
 *     and an emptied slice table (kernel tier) with the checkpoint's
 *     slices and globals, the per-event counts of the checkpoint, the
 *     evidence as it was then; the stops gdb had not asked about dropped;
 *  5. the uprobes attach again (same pid, a new process: new links),
 *     and the target resumes, unless gdb is to attach first.
 * What happened after the checkpoint is forgotten but for the output the
 * program wrote and the violations already reported. */
#include "ckpt_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "act/scenario.h"
#include "probe/probe.h"
#include "proc/proc.h"
#include "report/evidence.h"
#include "util/clock.h"

/* VIGIL_DEBUG=1: how long each step of a restore took, on stderr */
static void phase(const char *what, uint64_t *t)
{
	uint64_t now = vg_now_ns(CLOCK_MONOTONIC);

	if (getenv("VIGIL_DEBUG"))
		fprintf(stderr, "vigil: restore: %s %.1f ms\n", what,
			(double)(now - *t) / 1e6);
	*t = now;
}

static void any_violation(void *ctx, const struct vg_slice_view *s)
{
	bool *seen = ((void **)ctx)[0];
	const struct vg_spec *spec = ((void **)ctx)[1];

	if (spec->props[s->prop].states[s->state].kind == VG_STATE_VIOLATION)
		*seen = true;
}

bool vg_ckpt_violated_now(struct vg_ckpt_run *c)
{
	bool seen = false;
	void *ctx[2] = { &seen, (void *)vg_run_spec(c->run) };

	/* before any restore, a violation seen is one the program made */
	if (!c->gen)
		return vg_scenario_violated(vg_run_scenario(c->run));
	/* after one, the slices in a violating state now */
	vg_run_sync_kernel(c->run);
	vg_run_foreach_slice(c->run, any_violation, ctx);
	return seen;
}

/* What a checkpoint's monitor.state carries for a restore in the session
 * besides the monitor's (ckpt_host.c writes it): the probes' per-event
 * counts and the evidence's mark, put back as they were */
static void load_extra(struct vg_run *r, const char *path)
{
	const struct vg_spec *spec = vg_run_spec(r);
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned long long h, l, mark;
	int ev;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "count %d %llu %llu", &ev, &h, &l) == 3 &&
		    ev >= 0 && ev < spec->nevents)
			vg_probe_set_counts(vg_run_probe(r), ev, h, l);
		else if (sscanf(line, "evidence %llu", &mark) == 1)
			vg_evidence_rewind(vg_run_evidence(r, vg_run_pid(r)),
					   mark);
	}
	fclose(f);
}

/* Checkpoint num of this run (0: the newest): its path, or -1. */
static int find_image(struct vg_ckpt_run *c, int num, char *out, size_t len)
{
	char path[PATH_MAX + 64];
	int n, found = -1;

	for (int i = 0; (n = vg_ckpt_image(c->ck, i, path, sizeof(path))) >= 0; i++)
		if (!num || n == num) {
			snprintf(out, len, "%s", path);
			found = n;
		}
	return found;
}

static int drop_record(void *ctx, const struct vg_probe_rec *r)
{
	return 0;
}

static int refuse(struct vg_ckpt_run *c, struct vg_err *e)
{
	pid_t pid = vg_run_pid(c->run), t;

	if (c->o.follow_forks)
		return vg_errf_code(e, VG_EXIT_USAGE, "no checkpoints with --follow-fork");
	if (c->o.fork_snapshots)
		return vg_errf_code(e, VG_EXIT_USAGE, "restore in a session needs CRIU checkpoints, not --snapshot=fork");
	if (c->o.dynamic)
		return vg_errf_code(e, VG_EXIT_USAGE, "restore does not go with --dynamic: the checkpoint's slices were not planned for");
	if (vg_ckpt_host_watchpoints(c->run))
		return vg_errf_code(e, VG_EXIT_USAGE, "restore does not go with watchpoints yet: their hardware breakpoints belong to the process being replaced");
	if ((t = vg_proc_tracer(pid)))
		return vg_errf_code(e, VG_EXIT_USAGE, "pid %d is traced by process %d (gdb?): restore from gdb with `vigil restore`, which lets go of it first",
				    pid, t);
	return 0;
}

/* The old process is gone; bring back the image and the monitor. -1 with
 * e set: the program is gone too (restored_from says so at the end). */
static int bring_back(struct vg_ckpt_run *c, const char *img,
		      const struct vg_outfiles *of, struct vg_err *e)
{
	struct vg_probe *probe = vg_run_probe(c->run);
	pid_t want = vg_run_pid(c->run);
	char state[PATH_MAX + 80];
	pid_t pid;

	uint64_t t = vg_now_ns(CLOCK_MONOTONIC);

	pid = vg_ckpt_restore_with(img, of, e);
	if (pid < 0)
		return -1;
	phase("criu restore", &t);
	if (pid != want) {	/* CRIU restores the pid it dumped */
		kill(pid, SIGKILL);
		return vg_errf(e, "criu restored pid %d, not %d", pid, want);
	}
	vg_probe_forget_exit(probe);
	vg_probe_clear_kslices(probe);
	snprintf(state, sizeof(state), "%s/monitor.state", img);
	/* the monitor as it was, with vigil load's properties (which, when
	 * they fail, the session goes on without, and says so) */
	if (vg_ckpt_host_load_state(c->run, state, e)) {
		/* a program the monitor cannot follow is not left stopped
		 * behind it: the session ends with both gone, and says so */
		kill(pid, SIGKILL);
		vg_ckpt_wait_gone(c);
		return -1;
	}
	load_extra(c->run, state);
	phase("monitor state", &t);
	return 0;
}

int vg_ckpt_run_restore(struct vg_ckpt_run *c, int num, bool hold,
			char *text, size_t tlen, struct vg_err *e)
{
	struct vg_probe *probe = vg_run_probe(c->run);
	struct vg_scenario *sc = vg_run_scenario(c->run);
	pid_t pid = vg_run_pid(c->run);
	char img[PATH_MAX + 64], why[PATH_MAX + 128];
	struct vg_ckpt_meta m;
	struct vg_outfiles of;
	struct vg_err pe = { 0 };
	uint64_t t = vg_now_ns(CLOCK_MONOTONIC);
	int n, rc;

	if (refuse(c, e))
		return -1;
	if ((n = find_image(c, num, img, sizeof(img))) < 0)
		return num ? vg_errf_code(e, VG_EXIT_USAGE, "no checkpoint %d in this session (`vigil checkpoints` lists them)", num)
			   : vg_errf_code(e, VG_EXIT_USAGE, "no checkpoint yet: `vigil checkpoint` takes one");
	if (vg_ckpt_read_meta(img, &m, e))
		return -1;
	if (!m.has_state)
		return vg_errf(e, "%s has no monitor state beside it", img);
	/* 1. nothing runs, nothing is probed */
	if (vg_proc_state(pid) != 'T' && vg_proc_stop(pid, e))
		return -1;
	vg_probe_suspend(probe);
	if (vg_ckpt_host_drain(c->run, e) < 0) {
		/* nothing changed: as it was, probes and all */
		vg_probe_resume(probe, &pe);
		if (!hold)
			kill(pid, SIGCONT);
		return -1;
	}
	vg_ckpt_host_units_suspend(c->run);	/* vigil load's too, drained */
	phase("stop, detach the probes", &t);
	/* 2. its output files, then its pid */
	if (vg_outfiles_open(img, pid, &of, &pe))
		fprintf(stderr, "vigil: restore: %s; CRIU opens them itself\n", pe.msg);
	if (!c->o.attached)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	kill(pid, SIGKILL);
	vg_ckpt_wait_gone(c);
	vg_probe_drain(probe, drop_record, NULL, &pe);	/* its death */
	phase("kill", &t);
	/* 3, 4; an attached program's parent may not have reaped it */
	if (kill(pid, 0) == 0)
		rc = vg_errf(e, "pid %d was killed, but its parent (pid %d) has not reaped it: CRIU cannot restore under that pid",
			     pid, vg_proc_status_pid(pid, "PPid:"));
	else
		rc = bring_back(c, img, &of, e);
	vg_outfiles_close(&of);
	if (rc) {
		/* the program is gone: the session ends, and says so */
		c->restored = true;
		c->restored_from[0] = 0;
		vg_scenario_set_target(sc, pid, false, "the restore failed");
		return -1;
	}
	/* 5 */
	t = vg_now_ns(CLOCK_MONOTONIC);
	if (vg_probe_resume(probe, e) || vg_ckpt_host_units_resume(c->run, e)) {
		kill(pid, SIGCONT);	/* never frozen for a monitor that is gone */
		return -1;
	}
	phase("attach the probes", &t);
	snprintf(why, sizeof(why), "restored from the checkpoint %s", img);
	vg_scenario_set_target(sc, pid, false, why);
	vg_scenario_resume(sc);
	/* the guard resumes it if vigil dies; gdb's stops were the old run's */
	vg_ckpt_host_replaced(c->run);
	c->gen++;
	if (!hold)
		kill(pid, SIGCONT);
	snprintf(text, tlen, "restored pid %d from checkpoint %d (%s, after %" PRIu64 " events)%s\n",
		 pid, n, m.reason, m.events,
		 hold ? "" : "; it runs on");
	fprintf(stderr, "vigil: %s", text);
	return n;
}
