/* What the session does with each record the probes send (vg_session_on_record):
 * events to the monitor, kernel-tier steps mirrored into it, strings
 * interned, stacks symbolized with the target's own mappings; the kernel
 * tier's whole slice table copied into the monitor, and the probes'
 * event totals. */
#include "session.h"
#include "session_internal.h"
#include "leaks/leaks.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "act/gdb.h"
#include "act/scenario.h"
#include "dynamic/dynamic.h"
#include "monitor/monitor.h"
#include "probe/probe.h"
#include "probe/returns.h"
#include "probe/rewind.h"
#include "proc/guard.h"
#include "proc/proc.h"
#include "proc/entry.h"
#include "ckpt/ckpt.h"
#include "live/live.h"
#include "report/evidence.h"
#include "sym/libs.h"
#include "sym/maps.h"
#include "sym/symbolize.h"
#include "report/report.h"
#include "sym/elf.h"
#include "trace/trace.h"
#include "plan/plan.h"
#include "watchset/fault.h"
#include "watchset/watchset.h"
#include "symval/symval.h"
#include "objmap/objmap.h"

/* The target's symbolizer, made when the first stack-bearing record
 * arrives: its mappings are read while it is alive, since a leak's stack
 * is symbolized at exit, when /proc/PID is gone. Frames with a build id
 * are found in the files named there, the executable, or mapped later. */
static struct vg_symbolizer *symbolizer(struct session *ss)
{
	struct vg_libs libs;
	struct vg_err e;

	if (ss->p.sym || !(ss->p.sym = vg_symbolizer_new(ss->pid)))
		return ss->p.sym;
	/* a short-lived target is often gone before its first record is
	 * read: the files the loader maps for it stand in for its maps, and
	 * the --lib ones for libraries it may have dlclosed since */
	if (!vg_libs_load_with(ss->exe, ss->libs, ss->nlibs, &libs, &e)) {
		for (size_t i = 0; i < libs.n; i++)
			vg_symbolizer_add_file(ss->p.sym, libs.v[i].path);
		vg_libs_free(&libs);
	}
	vg_symbolizer_add_file(ss->p.sym, ss->exe);
	return ss->p.sym;
}

struct vg_symbolizer *vg_session_symbolizer(struct session *ss)
{
	return symbolizer(ss);
}

/* the symbolizer of process pid: vigil watch's own (its maps, its load
 * biases), else the target's */
struct stack_ctx {
	struct session *ss;
	pid_t pid;
};

static struct vg_symbolizer *stack_symbolizer(void *ctx)
{
	struct stack_ctx *c = ctx;
	struct vg_symbolizer *sy = vg_session_watch_symbolizer(c->ss, c->pid);

	return sy ? sy : symbolizer(c->ss);
}

/* vg_stack_fn: the captured user stack of an event, symbolized, with an
 * entry probe's caller, which the frame-pointer walk missed */
int vg_session_event_stack(void *ctx, const struct vg_mon_event *ev,
			   char (*lines)[320], int max)
{
	struct session *ss = ctx;
	struct stack_ctx c = { ss, (pid_t)ev->pid };

	if (!ss->p.stack_on || !ss->p.stack_on[ev->event] || !ss->p.probe)
		return 0;	/* not captured (see stack_events) */
	return vg_probe_stack_lines(ss->p.probe,
				    (int64_t)ev->slot[VG_SLOT_STACK],
				    stack_symbolizer, &c,
				    ss->p.spec->events[ev->event].kind ==
				    VG_EV_BEFORE ? ev->slot[VG_SLOT_CALLER] : 0,
				    lines, max);
}

static void rec_to_event(struct session *ss, const struct vg_rec_hdr *h,
			 const void *slot, struct vg_mon_event *ev)
{
	ev->event = h->event;
	ev->pid = h->pid;
	ev->tid = h->tid;
	ev->time_ns = h->time_ns;
	ev->seq = ++ss->seq;
	memcpy(ev->slot, slot, sizeof(ev->slot));
}

/* str(p) captures: the probe sent the bytes, the monitor compares
 * interned ids (include/vigil_code.h). */
static int intern_strings(struct session *ss,
			  const struct vg_rec_event_str *rs,
			  struct vg_mon_event *ev)
{
	const struct vg_event *def = &ss->p.spec->events[ev->event];
	char buf[VG_STR_MAX];

	for (int k = 0; k < def->ncaps; k++) {
		uint64_t id;

		if (!def->caps[k].is_str)
			continue;
		memcpy(buf, rs->str[def->caps[k].str_idx % VG_MAX_STRS],
		       sizeof(buf));
		buf[sizeof(buf) - 1] = 0;
		if ((id = vg_spec_intern(ss->p.spec, buf)) == UINT64_MAX)
			return -1;
		ev->slot[VG_SLOT_CAP0 + k] = id;
	}
	return 0;
}




/* A kernel-tier step: mirror it, then react as the user tier would. */
static int on_kstep(struct session *ss, const struct vg_rec_kstep *k,
		    struct vg_err *e)
{
	int prop = vg_probe_kprop_of(ss->p.probe, k->prop);
	const struct vg_property *p;
	struct vg_slice_view v = { .trans = -1 };
	struct vg_mon_event ev;
	uint64_t params[VG_MAX_PARAMS] = { k->key[0], k->key[1] };
	int64_t vars[VG_KMAX_VARS];

	struct vg_monitor *mon = ss->p.mon;
	struct vg_evidence *x = ss->p.evidence;

	/* a step sent just before its property's unload: not its any more */
	if (prop < 0 || vg_monitor_prop_disabled(ss->p.mon, prop))
		return 0;
	p = &ss->p.spec->props[prop];
	/* vigil watch: the process's own monitor and evidence */
	vg_session_watch_kproc(ss, (pid_t)k->h.pid, &mon, &x);
	if (k->h.kind == VG_REC_KFULL || k->h.kind == VG_REC_KBUSY) {
		if (!ss->warned_loss)
			fprintf(stderr, "vigil: %s: kernel tier %s; its verdicts are inconclusive (see --max-slices)\n",
				p->name, k->h.kind == VG_REC_KFULL
					? "slice table full"
					: "could not lock a slice in time");
		ss->warned_loss = true;
		vg_monitor_mark_inconclusive(ss->p.mon, prop);
		vg_monitor_mark_inconclusive(mon, prop);
		return 0;
	}
	if (ss->p.spec->events[k->h.event].kind == VG_EV_TIMEOUT)
		vg_monitor_note_timeout(ss->p.mon);
	/* the kernel's timer fired a timeout: a recording gets the clock
	 * tick the user tier's would (session/timeouts.c), so that it
	 * replays to the same verdicts */
	if (ss->rec && ss->p.spec->events[k->h.event].kind == VG_EV_TIMEOUT) {
		struct vg_mon_event tick = {
			.event = (int)k->h.event, .pid = k->h.pid,
			.time_ns = k->slot[VG_TSLOT_FIRED],
		};

		if (vg_recorder_write(ss->rec, &tick))
			return vg_errf(e, "writing %s failed",
				       ss->o->record_path);
	}
	memcpy(vars, k->vars, sizeof(vars));
	if (ss->p.stack_on && ss->p.stack_on[k->h.event])
		symbolizer(ss);
	if (k->h.flags & VG_RF_CKPT)
		vg_ckpt_run_kernel_stop(ss->ckpt);
	if (vg_monitor_set(mon, prop, (1u << p->nparams) - 1, params,
			   k->to, vars, e))
		return -1;
	rec_to_event(ss, &k->h, k->slot, &ev);
	v.prop = prop;
	v.mask = (1u << p->nparams) - 1;
	v.params = params;
	v.state = k->to;
	v.vars = vars;
	vg_evidence_add(x, &v, k->from, k->to, &ev);
	vg_report_set_evidence(ss->p.report, x);
	{	/* exact or not: probe/rewind.c */
		char note[256];

		vg_report_stop_note(ss->p.report,
				    vg_rewind_stop_note(ss->p.probe, ss->p.spec,
							(int)k->h.event,
							k->h.flags, note,
							sizeof(note)));
	}
	if ((k->h.flags & VG_RF_STOPPED) && !(k->h.flags & VG_RF_REWOUND))
		ss->stop_event = (int)k->h.event + 1;	/* jmp_stop.h */
	vg_session_react(ss, &v, k->from, k->to, &ev,
			 k->h.flags & VG_RF_STOPPED);
	vg_report_stop_note(ss->p.report, NULL);	/* this step's only */
	return 0;
}

/* Errors here end the session: they go to ss->err, which the loop
 * returns. */
int vg_session_on_record(void *ctx, const struct vg_probe_rec *r)
{
	struct session *ss = ctx;

	if (r->proc)
		return vg_session_on_process(ss, r->proc);
	/* the loader's rendezvous (symval.h): the mappings read while its
	 * probe holds the process, which the drain's end lets go; no
	 * property's event, and not one of the run's records */
	if (r->ev && ss->p.spec->events[r->h->event].maps_sync) {
		struct vg_mon_event ev;

		rec_to_event(ss, r->h, r->ev->slot, &ev);
		vg_hold_note(ss, r->h);
		vg_symval_event(ss->p.symval, &ev);
		vg_session_objmap_maps(ss, (pid_t)r->h->pid);
		return 0;
	}
	ss->events++;
	if (r->ev) {
		struct vg_mon_event ev;
		struct vg_monitor *mon;
		int rc;

		rec_to_event(ss, r->h, r->ev->slot, &ev);
		vg_features_record(ss, &ev, r->h->flags);
		vg_hold_note(ss, r->h);
		if (r->strs && intern_strings(ss, r->strs, &ev))
			return vg_errf(ss->err, "out of memory");
		ss->rec_stopped = r->h->flags & VG_RF_STOPPED;
		vg_symval_event(ss->p.symval, &ev);
		vg_objmap_event(ss->p.objmap, &ev);
		if (ss->p.stack_on && ss->p.stack_on[ev.event] && ss->o->watch_ops)
			vg_session_watch_symbolizer(ss, (pid_t)ev.pid);
		else if (ss->p.stack_on && ss->p.stack_on[ev.event])
			symbolizer(ss);
		/* (a call vigil added for watched blocks is not the spec's:
		 * a recording is replayed against the spec alone) */
		if (ss->rec && !ss->p.spec->events[ev.event].access_for &&
		    vg_recorder_write(ss->rec, &ev))
			return vg_errf(ss->err, "writing %s failed",
				       ss->o->record_path);
		mon = vg_session_monitor_of(ss, ev.pid);
		vg_watchset_creq(ss->ws, mon, &ev);	/* client requests */
		vg_watchset_note(ss->ws, ev.event, r->h->flags);
		if (vg_callacc_is_fault(ss->p.spec, ev.event))
			vg_fault_note(ss->p.report, &ev, vg_session_event_stack,
				      ss);
		rc = ss->p.spec->events[ev.event].access_for
			? vg_watchset_call(ss->ws, mon, &ev, ss->err)
			: vg_event_watches(&ss->p.spec->events[ev.event])
			? vg_watchset_hit(ss->ws, mon, &ev, ss->err)
			: vg_monitor_event(mon, &ev, ss->err);
		vg_watchset_settle(ss->ws, mon);
		vg_objmap_event_done(ss->p.objmap, &ev);
		if (vg_callacc_is_fault(ss->p.spec, ev.event))
			vg_fault_done(ss->p.report);
		return rc;
	}
	return on_kstep(ss, r->ks, ss->err);
}

static void mirror_kslice(void *ctx, int prop, const uint64_t *key,
			  int state, const int64_t *vars)
{
	struct session *ss = ctx;
	const struct vg_property *p = &ss->p.spec->props[prop];
	uint64_t params[VG_MAX_PARAMS] = { key[0], key[1] };
	struct vg_err e;

	vg_monitor_set(ss->p.mon, prop, (1u << p->nparams) - 1, params, state,
		       vars, &e);
}

void vg_session_mirror_kslices(struct session *ss)
{
	/* the kernel tier's slice table is the truth about its slices: the
	 * monitor learns their states from the steps it reports, not the
	 * variables of the steps it keeps to itself */
	if (ss->o->watch_ops)	/* by process (user/watch/) */
		vg_session_watch_mirror(ss);
	else
		vg_probe_foreach_kslice(ss->p.probe, mirror_kslice, ss);
}

void vg_session_event_totals(const struct session *ss, uint64_t *events,
			     uint64_t *lost)
{
	*events = *lost = 0;
	for (int i = 0; i < ss->p.spec->nevents; i++) {
		uint64_t h, l;

		if (ss->p.spec->events[i].maps_sync)	/* vigil's own */
			continue;
		vg_probe_counts(ss->p.probe, i, &h, &l);
		*events += h;
		*lost += l;
	}
}
