#include "scenario.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/exec.h"
#include "proc/proc.h"

struct vg_scenario {
	const struct vg_spec *spec;
	pid_t pid;
	struct vg_report *report;
	enum vg_on_violation ov;
	bool stopped, killed, violated, want_gdb;
	pid_t stop_tid;		/* the thread at the event that stopped it */
	pid_t exiting;		/* a process a stop found exiting: the
				 * violation's own stop and the state's
				 * `stop` reaction say so once */
	pid_t stop_pid;		/* and its process (--follow-fork: maybe
				 * a descendant of the target) */
	char why[256];
	struct vg_scenario_req req;	/* for the session, see the header */
};

static bool supported(enum vg_action_kind k)
{
	return k == VG_ACT_STOP || k == VG_ACT_GDB || k == VG_ACT_LOG ||
	       k == VG_ACT_KILL || k == VG_ACT_CHECKPOINT ||
	       k == VG_ACT_RESTORE || k == VG_ACT_EXEC ||
	       k == VG_ACT_BACKTRACE ||
	       /* the session's watchpoints do these (watchset.c) */
	       k == VG_ACT_WATCH || k == VG_ACT_UNWATCH;
}

struct vg_scenario *vg_scenario_new(const struct vg_spec *spec, pid_t pid,
				    struct vg_report *report,
				    enum vg_on_violation ov, struct vg_err *e)
{
	struct vg_scenario *sc;

	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *p = &spec->props[i];

		for (int r = 0; r < p->nreactions; r++)
			for (int a = 0; a < p->reactions[r].nactions; a++) {
				const struct vg_action *act =
					&p->reactions[r].actions[a];

				if (!supported(act->kind)) {
					vg_errf_code(e, VG_EXIT_USAGE,
						     "%s:%d:%d: this build of vigil cannot perform this action yet (it can: stop, gdb, log, backtrace, kill, checkpoint, restore, exec)",
						     act->loc.file, act->loc.line,
						     act->loc.col);
					return NULL;
				}
			}
	}
	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	sc->spec = spec;
	sc->pid = pid;
	sc->report = report;
	sc->ov = ov;
	return sc;
}

void vg_scenario_free(struct vg_scenario *sc)
{
	free(sc);
}

static bool has_reaction(const struct vg_property *p, int state)
{
	for (int r = 0; r < p->nreactions; r++)
		if (p->reactions[r].state == state)
			return true;
	return false;
}

/* --on-violation=continue: a run that reports every error and goes on,
 * as memcheck does. The spec's own `stop` and `gdb` reactions on entering
 * a violation state are not done (its other actions are); a stop on a
 * state that is no violation is the user's breakpoint and still stops. */
static bool overridden(enum vg_on_violation ov, const struct vg_property *p,
		       int state)
{
	return ov == VG_OV_CONTINUE &&
	       p->states[state].kind == VG_STATE_VIOLATION;
}

/* the run's default reaction, or the property's own */
static enum vg_on_violation ov_of(enum vg_on_violation ov,
				  const struct vg_property *p)
{
	return p->has_on_violation ? (enum vg_on_violation)p->on_violation
				   : ov;
}

uint32_t vg_scenario_stop_mask(const struct vg_scenario *sc, int prop)
{
	return vg_stop_mask_for(sc->spec, prop, sc->ov);
}

uint32_t vg_stop_mask_for(const struct vg_spec *spec, int prop,
			  enum vg_on_violation ov)
{
	const struct vg_property *p = &spec->props[prop];
	uint32_t m = 0;

	ov = ov_of(ov, p);

	for (int s = 0; s < p->nstates && s < 32; s++) {
		if (overridden(ov, p, s))
			continue;
		if (vg_property_state_has_action(p, s, true, VG_ACT_STOP) ||
		    vg_property_state_has_action(p, s, true, VG_ACT_GDB))
			m |= 1u << s;
		if (p->states[s].kind == VG_STATE_VIOLATION &&
		    !has_reaction(p, s) &&
		    (ov == VG_OV_STOP || ov == VG_OV_GDB))
			m |= 1u << s;
	}
	return m;
}

/* the process an event came from: the target, or with --follow-fork one
 * of its descendants; reactions act on it */
static pid_t proc_of(const struct vg_scenario *sc, const struct vg_mon_event *ev)
{
	return ev->pid ? (pid_t)ev->pid : sc->pid;
}

static void note_stop(struct vg_scenario *sc, const struct vg_slice_view *s,
		      const struct vg_mon_event *ev);

static void stop_target(struct vg_scenario *sc, const struct vg_slice_view *s,
			const struct vg_mon_event *ev)
{
	struct vg_err e = { 0 };
	pid_t pid = proc_of(sc, ev);

	if (sc->stopped || sc->killed || pid == sc->exiting)
		return;
	if (vg_proc_stop(pid, &e)) {
		fprintf(stderr, "vigil: %s\n", e.msg);
		sc->exiting = pid;
		return;
	}
	note_stop(sc, s, ev);
}

static void note_stop(struct vg_scenario *sc, const struct vg_slice_view *s,
		      const struct vg_mon_event *ev)
{
	const struct vg_property *p = &sc->spec->props[s->prop];

	if (sc->stop_tid)
		return;		/* the first stop is the one gdb should see */
	sc->stopped = true;
	sc->stop_tid = ev->tid;
	sc->stop_pid = proc_of(sc, ev);
	if (sc->spec->events[ev->event].kind == VG_EV_TIMEOUT)
		snprintf(sc->why, sizeof(sc->why), "%s entered state %s at a timeout of %.3f ms",
			 p->name, p->states[s->state].name,
			 (double)ev->slot[VG_TSLOT_LIMIT] / 1e6);
	else
		snprintf(sc->why, sizeof(sc->why), "%s entered state %s at %s %s",
			 p->name, p->states[s->state].name,
			 vg_event_kind_name(sc->spec->events[ev->event].kind),
			 sc->spec->events[ev->event].name);
}

/* The checkpoint is the session's to take (it needs the probes and the
 * monitor); the first request of an event batch wins the reason. */
static void want_checkpoint(struct vg_scenario *sc,
			    const struct vg_slice_view *s)
{
	const struct vg_property *p = &sc->spec->props[s->prop];

	if (sc->req.checkpoint)
		return;
	sc->req.checkpoint = true;
	sc->req.good = p->states[s->state].kind == VG_STATE_ACCEPTING;
	snprintf(sc->req.reason, sizeof(sc->req.reason), "%s entered %s",
		 p->name, p->states[s->state].name);
}

static void act(struct vg_scenario *sc, const struct vg_action *a,
		const struct vg_slice_view *s, const struct vg_mon_event *ev)
{
	struct vg_err e = { 0 };

	switch (a->kind) {
	case VG_ACT_CHECKPOINT:
		want_checkpoint(sc, s);
		break;
	case VG_ACT_RESTORE:
		sc->req.restore = true;
		break;
	case VG_ACT_BACKTRACE:
		vg_report_backtrace(sc->report, s, ev);
		break;
	case VG_ACT_EXEC:
		if (vg_act_exec(a->arg ? a->arg : "true", sc->spec,
				proc_of(sc, ev), s,
				ev, &e))
			fprintf(stderr, "vigil: %s\n", e.msg);
		break;
	case VG_ACT_LOG:
		vg_report_log(sc->report, s, ev, a->arg ? a->arg : "");
		break;
	case VG_ACT_GDB:
		/* a stop, and the session hands the stopped target to gdb */
		sc->want_gdb = true;
		/* fall through */
	case VG_ACT_STOP:
		stop_target(sc, s, ev);
		break;
	case VG_ACT_KILL:
		kill(proc_of(sc, ev), SIGKILL);
		sc->killed = true;
		break;
	default:
		break;	/* refused by vg_scenario_new */
	}
}

static void run_reactions(struct vg_scenario *sc, const struct vg_property *p,
			  int state, bool on_enter,
			  const struct vg_slice_view *s,
			  const struct vg_mon_event *ev)
{
	for (int r = 0; r < p->nreactions; r++) {
		const struct vg_reaction *re = &p->reactions[r];

		if (re->state != state || re->on_enter != on_enter)
			continue;
		for (int a = 0; a < re->nactions; a++) {
			enum vg_action_kind k = re->actions[a].kind;

			if ((k == VG_ACT_STOP || k == VG_ACT_GDB) && on_enter &&
			    overridden(ov_of(sc->ov, p), p, state))
				continue;
			act(sc, &re->actions[a], s, ev);
		}
	}
}

void vg_scenario_transition(struct vg_scenario *sc,
			    const struct vg_slice_view *s, int from, int to,
			    const struct vg_mon_event *ev, bool stopped)
{
	const struct vg_property *p = &sc->spec->props[s->prop];

	if (stopped)
		note_stop(sc, s, ev);
	if (p->states[to].kind == VG_STATE_VIOLATION && from != to) {
		sc->violated = true;
		/* stop first (a user-tier stop is already late), so that the
		 * report says whether the target really is stopped */
		if (vg_scenario_stop_mask(sc, s->prop) >> to & 1) {
			struct vg_action stop = { .kind = VG_ACT_STOP };

			if (ov_of(sc->ov, p) == VG_OV_GDB && !has_reaction(p, to))
				stop.kind = VG_ACT_GDB;
			act(sc, &stop, s, ev);
		}
		vg_report_violation(sc->report, s, from, ev, sc->stopped);
	}
	/* a self-loop leaves and enters again */
	run_reactions(sc, p, from, false, s, ev);
	run_reactions(sc, p, to, true, s, ev);
	if (p->states[to].kind == VG_STATE_VIOLATION && from != to &&
	    !has_reaction(p, to)) {
		if (ov_of(sc->ov, p) == VG_OV_KILL) {
			struct vg_action k = { .kind = VG_ACT_KILL };

			act(sc, &k, s, ev);
		}
		if (ov_of(sc->ov, p) == VG_OV_CHECKPOINT)
			want_checkpoint(sc, s);
	}
}

bool vg_scenario_target_stopped(const struct vg_scenario *sc)
{
	return sc->stopped;
}

pid_t vg_scenario_stop_tid(const struct vg_scenario *sc, const char **why)
{
	*why = sc->why;
	return sc->stop_tid;
}

pid_t vg_scenario_stop_pid(const struct vg_scenario *sc)
{
	return sc->stop_pid ? sc->stop_pid : sc->pid;
}

bool vg_scenario_want_gdb(const struct vg_scenario *sc)
{
	return sc->want_gdb && sc->stopped;
}

bool vg_scenario_target_killed(const struct vg_scenario *sc)
{
	return sc->killed;
}

bool vg_scenario_violated(const struct vg_scenario *sc)
{
	return sc->violated;
}

void vg_scenario_take_requests(struct vg_scenario *sc,
			       struct vg_scenario_req *r)
{
	*r = sc->req;
	memset(&sc->req, 0, sizeof(sc->req));
}

bool vg_scenario_checkpoint_wanted(const struct vg_scenario *sc)
{
	return sc->req.checkpoint && !sc->req.restore;
}

void vg_scenario_set_target(struct vg_scenario *sc, pid_t pid, bool stopped,
			    const char *why)
{
	sc->pid = pid;
	sc->stopped = stopped;
	sc->exiting = 0;	/* a restore brings the pid back alive */
	sc->stop_tid = pid;
	sc->stop_pid = pid;
	snprintf(sc->why, sizeof(sc->why), "%s", why);
}

void vg_scenario_next_process(struct vg_scenario *sc)
{
	vg_scenario_resume(sc);
	sc->killed = false;
}

void vg_scenario_resume(struct vg_scenario *sc)
{
	sc->stopped = false;
	sc->want_gdb = false;
	sc->exiting = 0;
	sc->stop_tid = 0;
	sc->stop_pid = 0;
	sc->why[0] = 0;
}
