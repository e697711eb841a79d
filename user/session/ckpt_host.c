/* What user/ckpt/ asks of the session (ckpt/ckpt.h, vg_ckpt_host_*): the
 * session's probes, scenario and processes, its monitor's state written
 * beside an image and brought back from one. The checkpoint module sees
 * the session as a struct vg_run only; this file is where that run is
 * the session again, as features.c is for the features. */
#include "session_internal.h"

#include <inttypes.h>
#include <stdlib.h>

#include "act/scenario.h"
#include "ckpt/ckpt.h"
#include "follow/follow.h"
#include "load/load.h"
#include "monitor/monitor.h"
#include "proc/guard.h"
#include "report/evidence.h"
#include "report/report.h"
#include "live/live.h"

static struct session *S(struct vg_run *r)
{
	return (struct session *)r;
}

void vg_ckpt_host_set_pid(struct vg_run *r, pid_t pid)
{
	S(r)->pid = pid;
}

int vg_ckpt_host_drain(struct vg_run *r, struct vg_err *e)
{
	return vg_probe_drain(S(r)->p.probe, vg_session_on_record, S(r), e);
}

void vg_ckpt_host_units_suspend(struct vg_run *r)
{
	vg_load_suspend(r);
}

int vg_ckpt_host_units_resume(struct vg_run *r, struct vg_err *e)
{
	return vg_load_resume(r, e);
}

int vg_ckpt_host_prepare(struct vg_run *r, pid_t of, struct vg_err *e)
{
	return vg_features_checkpoint_prepare(S(r), of, e);
}

void vg_ckpt_host_told(struct vg_run *r, pid_t of, const char *dir,
		       const char *reason, const char *what, const char *why)
{
	vg_features_checkpoint(S(r), of, dir, reason, what, why);
}

/* What a checkpoint's monitor.state carries besides vg_monstate_write's:
 * the per-event counts and the evidence's mark, read by a restore in the
 * session only (vg_monstate_load skips them). */
static void state_extra(struct session *ss, FILE *out)
{
	for (int i = 0; i < ss->p.spec->nevents; i++) {
		uint64_t h, l;

		if (ss->p.spec->events[i].maps_sync)	/* vigil's own */
			continue;
		vg_probe_counts(ss->p.probe, i, &h, &l);
		fprintf(out, "count %d %" PRIu64 " %" PRIu64 "\n", i, h, l);
	}
	fprintf(out, "evidence %" PRIu64 "\n", vg_evidence_mark(ss->p.evidence));
}

int vg_ckpt_host_write_state(struct vg_run *r, FILE *out, struct vg_err *e)
{
	struct session *ss = S(r);

	/* the session's properties, then what a restore in the session
	 * reads, then the features' own (vigil load's units, each in a
	 * section of its own: load/load.h) */
	if (vg_monstate_write(out, ss->p.spec, ss->p.mon, ss->p.probe, ss->p.kernel,
			      e))
		return -1;
	state_extra(ss, out);
	return vg_features_save(ss, out, e);
}

int vg_ckpt_host_load_state(struct vg_run *r, const char *path,
			    struct vg_err *e)
{
	struct session *ss = S(r);
	struct vg_monitor *mon;
	struct vg_err le = { 0 };

	if (!(mon = vg_session_monitor_new(ss, e)) ||
	    vg_monstate_load(path, ss->p.spec, mon, ss->p.probe, ss->p.kernel, e)) {
		vg_monitor_free(mon);
		return -1;
	}
	vg_monitor_free(ss->p.mon);
	ss->p.mon = mon;
	/* the features' own (vigil load's properties) as they were at the
	 * checkpoint */
	if (vg_features_restore(ss, path, &le))
		fprintf(stderr, "vigil: restore: %s; the session goes on without it\n",
			le.msg);
	return 0;
}

bool vg_ckpt_host_watchpoints(struct vg_run *r)
{
	return S(r)->ws != NULL;
}

void vg_ckpt_host_replaced(struct vg_run *r)
{
	vg_guard_add(S(r)->guard, S(r)->pid);
	vg_live_forget_stops(r);
	vg_session_objmap_replaced(S(r));
	vg_features_replaced(S(r), S(r)->pid);
}

bool vg_ckpt_host_gdb_traces(struct vg_run *r, pid_t tracer)
{
	return vg_live_gdb_traces(r, tracer);
}

bool vg_ckpt_host_gdb_checkpoint(struct vg_run *r, const char *reason,
				 bool good)
{
	return vg_live_want_checkpoint(r, reason, good);
}

bool vg_ckpt_host_gdb_take(struct vg_run *r, char *reason, size_t len,
			   bool *good)
{
	return vg_live_take_checkpoint(r, reason, len, good);
}

bool vg_ckpt_host_proc(struct vg_run *r, pid_t pid, struct vg_ckpt_proc *p)
{
	struct session *ss = S(r);
	struct vg_monitor_stats ms;
	uint64_t lost;
	struct vg_kid *k = vg_follow_find(ss->procs, pid);

	if (!k)
		return false;
	p->stopped = k->stopped;
	p->violations = k->violations;
	/* its own events in the user tier; the kernel tier's are counted
	 * for all processes together */
	vg_monitor_stats(k->mon, &ms);
	if (vg_session_watch_kernel(ss))
		vg_session_event_totals(ss, &ms.events, &lost);
	p->events = ms.events;
	return true;
}

int vg_ckpt_host_write_proc_state(struct vg_run *r, pid_t pid, FILE *out,
				  struct vg_err *e)
{
	struct session *ss = S(r);
	struct vg_kid *k = vg_follow_find(ss->procs, pid);

	if (!k)
		return vg_errf(e, "pid %d is no longer watched", pid);
	return vg_monstate_write_proc(out, ss->p.spec, k->mon,
				      vg_session_watch_kernel(ss) ? ss->p.probe
								  : NULL,
				      ss->p.kernel, pid, e);
}

void vg_ckpt_host_proc_units_pause(struct vg_run *r, pid_t pid)
{
	vg_session_watch_units_pause(S(r), pid);
}

void vg_ckpt_host_proc_units_unpause(struct vg_run *r, pid_t pid)
{
	vg_session_watch_units_unpause(S(r), pid);
}

void vg_ckpt_host_proc_drop(struct vg_run *r, pid_t pid, const char *detail)
{
	vg_session_watch_drop(S(r), pid, detail);
}

FILE *vg_ckpt_host_json(struct vg_run *r)
{
	return vg_report_json(S(r)->p.report);
}
