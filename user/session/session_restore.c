/* `vigil restore [N]` inside a live session (from gdb, or `vigil ctl PID
 * restore`): the program and the monitor go back to checkpoint N together,
 * and the session goes on with the restored process.
 *
 * The order:
 *  1. stop the target and suspend the uprobes (as a checkpoint does), read
 *     the records already sent;
 *  2. take over the descriptors of the files it writes to (act/outfiles.h),
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
#include "session_internal.h"
#include "live.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "act/checkpoint.h"
#include "act/outfiles.h"
#include "act/scenario.h"
#include "monitor/monitor.h"
#include "proc/guard.h"
#include "proc/proc.h"
#include "report/evidence.h"
#include "monstate.h"
#include "live_load.h"
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

void vg_session_state_extra(struct session *ss, FILE *out)
{
	/* read by vg_session_restore only; vg_monstate_load skips them */
	for (int i = 0; i < ss->spec->nevents; i++) {
		uint64_t h, l;

		if (ss->spec->events[i].maps_sync)	/* vigil's own */
			continue;
		vg_probe_counts(ss->probe, i, &h, &l);
		fprintf(out, "count %d %" PRIu64 " %" PRIu64 "\n", i, h, l);
	}
	fprintf(out, "evidence %" PRIu64 "\n", vg_evidence_mark(ss->evidence));
}

static void any_violation(void *ctx, const struct vg_slice_view *s)
{
	bool *seen = ((void **)ctx)[0];
	const struct vg_spec *spec = ((void **)ctx)[1];

	if (spec->props[s->prop].states[s->state].kind == VG_STATE_VIOLATION)
		*seen = true;
}

bool vg_session_violated_now(struct session *ss)
{
	bool seen = false;
	void *ctx[2] = { &seen, ss->spec };

	/* before any restore, a violation seen is one the program made */
	if (!ss->target_gen)
		return vg_scenario_violated(ss->sc);
	vg_session_mirror_kslices(ss);
	vg_monitor_foreach(ss->mon, any_violation, ctx);
	return seen;
}

static void load_extra(struct session *ss, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned long long h, l, mark;
	int ev;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "count %d %llu %llu", &ev, &h, &l) == 3 &&
		    ev >= 0 && ev < ss->spec->nevents)
			vg_probe_set_counts(ss->probe, ev, h, l);
		else if (sscanf(line, "evidence %llu", &mark) == 1)
			vg_evidence_rewind(ss->evidence, mark);
	}
	fclose(f);
}

/* Checkpoint num of this session (0: the newest): its path, or -1. */
static int find_image(struct session *ss, int num, char *out, size_t len)
{
	char path[PATH_MAX + 64];
	int n, found = -1;

	for (int i = 0; (n = vg_ckpt_image(ss->ck, i, path, sizeof(path))) >= 0; i++)
		if (!num || n == num) {
			snprintf(out, len, "%s", path);
			found = n;
		}
	return found;
}

/* A monitor with nothing in it, made as open_all made the first. */
static struct vg_monitor *fresh_monitor(struct session *ss, struct vg_err *e)
{
	struct vg_monitor_hooks hooks = { .ctx = ss,
					  .transition = vg_session_on_transition };
	struct vg_monitor_opts mo = { .max_slices = ss->o->max_slices };
	bool *user = calloc(ss->spec->nprops + 1, sizeof(bool));
	struct vg_monitor *m;

	if (!user) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	for (int i = 0; i < ss->spec->nprops; i++)
		user[i] = !ss->kernel[i];
	mo.evaluate = user;
	m = vg_monitor_new(ss->spec, &mo, &hooks, e);
	free(user);
	return m;
}

static int drop_record(void *ctx, const struct vg_probe_rec *r)
{
	return 0;
}

static int refuse(struct session *ss, struct vg_err *e)
{
	pid_t t;

	if (ss->o->follow_forks)
		return vg_errf_code(e, VG_EXIT_USAGE, "no checkpoints with --follow-fork");
	if (ss->o->fork_snapshots)
		return vg_errf_code(e, VG_EXIT_USAGE, "restore in a session needs CRIU checkpoints, not --snapshot=fork");
	if (ss->o->dynamic)
		return vg_errf_code(e, VG_EXIT_USAGE, "restore does not go with --dynamic: the checkpoint's slices were not planned for");
	if (ss->ws)
		return vg_errf_code(e, VG_EXIT_USAGE, "restore does not go with watchpoints yet: their hardware breakpoints belong to the process being replaced");
	if ((t = vg_proc_tracer(ss->pid)))
		return vg_errf_code(e, VG_EXIT_USAGE, "pid %d is traced by process %d (gdb?): restore from gdb with `vigil restore`, which lets go of it first",
				    ss->pid, t);
	return 0;
}

/* The old process is gone; bring back the image and the monitor. -1 with
 * e set: the program is gone too (restored_from says so at the end). */
static int bring_back(struct session *ss, const char *img,
		      const struct vg_outfiles *of, struct vg_err *e)
{
	char state[PATH_MAX + 80];
	struct vg_monitor *mon;
	pid_t pid;

	uint64_t t = vg_now_ns(CLOCK_MONOTONIC);

	pid = vg_ckpt_restore_with(img, of, e);
	if (pid < 0)
		return -1;
	phase("criu restore", &t);
	if (pid != ss->pid) {	/* CRIU restores the pid it dumped */
		kill(pid, SIGKILL);
		return vg_errf(e, "criu restored pid %d, not %d", pid, ss->pid);
	}
	vg_probe_forget_exit(ss->probe);
	vg_probe_clear_kslices(ss->probe);
	snprintf(state, sizeof(state), "%s/monitor.state", img);
	if (!(mon = fresh_monitor(ss, e)) ||
	    vg_monstate_load(state, ss->spec, mon, ss->probe, ss->kernel, e)) {
		/* a program the monitor cannot follow is not left stopped
		 * behind it: the session ends with both gone, and says so */
		vg_monitor_free(mon);
		kill(pid, SIGKILL);
		vg_session_wait_gone(ss);
		return -1;
	}
	vg_monitor_free(ss->mon);
	ss->mon = mon;
	load_extra(ss, state);
	{	/* vigil load's properties as they were at the checkpoint */
		struct vg_err le = { 0 };

		if (vg_load_restore(ss, state, &le))
			fprintf(stderr, "vigil: restore: %s; the session goes on without it\n",
				le.msg);
	}
	phase("monitor state", &t);
	return 0;
}

int vg_session_restore(struct session *ss, int num, bool hold, char *text,
		       size_t tlen, struct vg_err *e)
{
	char img[PATH_MAX + 64], why[PATH_MAX + 128];
	struct vg_ckpt_meta m;
	struct vg_outfiles of;
	struct vg_err pe = { 0 };
	uint64_t t = vg_now_ns(CLOCK_MONOTONIC);
	int n, rc;

	if (refuse(ss, e))
		return -1;
	if ((n = find_image(ss, num, img, sizeof(img))) < 0)
		return num ? vg_errf_code(e, VG_EXIT_USAGE, "no checkpoint %d in this session (`vigil checkpoints` lists them)", num)
			   : vg_errf_code(e, VG_EXIT_USAGE, "no checkpoint yet: `vigil checkpoint` takes one");
	if (vg_ckpt_read_meta(img, &m, e))
		return -1;
	if (!m.has_state)
		return vg_errf(e, "%s has no monitor state beside it", img);
	/* 1. nothing runs, nothing is probed */
	if (vg_proc_state(ss->pid) != 'T' && vg_proc_stop(ss->pid, e))
		return -1;
	vg_probe_suspend(ss->probe);
	if (vg_probe_drain(ss->probe, vg_session_on_record, ss, e) < 0) {
		/* nothing changed: as it was, probes and all */
		vg_probe_resume(ss->probe, &pe);
		if (!hold)
			kill(ss->pid, SIGCONT);
		return -1;
	}
	vg_load_suspend(ss);	/* vigil load's too, drained */
	phase("stop, detach the probes", &t);
	/* 2. its output files, then its pid */
	if (vg_outfiles_open(img, ss->pid, &of, &pe))
		fprintf(stderr, "vigil: restore: %s; CRIU opens them itself\n", pe.msg);
	if (!ss->o->pid)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	kill(ss->pid, SIGKILL);
	vg_session_wait_gone(ss);
	vg_probe_drain(ss->probe, drop_record, NULL, &pe);	/* its death */
	phase("kill", &t);
	/* 3, 4; an attached program's parent may not have reaped it */
	if (kill(ss->pid, 0) == 0)
		rc = vg_errf(e, "pid %d was killed, but its parent (pid %d) has not reaped it: CRIU cannot restore under that pid",
			     ss->pid, vg_proc_status_pid(ss->pid, "PPid:"));
	else
		rc = bring_back(ss, img, &of, e);
	vg_outfiles_close(&of);
	if (rc) {
		/* the program is gone: the session ends, and says so */
		ss->restored = true;
		ss->restored_from[0] = 0;
		vg_scenario_set_target(ss->sc, ss->pid, false, "the restore failed");
		return -1;
	}
	/* 5 */
	t = vg_now_ns(CLOCK_MONOTONIC);
	if (vg_probe_resume(ss->probe, e) || vg_load_resume(ss, e)) {
		kill(ss->pid, SIGCONT);	/* never frozen for a monitor that is gone */
		return -1;
	}
	phase("attach the probes", &t);
	vg_guard_add(ss->guard, ss->pid);
	snprintf(why, sizeof(why), "restored from the checkpoint %s", img);
	vg_scenario_set_target(ss->sc, ss->pid, false, why);
	vg_scenario_resume(ss->sc);
	vg_live_forget_stops(ss);
	ss->target_gen++;
	if (!hold)
		kill(ss->pid, SIGCONT);
	snprintf(text, tlen, "restored pid %d from checkpoint %d (%s, after %" PRIu64 " events)%s\n",
		 ss->pid, n, m.reason, m.events,
		 hold ? "" : "; it runs on");
	fprintf(stderr, "vigil: %s", text);
	return n;
}
