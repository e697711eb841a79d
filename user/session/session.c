/* The run's core: plan, start or attach, install, then the loop (wait,
 * drain the ring into the monitor, timeouts, held threads, the control
 * channel, signals) until the target exits, stops at a violation or
 * vigil detaches; then the end, and everything torn down, probes first.
 * The features are called through their hooks (features.c), the modules
 * the core hosts through their headers (docs/ARCHITECTURE.md). */
#include "session.h"
#include "session_internal.h"
#include "load/load.h"

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

#include "act/scenario.h"
#include "follow/follow.h"
#include "ckpt/ckpt.h"
#include "monitor/monitor.h"
#include "feature/feature.h"
#include "probe/debugregs.h"
#include "probe/features.h"
#include "probe/probe.h"
#include "probe/rewind.h"
#include "proc/guard.h"
#include "proc/proc.h"
#include "proc/entry.h"
#include "live/live.h"
#include "report/evidence.h"
#include "sym/libs.h"
#include "sym/maps.h"
#include "sym/symbolize.h"
#include "util/clock.h"
#include "report/report.h"
#include "sym/elf.h"
#include "trace/trace.h"
#include "watchmatch/watchmatch.h"
#include "plan/plan.h"
#include "symval/symval.h"
#include "objmap/objmap.h"
#include "watchset/watchset.h"

#define VG_POLL_MS 10
/* records per drain below which the event loop also waits on the ring */
#define VG_TRICKLE 8

void vg_session_react(struct session *ss, const struct vg_slice_view *s,
		      int from, int to, const struct vg_mon_event *ev,
		      bool stopped)
{
	bool was_stopped = vg_scenario_target_stopped(ss->p.sc);
	const char *why;

	vg_scenario_transition(ss->p.sc, s, from, to, ev, stopped);
	/* after the reactions: the log says whether it was left stopped */
	vg_features_transition(ss, s, from, ev);
	if (!was_stopped && vg_scenario_target_stopped(ss->p.sc))
		vg_features_stop(ss, vg_scenario_stop_pid(ss->p.sc),
				 vg_scenario_stop_tid(ss->p.sc, &why));
	/* vigil watch: each process's stop is its own */
	vg_session_watch_transition(ss, s, to, ev);
	vg_live_transition((struct vg_run *)ss, s, from, to, ev, stopped);
}

int vg_session_part_open(struct session *s, const struct vg_plan *plan,
			 struct vg_err *e)
{
	memcpy(s->p.kernel, plan->kernel, (size_t)s->p.spec->nprops * sizeof(bool));
	memcpy(s->p.stack_on, plan->stack_events,
	       (size_t)s->p.spec->nevents * sizeof(bool));
	if (!(s->p.report = vg_report_new(s->p.spec, stderr, s->o->json_path, e)))
		return -1;
	/* an event no probe can take here (plan_unseen.c, warned of):
	 * what its properties conclude is inconclusive at best, in every
	 * monitor of the part (vg_session_monitor_new), as for lost
	 * records, and the summary says why */
	for (int i = 0; i < s->p.spec->nprops; i++) {
		if (!plan->props[i].unseen[0])
			continue;
		if (!s->p.unseen &&
		    !(s->p.unseen = calloc((size_t)s->p.spec->nprops, 1)))
			return vg_errf(e, "out of memory");
		s->p.unseen[i] = plan->props[i].unseen_doubts
					 ? VG_UNSEEN_DOUBTS : VG_UNSEEN_BLIND;
		vg_report_set_blind(s->p.report, plan->props[i].unseen);
	}
	if (!(s->p.evidence = vg_evidence_new(s->p.spec, 0, s->o->evidence)) ||
	    !(s->p.symval = vg_symval_new((struct vg_run *)s, s->p.spec,
					s->p.stack_on, s->o->pid > 0)))
		return vg_errf(e, "out of memory");
	/* not when the agent's map or the probes' answer every memory
	 * predicate (bad_free in-process, by default) */
	if (plan->objmap_user &&
	    (!(s->p.objmap = vg_objmap_new(s->o->max_objects)) ||
	     vg_objmap_bind(s->p.objmap, (struct vg_run *)s, s->p.spec,
			    s->o->pid > 0)))
		return vg_errf(e, "out of memory");
	vg_evidence_set_stacks(s->p.evidence, vg_session_event_stack, s);
	vg_report_set_evidence(s->p.report, s->p.evidence);
	if (!(s->p.mon = vg_session_monitor_new(s, e)))
		return -1;
	s->p.sc = vg_scenario_new(s->p.spec, s->pid, s->p.report,
				s->o->on_violation, e);
	return s->p.sc ? 0 : -1;
}

void vg_session_part_free(struct vg_part *p)
{
	vg_scenario_free(p->sc);
	vg_monitor_free(p->mon);
	vg_report_free(p->report);
	vg_evidence_free(p->evidence);
	vg_symval_free(p->symval);
	vg_objmap_free(p->objmap);
	vg_symbolizer_free(p->sym);
	free(p->stack_on);
	free(p->kernel);
	free(p->unseen);
}

struct vg_monitor *vg_session_monitor_new(struct session *ss,
					  struct vg_err *e)
{
	struct vg_monitor_opts mo = { .max_slices = ss->o->max_slices };
	struct vg_monitor_hooks hooks = { .ctx = ss,
					  .transition = vg_session_on_transition };
	bool user[ss->p.spec->nprops + 1];
	struct vg_monitor *m;

	for (int i = 0; i < ss->p.spec->nprops; i++)
		user[i] = !ss->p.kernel[i];
	mo.evaluate = user;
	m = vg_monitor_new(ss->p.spec, &mo, &hooks, e);
	if (m)
		vg_monitor_set_mem(m, vg_objmap_oracle(ss->p.objmap));
	for (int i = 0; m && ss->p.unseen && i < ss->p.spec->nprops; i++)
		if (ss->p.unseen[i] == VG_UNSEEN_DOUBTS)
			vg_monitor_mark_inconclusive(m, i);
		else if (ss->p.unseen[i] == VG_UNSEEN_BLIND)
			vg_monitor_mark_blind(m, i);
	return m;
}

void vg_session_on_transition(void *ctx, const struct vg_slice_view *s,
			      int from, int to, const struct vg_mon_event *ev)
{
	struct session *ss = ctx;
	/* --follow-fork: a followed process's slices have their own history
	 * (the same slice parameters as the parent's, another process) */
	struct vg_evidence *x = vg_session_evidence_of(ss, (pid_t)ev->pid);

	vg_report_set_evidence(ss->p.report, x);
	vg_evidence_add(x, s, from, to, ev);
	vg_session_react(ss, s, from, to, ev, ss->rec_stopped);
	if (ss->ws)
		vg_watchset_transition(ss->ws,
				       vg_session_monitor_of(ss, (pid_t)ev->pid),
				       s, from, to);
}

/* The libraries spec functions may be in besides the loader's: --lib's,
 * and, attached to a running program, every shared object it has mapped,
 * which finds a plugin it dlopen'ed without --lib (vg_libs_load_with
 * skips those the loader maps anyway). */
static int session_libs(struct session *ss, struct vg_err *e)
{
	size_t n = ss->o->nlibs, nmapped = 0;
	char **mapped = NULL, **all;

	if (ss->o->pid > 0 &&
	    vg_proc_mapped_libs(ss->o->pid, &mapped, &nmapped, e))
		return -1;
	if (!(all = calloc(n + nmapped + 1, sizeof(*all)))) {
		vg_paths_free(mapped, nmapped);
		return vg_errf(e, "out of memory");
	}
	/* the session's own copies, freed together (vg_paths_free) */
	ss->libs = (const char **)all;
	for (size_t i = 0; i < nmapped; i++)
		all[n + i] = mapped[i];
	free(mapped);
	ss->nlibs = n + nmapped;
	for (size_t i = 0; i < n; i++)
		if (!(all[i] = strdup(ss->o->libs[i])))
			return vg_errf(e, "out of memory");
	return 0;
}

/* valgrind's client requests (the memory library's): asked of the
 * program's files only then */
static bool spec_has_creq(const struct vg_spec *spec)
{
	for (int i = 0; i < spec->nevents; i++)
		if (spec->events[i].client_request)
			return true;
	return false;
}

/* The target's process (stopped before its exec when vigil starts the
 * program) and the guard, which must exist before any probe can stop the
 * target. */
static int start_target(struct session *ss, const char *path,
			struct vg_err *e)
{
	ss->pid = ss->o->watch_exe ? 0	/* no target of its own */
		  : ss->o->pid > 0 ? ss->o->pid
				   : vg_proc_spawn_stopped(path, ss->o->argv,
							  ss->o->no_aslr, e);
	if (ss->pid < 0)
		return -1;
	if (!(ss->guard = vg_guard_start(ss->pid, !ss->o->pid, e)))
		return -1;
	return 0;
}

static int open_all(struct session *ss, struct vg_err *e)
{
	char why[ss->p.spec->nprops][256];
	char path[PATH_MAX];
	struct vg_plan *plan = NULL;
	struct vg_probe_early *early = NULL;
	struct vg_plan_opts plo = { 0 };
	int rc = -1;

	ss->p.kernel = calloc(ss->p.spec->nprops + 1, sizeof(bool));
	ss->p.stack_on = calloc(ss->p.spec->nevents + 1, sizeof(bool));
	if (!ss->p.kernel || !ss->p.stack_on) {
		vg_errf(e, "out of memory");
		goto out;
	}
	/* the options that do not go together (the plan's tier pass puts
	 * every property in the user tier with --follow-fork) */
	if (vg_session_watch_check(ss, e) ||
	    vg_follow_run_check((struct vg_run *)ss, ss->p.kernel, why, e))
		goto out;
	if (ss->o->dynamic && (ss->o->record_path || ss->o->state_path)) {
		vg_errf_code(e, VG_EXIT_USAGE, "--dynamic does not go with %s: %s",
			     ss->o->record_path ? "--record" : "a restored monitor state",
			     ss->o->record_path ? "a recording needs every event"
						: "its slices were not planned for");
		goto out;
	}
	if (ss->o->watch_exe)
		snprintf(path, sizeof(path), "%s", ss->o->watch_exe);
	else if (ss->o->pid > 0 ? vg_proc_exe(ss->o->pid, path, e)
				: vg_resolve_program(ss->o->argv[0], path, e))
		goto out;
	/* what the features ask of the plan (the leak check: a hold at
	 * _exit, the stacks of its loss records) */
	if (vg_features_plan(ss, &plo, e))
		goto out;
	/* The program's process and the guard are forked now, while vigil
	 * is small: forked after the plan, each page vigil had written by
	 * then and wrote again was a copy-on-write fault with a TLB
	 * shoot-down on the load's CPU (an IPI, a VM exit here), and the
	 * fork copied the grown page tables: ~5 ms of the start on 2 CPUs. */
	if (start_target(ss, path, e))
		goto out;
	if (session_libs(ss, e))
		goto out;
	/* the BPF object loads on the other CPU while the plan is built (a
	 * plan that configures it otherwise drops it); after the fork, so
	 * that the memory its load writes is no copy-on-write page */
	if (!ss->o->follow_forks && !ss->o->watch_exe)
		early = vg_probe_early_start(ss->p.spec, ss->o->ringbuf_bytes,
					     ss->o->max_slices,
					     ss->o->tier != VG_TIER_USER &&
					     vg_ktier_any_eligible(ss->p.spec,
						!vg_feat_ktimer(NULL)),
					     ss->o->stacks || plo.leak_check,
					     spec_has_creq(ss->p.spec) &&
					     vg_plan_creq_any(path, ss->libs,
							      ss->nlibs),
					     &plo);
	/* what the run installs, decided before anything is loaded
	 * (user/plan/plan.h) */
	plo.binary = path;
	plo.libs = ss->libs;
	plo.nlibs = ss->nlibs;
	plo.tier = ss->o->tier;
	plo.on_violation = ss->o->on_violation;
	plo.stacks = ss->o->stacks;
	plo.dynamic = ss->o->dynamic;
	plo.record = ss->o->record_path != NULL;
	/* vigil watch --tier=kernel: slices keyed by process */
	plo.follow_forks = ss->o->follow_forks && !vg_session_watch_kernel(ss);
	plo.warn = stderr;
	plo.watch = ss->o->watch_exe != NULL;
	/* checked only for a run that plans watch events, once a boot
	 * (probe/debugregs.h) */
	plo.no_debug_regs = vg_spec_watches(ss->p.spec) &&
			    vg_debug_regs() == VG_REGS_SILENT;
	plo.no_debug_regs_why = VG_NO_REGS_WHY;
	plo.no_ktimer = !vg_feat_ktimer(NULL);
	plo.max_objects = ss->o->max_objects;
	plo.attached = ss->o->pid > 0;
	if (!(plan = vg_plan_build(ss->p.spec, &plo, e)))
		goto out;
	if (vg_session_part_open(ss, plan, e))
		goto out;
	for (int i = 0; i < ss->p.spec->nprops; i++)
		if (ss->p.kernel[i] &&
		    (plan->props[i].inproc_mem || plan->props[i].bpf_mem))
			fprintf(stderr, "vigil: %s: kernel tier (%s)\n",
				ss->p.spec->props[i].name, plan->props[i].why);
		else
			fprintf(stderr, "vigil: %s: %s tier%s%s\n",
				ss->p.spec->props[i].name,
				ss->p.kernel[i] ? "kernel" : "user",
				ss->p.kernel[i] ? "" : " because ",
				ss->p.kernel[i] ? "" : plan->props[i].why);
	vg_watchset_say_blind(ss->p.spec, plan, ss->p.report, ss->p.mon);
	struct vg_probe_opts po = {
		.plan = plan,
		.pid = ss->pid,
		.binary = path,
		.libs = ss->libs,
		.nlibs = ss->nlibs,
		.ringbuf_bytes = ss->o->ringbuf_bytes,
		.max_kslices = ss->o->max_slices,
		.all_events = ss->o->record_path != NULL,
		.follow_forks = ss->o->follow_forks,
		.launching = !ss->o->pid && !ss->o->watch_exe,
		.warn = stderr,
		.early = early,
		.objmap_objects = vg_session_objmap_objects(plan, path),
		.watch = ss->o->watch_exe != NULL,
		.watch_name = vg_watch_match_name(vg_session_watch_match(ss)),
		/* a live session's gdb may want a debug register of its own */
		.keep_breakpoints = !ss->o->interactive,
	};
	vg_watch_match_ids(vg_session_watch_match(ss), &po.watch_dev,
			   &po.watch_ino, &po.watch_lib_dev, &po.watch_lib_ino);
	if (ss->o->record_path) {
		ss->rec = vg_recorder_open(ss->p.spec, ss->o->record_path,
					   ss->pid, e);
		if (!ss->rec)
			goto out;
	}
	ss->p.probe = vg_probe_open(ss->p.spec, &po, e);
	if (!ss->p.probe || vg_session_objmap_events(ss, plan, e))
		goto out;
	{	/* held at an exec or a fork when vigil dies: the guard lets
		 * them go (user/probe/probe_orphans.c) */
		int ofds[2], n = vg_probe_orphan_fds(ss->p.probe, ofds);

		if (n && vg_guard_on_death(ss->guard, vg_probe_orphans_resume,
					   ofds, n, e))
			goto out;
	}
	snprintf(ss->exe, sizeof(ss->exe), "%s", path);
	if (vg_probe_has_watches(ss->p.probe) &&
	    !(ss->ws = vg_watchset_new(ss->p.spec, plan, ss->p.probe, ss->pid,
				       ss->o->watch_evict ? VG_WATCH_EVICT
							  : VG_WATCH_REFUSE, e)))
		goto out;
	vg_watchset_set_repeat(ss->ws, vg_session_on_transition, ss);
	vg_watchset_say_stale(ss->ws, plan, ss->p.report);
	/* attached to a running program: its globals' watchpoints go in now
	 * (vigil run arms them at the exec that starts the program) */
	if (ss->o->pid > 0 && ss->ws && vg_watchset_start(ss->ws, e))
		goto out;
	/* vigil restore --monitor: the monitor goes on from the checkpoint */
	if (ss->o->state_path &&
	    vg_monstate_load(ss->o->state_path, ss->p.spec, ss->p.mon, ss->p.probe,
			     ss->p.kernel, e))
		goto out;
	if (vg_session_watch_open(ss, e))
		goto out;
	if (vg_features_start(ss, plan, e))
		goto out;
	/* vigil run's child, its allocations taken by the in-process tier,
	 * which came in at the program's entry: what the libraries allocated
	 * before, in its heap now, the object map never saw */
	for (int i = 0; !ss->o->pid && ss->p.objmap && i < plan->nsites; i++)
		if (plan->sites[i].fast &&
		    vg_objmap_follows(ss->p.objmap, plan->sites[i].event)) {
			vg_objmap_unseen_now(ss->p.objmap);
			break;
		}
	/* and the features' own state (vigil load's properties) */
	if (ss->o->state_path &&
	    vg_features_restore(ss, ss->o->state_path, e))
		goto out;
	rc = 0;
out:
	vg_plan_free(plan);
	vg_probe_early_free(early);
	return rc;
}

/* Has the target exited? A child we started is reaped for its status; a
 * process we attached to is not ours to reap, so its pidfd tells. */
static bool target_gone(struct session *ss, int pidfd, int *code, int *sig)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	if (!ss->o->pid)
		return vg_proc_reap(ss->pid, code, sig) == 1;
	if (poll(&pfd, 1, 0) != 1)
		return false;
	if (!vg_probe_exit_status(ss->p.probe, code, sig)) {
		*code = -1;	/* exited before the probes were in place */
		*sig = 0;
	}
	return true;
}

static int loop(struct session *ss, struct vg_err *e)
{
	int ep = -1, ep_ctl = -1, pidfd = -1, sigfd = -1, rc = -1, code = 0,
	    sig = 0;
	int interrupts = 0;
	unsigned gen = vg_ckpt_run_gen(ss->ckpt);
	bool exited = false, busy = false, was_busy = false, trickle = false;
	struct epoll_event evs[4], ev = { .events = EPOLLIN };
	sigset_t mask, before;

	/* Signals are taken synchronously so that an interrupted vigil still
	 * detaches cleanly and reports; blocked only now, after the fork, so
	 * the target does not inherit the mask. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);	/* vigil checkpoint */
	sigaddset(&mask, SIGUSR1);	/* the monitor state, on stderr */
	/* a wake-up: our child stopped (a probe's hold), or the in-process
	 * tier's waker says a thread waits in a hold (fast/fast_wake.c),
	 * as a probe's forced wake-up of the ring does */
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &before);
	/* non-blocking: a signal epoll saw may be taken by a thread that
	 * does not block it (one made before this mask), and a read must
	 * not wait for the next */
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	/* vigil watch has no target of its own: it ends on a signal */
	pidfd = ss->o->watch_exe ? -2 : vg_proc_pidfd(ss->pid, e);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ep_ctl = epoll_create1(EPOLL_CLOEXEC);
	if (sigfd < 0 || pidfd == -1 || ep < 0 || ep_ctl < 0) {
		if (pidfd >= 0)
			vg_errf(e, "setting up the event loop: %s",
				strerror(errno));
		goto out;
	}
	ev.data.fd = vg_probe_fd(ss->p.probe);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = pidfd;
	if (pidfd >= 0) {
		epoll_ctl(ep, EPOLL_CTL_ADD, pidfd, &ev);
		epoll_ctl(ep_ctl, EPOLL_CTL_ADD, pidfd, &ev);
	}
	ev.data.fd = sigfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sigfd, &ev);
	epoll_ctl(ep_ctl, EPOLL_CTL_ADD, sigfd, &ev);
	vg_load_watch((struct vg_run *)ss, ep);	/* vigil load's rings */

	vg_live_open((struct vg_run *)ss);
	if (vg_live_fd((struct vg_run *)ss) >= 0) {
		ev.data.fd = vg_live_fd((struct vg_run *)ss);
		epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
		epoll_ctl(ep_ctl, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	if (!ss->o->pid && !ss->o->watch_exe) {	/* hold.c says why */
		ss->holds.since_ns = vg_now_ns(CLOCK_MONOTONIC);
		ss->holds.n = 0;
		ss->holds.overflow = false;
		ss->holds.pending = ss->holds.pending_sum_ns = 0;
	}
	if (!ss->o->pid && !ss->o->watch_exe && (ss->o->interactive
			    ? vg_proc_release_at_entry(ss->pid, e)
			    : vg_proc_release(ss->pid, e)))
		goto out;
	vg_guard_released(ss->guard);
	if (ss->o->interactive && vg_live_join_gdb((struct vg_run *)ss, e))
		goto out;
	/* restored stopped by vigil restore --monitor: probes and state are
	 * in place, let it go */
	if (ss->o->state_path)
		kill(ss->pid, SIGCONT);
	vg_ckpt_run_advertise(ss->ckpt);
	for (;;) {
		/* Idle, the probes wake us per batch (bpf/vigil.bpf.h, wake_bytes)
		 * and the timeout bounds how long a lone event waits. While
		 * records keep coming the ring is always readable, so waiting
		 * on it would spin a CPU: wait for signals and the target's
		 * exit only, and drain once per wake-up gap, a batch at a time;
		 * the probes force no wake-up then (vg_probe_set_polling). A
		 * probe may have seen "polling" just before it was cleared and
		 * sent its record without waking us: the first idle wait is
		 * as short as a busy one, so that record is late by no more
		 * than a wake-up gap. When they only trickle in (a few per
		 * gap), the ring is watched too: it is rarely readable on
		 * entry, so that does not spin, and a probe that stopped its
		 * thread for us (VG_RF_ARMSTOP, always a wake-up) is answered
		 * at once rather than at the end of the gap, which was half of
		 * what a held watchpoint hit cost. */
		struct timespec to = { 0, busy || was_busy ? VG_WAKE_GAP_US * 1000
							   : VG_POLL_MS * 1000000 };
		int n, got;

		vg_session_timeout_wait(ss, &to);
		vg_probe_set_polling(ss->p.probe, busy);
		n = epoll_pwait2(busy && !trickle ? ep_ctl : ep, evs, 4, &to, NULL);
		if (n < 0 && errno != EINTR) {
			vg_errf(e, "epoll_wait: %s", strerror(errno));
			goto out;
		}
		if ((got = vg_probe_drain(ss->p.probe, vg_session_on_record, ss, e)) < 0 ||
		    vg_session_timeouts(ss, e))
			goto out;
		was_busy = busy;
		busy = got > 0;
		trickle = got < VG_TRICKLE;
		/* the features' part of the drain (--dynamic attaches what
		 * its arming stops asked for), then the held threads go */
		if (vg_hold_release(ss, e))
			goto out;
		if (vg_ckpt_run_requests(ss->ckpt, e))
			goto out;
		if (vg_ckpt_run_restored(ss->ckpt, NULL))
			break;
		vg_live_keep_going((struct vg_run *)ss);
		vg_load_drain((struct vg_run *)ss);	/* vigil load's properties */
		vg_live_serve((struct vg_run *)ss);
		if (gen != vg_ckpt_run_gen(ss->ckpt)) {	/* a restore replaced it */
			gen = vg_ckpt_run_gen(ss->ckpt);
			epoll_ctl(ep, EPOLL_CTL_DEL, pidfd, NULL);
			epoll_ctl(ep_ctl, EPOLL_CTL_DEL, pidfd, NULL);
			close(pidfd);
			if ((pidfd = vg_proc_pidfd(ss->pid, e)) < 0)
				goto out;
			ev.data.fd = pidfd;
			epoll_ctl(ep, EPOLL_CTL_ADD, pidfd, &ev);
			epoll_ctl(ep_ctl, EPOLL_CTL_ADD, pidfd, &ev);
		}
		if (vg_live_detach_asked((struct vg_run *)ss) ||
		    vg_live_gdb_gone((struct vg_run *)ss) ||
		    vg_session_watch_done(ss))
			goto done;
		if (vg_scenario_target_stopped(ss->p.sc) ||
		    vg_load_stopped((struct vg_run *)ss) ||
		    vg_scenario_target_killed(ss->p.sc)) {
			/* drain what was already in flight, then go */
			if (vg_probe_drain(ss->p.probe, vg_session_on_record, ss, e) < 0)
				goto out;
			if (!vg_scenario_target_killed(ss->p.sc))
				break;
		}
		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd == sigfd) {
				struct signalfd_siginfo si;

				if (read(sigfd, &si, sizeof(si)) != sizeof(si) ||
				    si.ssi_signo == SIGCHLD)
					continue;	/* (a wake-up) */
				if (si.ssi_signo == SIGUSR1) {
					vg_features_dump(ss);
					continue;
				}
				if (si.ssi_signo == SIGUSR2) {
					if (vg_ckpt_run_take(ss->ckpt, "on demand (vigil checkpoint)",
							     true, e))
						goto out;
					continue;
				}
				if (vg_live_gdb_running((struct vg_run *)ss) &&
				    si.ssi_signo == SIGINT)
					continue;	/* gdb's, on the terminal */
				if (vg_session_watch_signal(ss, (int)si.ssi_signo))
					continue;
				if (ss->o->watch_exe) {
					fprintf(stderr, "vigil: %s: detaching, the watched processes run on\n",
						strsignal(si.ssi_signo));
					goto done;
				}
				if (ss->o->pid) {
					/* not our child: leave it alone */
					fprintf(stderr, "vigil: %s: detaching, the target runs on\n",
						strsignal(si.ssi_signo));
					goto done;
				}
				if (++interrupts > 1) {
					fprintf(stderr, "vigil: interrupted again: detaching, the target runs on\n");
					goto done;
				}
				fprintf(stderr, "vigil: %s: passing it to the target (again to detach)\n",
					strsignal(si.ssi_signo));
				kill(ss->pid, si.ssi_signo);
			}
		}
		vg_features_tick(ss);
		if (!exited && pidfd >= 0 && target_gone(ss, pidfd, &code, &sig)) {
			exited = true;
			/* no timeouts now: the target may have exited before
			 * their deadlines (those due while it ran fired when
			 * the loop woke for them) */
			if (vg_probe_drain(ss->p.probe, vg_session_on_record, ss, e) < 0)
				goto out;
			/* --follow-fork: the followed descendants are waited
			 * for; the pidfd, readable for good now, is not */
			epoll_ctl(ep, EPOLL_CTL_DEL, pidfd, NULL);
			epoll_ctl(ep_ctl, EPOLL_CTL_DEL, pidfd, NULL);
		}
		if (exited && !(ss->o->follow_forks &&
				vg_follow_running(ss->procs))) {
			vg_probe_detach_now(ss->p.probe);	/* nobody to watch */
			break;
		}
	}
done:
	ss->target_exited = exited;
	rc = vg_session_finish(ss, exited, code, sig);
	vg_live_gdb_stays((struct vg_run *)ss);
out:
	vg_live_close((struct vg_run *)ss);
	vg_ckpt_run_unadvertise(ss->ckpt);
	if (ep >= 0)
		close(ep);
	if (ep_ctl >= 0)
		close(ep_ctl);
	if (pidfd >= 0)
		close(pidfd);
	if (sigfd >= 0)
		close(sigfd);
	/* as before the loop: SIGUSR1 and SIGUSR2 stay blocked (main), so
	 * one that comes while the probes are torn down is no death */
	sigprocmask(SIG_SETMASK, &before, NULL);
	return rc;
}

int vg_session_run(struct vg_spec *spec, const struct vg_session_opts *o,
		   struct vg_err *e)
{
	struct session ss = { .p.spec = spec, .o = o, .pid = -1, .err = e };
	struct vg_run_end end = { 0 };
	bool unit_stopped;
	int rc = -1;

	/* first: the features that come before every other module (the
	 * status line takes stderr over) */
	if (vg_features_prepare(&ss, e))
		goto out;
	if (!(ss.procs = vg_follow_new())) {
		vg_errf(e, "out of memory");
		goto out;
	}
	/* memcpy, read(2)... into watched blocks (callacc.h) */
	if (vg_callacc_add(spec, e))
		goto out;
	/* where the program tells memcheck not to report (watchset.h) */
	if (vg_watchset_creq_prepare(spec, e))
		goto out;
	{	/* checkpoints and restores keep their own state */
		struct vg_ckpt_run_opts co = {
			.dir = o->checkpoint_dir,
			.keep = o->checkpoints,
			.gap_ms = o->checkpoint_gap_ms,
			.fork_snapshots = o->fork_snapshots,
			.watch = o->watch_exe != NULL,
			.follow_forks = o->follow_forks,
			.dynamic = o->dynamic,
			.attached = o->pid != 0,
		};

		if (!(ss.ckpt = vg_ckpt_run_new((struct vg_run *)&ss, &co))) {
			vg_errf(e, "out of memory");
			goto out;
		}
	}
	/* the loader's rendezvous: libraries' mappings as they are mapped,
	 * for the names of their globals (symval/symval.h) */
	if (vg_symval_prepare(spec, o->watch_exe != NULL, o->interactive, e))
		goto out;
	if (open_all(&ss, e)) {
		/* never leave a child we started stopped before its exec */
		if (ss.pid > 0 && !o->pid)
			vg_proc_kill_child(ss.pid);
		rc = -1;
		goto out;
	}
	rc = loop(&ss, e);
out:
	end.failed = rc < 0;
	end.stopped = ss.p.sc && vg_scenario_target_stopped(ss.p.sc);
	end.how = end.failed ? "monitoring ended on an error"
		  : end.stopped ? "stopped at a violation"
		  : ss.target_exited ? "the program exited"
		  : "vigil detached; the program runs on";
	end.exited = ss.target_exited;
	end.gdb = ss.exec_gdb[0] != 0;
	if (ss.p.report) {
		end.errors = vg_report_errors(ss.p.report);
		end.inconclusive = vg_report_inconclusive(ss.p.report);
	}
	if (ss.p.probe)
		vg_probe_exit_status(ss.p.probe, &end.exit_code, &end.exit_signal);
	vg_features_end(&ss, &end);
	vg_watchset_free(ss.ws);	/* its breakpoints, through the probes */
	unit_stopped = vg_load_stopped((struct vg_run *)&ss) != NULL;
	vg_load_free((struct vg_run *)&ss);	/* vigil load's probes */
	vg_probe_close(ss.p.probe);
	vg_guard_end(ss.guard, (ss.p.sc && vg_scenario_target_stopped(ss.p.sc)) ||
				unit_stopped ||
				vg_live_keep_stopped((struct vg_run *)&ss) ||
				vg_session_watch_stopped(&ss));
	vg_session_watch_free(&ss);
	if (vg_recorder_close(ss.rec, e))
		rc = -1;
	vg_ckpt_run_free(ss.ckpt);
	vg_follow_free(ss.procs);
	vg_session_part_free(&ss.p);
	vg_paths_free((char **)ss.libs, ss.nlibs);
	/* the last call: the probes and every module are gone (the status
	 * line gives stderr back) */
	vg_features_released(&ss, &end);
	vg_live_wait_gdb((struct vg_run *)&ss);	/* the gdb --interactive started */
	vg_live_free((struct vg_run *)&ss);
	if (ss.exec_gdb[0]) {
		/* every probe is gone with vg_probe_close: hand the terminal
		 * and the stopped target to gdb */
		fflush(NULL);
		vg_proc_unblock_signals();
		execl("/bin/sh", "sh", "-c", ss.exec_gdb, (char *)NULL);
		fprintf(stderr, "vigil: cannot start gdb: %s\n", strerror(errno));
	}
	return rc;
}
