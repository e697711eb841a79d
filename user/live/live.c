/* The live side of a run: the control channel's dispatch (the monitor
 * breakpoints of `vigil break` are live_breaks.c's), and under
 * --interactive the stops that become gdb stops instead of the end of the
 * run.
 *
 * How a stop reaches gdb: the probe (kernel tier) or the scenario (user
 * tier) sends SIGSTOP; gdb, with `handle SIGSTOP nostop noprint nopass`
 * and `catch signal SIGSTOP` conditioned on $_vigil_stop(), asks here
 * ("stop") whether that SIGSTOP is one to show. vigil first reads every
 * record already in the ring (the kernel tier wrote the record before it
 * sent the signal), so the answer is never "not yet"; a stop is shown
 * once, and vigil's own holds are answered "no": gdb resumes the thread
 * without passing the signal, and no group stop follows. */
#include "live_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/gdb_live.h"
#include "act/scenario.h"
#include "ckpt/ckpt.h"
#include "ctl/ctl.h"
#include "load/load.h"
#include "monitor/monitor.h"
#include "probe/probe.h"
#include "proc/proc.h"
#include "report/report.h"
#include "spec/spec.h"
#include "util/rundir.h"

struct vg_monitor *vg_live_monitor(const struct vg_run *r)
{
	struct vg_monitor *m = NULL;

	vg_run_monitors(r, &m, 1);
	return m;
}

json_t *vg_live_reply(bool ok, const char *text, json_t *data)
{
	json_t *r = json_object();

	json_object_set_new(r, "ok", json_boolean(ok));
	if (text)
		json_object_set_new(r, ok ? "text" : "error", json_string(text));
	if (data)
		json_object_set_new(r, "data", data);
	return r;
}

json_t *vg_live_errf(const char *fmt, const char *a, const char *b)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, a, b ? b : "");
	return vg_live_reply(false, msg, NULL);
}

int vg_live_prop(const struct vg_run *r, const char *name)
{
	const struct vg_spec *spec = vg_run_spec(r);

	for (int i = 0; name && i < spec->nprops; i++)
		if (!strcmp(spec->props[i].name, name) &&
		    !vg_run_prop_unloaded(r, i))
			return i;
	return -1;
}

int vg_live_state(const struct vg_run *r, int prop, const char *name)
{
	const struct vg_property *p = &vg_run_spec(r)->props[prop];

	for (int s = 0; name && s < p->nstates; s++)
		if (!strcmp(p->states[s].name, name))
			return s;
	return -1;
}

/* The stop just added is about this slice's state. */
static void mark_last(struct vg_live *l, const struct vg_run *owner,
		      int prop, int state, const char *slice)
{
	l->last_owner = owner;
	l->last_prop = prop;
	l->last_state = state;
	snprintf(l->last_slice, sizeof(l->last_slice), "%s", slice);
}

bool vg_live_last_stop(const struct vg_run *r, const struct vg_run **owner,
		       int *prop, int *state, const char **slice)
{
	const struct vg_live *l = vg_live_host_state(r);

	if (!l || !l->last_owner)
		return false;
	*owner = l->last_owner;
	*prop = l->last_prop;
	*state = l->last_state;
	*slice = l->last_slice;
	return true;
}

/* The reaction stop's mark of part owner, or NULL */
static struct vg_live_mark *mark_of(struct vg_live *l,
				    const struct vg_run *owner)
{
	for (int i = 0; i < l->nmarks; i++)
		if (l->marks[i].owner == owner)
			return &l->marks[i];
	return NULL;
}

static void unmark(struct vg_live *l, const struct vg_run *owner)
{
	struct vg_live_mark *m = mark_of(l, owner);

	if (m)
		*m = l->marks[--l->nmarks];
}

void vg_live_forget(struct vg_run *r, const struct vg_run *owner)
{
	struct vg_live *l = vg_live_host_state(r);

	if (!l)
		return;
	if (l->last_owner == owner)
		l->last_owner = NULL;
	unmark(l, owner);
	for (int i = 0; i < l->nbrk; i++)	/* its breakpoints go with it */
		if (l->brk[i].owner == owner)
			l->brk[i--] = l->brk[--l->nbrk];
}


static void add_stop(struct vg_live *l, pid_t pid, pid_t tid, const char *msg,
		     json_t *violation)
{
	struct vg_live_stop *s;

	if (l->nstops == VG_LIVE_STOPS) {	/* the oldest goes */
		json_decref(l->stops[0].violation);
		memmove(l->stops, l->stops + 1, sizeof(l->stops[0]) * (VG_LIVE_STOPS - 1));
		l->nstops--;
	}
	s = &l->stops[l->nstops++];
	s->pid = pid;
	s->tid = tid;
	snprintf(s->msg, sizeof(s->msg), "%s", msg);
	s->violation = violation;
}

void vg_live_transition(struct vg_run *r, const struct vg_slice_view *s,
			int from, int to, const struct vg_mon_event *ev,
			bool stopped)
{
	struct vg_live *l = vg_live_host_state(r);
	struct vg_scenario *sc = vg_run_scenario(r);
	const struct vg_spec *spec = vg_run_spec(r);
	const struct vg_property *p = &spec->props[s->prop];
	char msg[1024], slice[256], *evtext = NULL;
	size_t evlen = 0;
	FILE *m;
	int i;

	if (!l)
		return;
	/* the first transition of this drain that had a reaction stop the
	 * target: what that stop is about (vg_live_keep_going keeps it) */
	if (from != to && !mark_of(l, r) && l->nmarks < VG_LIVE_MARKS &&
	    vg_scenario_target_stopped(sc)) {
		struct vg_live_mark *mk = &l->marks[l->nmarks++];

		mk->owner = r;
		mk->prop = s->prop;
		mk->state = to;
		vg_live_slice_name(r, s, mk->slice, sizeof(mk->slice));
	}
	if (from == to)
		return;
	for (i = 0; i < l->nbrk; i++)
		if (l->brk[i].owner == r && l->brk[i].prop == s->prop &&
		    l->brk[i].state == to)
			break;
	if (i == l->nbrk)
		return;
	/* the kernel tier stopped the thread at the event (the stop mask
	 * has the breakpoint's state): that stop is the breakpoint's, not
	 * the scenario's. The user tier sees the event after the fact: its
	 * stop lands a little later than the call (docs/reference/live-gdb.md
	 * says so) */
	if (stopped && vg_run_prop_kernel(r, s->prop)) {
		vg_scenario_resume(sc);
		unmark(l, r);	/* not a reaction's stop */
	} else if (kill((pid_t)ev->pid, SIGSTOP))
		return;
	if ((m = open_memstream(&evtext, &evlen))) {
		vg_event_text(spec, m, ev);
		fclose(m);
	}
	vg_live_slice_name(r, s, slice, sizeof(slice));
	snprintf(msg, sizeof(msg), "vigil: breakpoint %d: %s slice %s: %s -> %s at %s in tid %u",
		 l->brk[i].id, p->name, slice, p->states[from].name,
		 p->states[to].name, evtext ? evtext : "?", ev->tid);
	free(evtext);
	add_stop(l, (pid_t)ev->pid, (pid_t)ev->tid, msg, NULL);
	mark_last(l, r, s->prop, to, slice);
}

/* The violation report vigil wrote for gdb (report.c's violation file). */
static json_t *violation_of(pid_t pid)
{
	char dir[PATH_MAX - 64], path[PATH_MAX];
	struct vg_err e;

	if (vg_rundir(dir, sizeof(dir), &e))
		return NULL;
	snprintf(path, sizeof(path), "%s/violation-%d.json", dir, pid);
	return json_load_file(path, JSON_DISABLE_EOF_CHECK, NULL);
}

/* why, and a memory check's range (the object and the overrun:
 * report/memrange.h) when the violation v has one and is the stop's
 * (scenario.c's why: "PROP entered state STATE at ..."; the file may be
 * an earlier violation's when the stop is a reaction's): the line gdb
 * prints at the stop */
static void stop_line(json_t *v, const char *why, char *buf, size_t len)
{
	const char *range = json_string_value(
		json_object_get(json_object_get(v, "range"), "text"));
	const char *prop = json_string_value(json_object_get(v, "property"));
	const char *state = json_string_value(json_object_get(v, "state"));
	char head[320];

	if (range && prop && state) {
		snprintf(head, sizeof(head), "%s entered state %s at ", prop,
			 state);
		if (strncmp(why, head, strlen(head)))
			range = NULL;
	}
	snprintf(buf, len, "%s%s%s", why, range ? ": " : "",
		 range ? range : "");
}

void vg_live_stop_line(pid_t pid, const char *why, char *buf, size_t len)
{
	json_t *v = violation_of(pid);

	stop_line(v, why, buf, len);
	json_decref(v);
}

bool vg_live_keep_going(struct vg_run *r)
{
	struct vg_live *l = vg_live_host_state(r);
	struct vg_scenario *sc = vg_run_scenario(r);
	bool interactive = vg_live_host_interactive(r);
	struct vg_live_mark *mk;
	const char *why;
	pid_t tid, pid;
	char msg[1024];
	bool open_now;
	json_t *v;

	if (!l || !vg_scenario_target_stopped(sc) ||
	    vg_scenario_target_killed(sc) ||
	    vg_ckpt_run_restored(vg_live_host_ckpt(r), NULL))
		return false;
	/* the `gdb` reaction (and --on-violation=gdb) opens the same live
	 * session at its stop, from which on every stop goes to gdb */
	open_now = !interactive && !l->opened && vg_scenario_want_gdb(sc);
	if (!interactive && !l->opened && !open_now)
		return false;
	tid = vg_scenario_stop_tid(sc, &why);
	pid = vg_scenario_stop_pid(sc);
	v = violation_of(pid);
	snprintf(msg, sizeof(msg), "vigil: ");
	stop_line(v, why, msg + strlen(msg), sizeof(msg) - strlen(msg));
	add_stop(l, pid, tid, msg, v);
	if ((mk = mark_of(l, r)))
		mark_last(l, r, mk->prop, mk->state, mk->slice);
	unmark(l, r);
	vg_scenario_resume(sc);
	if (open_now) {
		struct vg_err e = { 0 };

		l->opened = true;
		if (vg_live_join_gdb(r, &e))
			fprintf(stderr, "vigil: %s\n", e.msg);
	}
	return true;
}

void vg_live_forget_stops(struct vg_run *r)
{
	struct vg_live *l = vg_live_host_state(r);

	for (int i = 0; l && i < l->nstops; i++)
		json_decref(l->stops[i].violation);
	if (l) {
		l->nstops = 0;
		l->last_owner = NULL;	/* its slice is the abandoned run's */
		l->ckpt.wanted = false;	/* and so is a reaction's checkpoint */
	}
}

bool vg_live_detach_asked(const struct vg_run *r)
{
	const struct vg_live *l = vg_live_host_state(r);

	return l && l->detach;
}

bool vg_live_keep_stopped(const struct vg_run *r)
{
	const struct vg_live *l = vg_live_host_state(r);

	return l && l->keep_stopped_at_end;
}

/* Everything already sent is handled, as in one turn of the loop, so that
 * a stop gdb asks about is known. */
static void settle(struct vg_run *r)
{
	vg_live_host_settle(r);
	vg_live_keep_going(r);
	vg_load_drain(r);	/* the loaded properties' stops */
}

bool vg_live_gdb_traces(const struct vg_run *r, pid_t tracer)
{
	const struct vg_live *l = vg_live_host_state(r);

	return l && l->ctl && l->gdb_client >= 0 && tracer > 0 &&
	       vg_ctl_peer_pid(l->ctl, l->gdb_client) == tracer;
}

bool vg_live_want_checkpoint(struct vg_run *r, const char *reason, bool good)
{
	struct vg_live *l = vg_live_host_state(r);

	if (l->ckpt.wanted)
		return false;
	l->ckpt.wanted = true;
	l->ckpt.good = good;
	snprintf(l->ckpt.reason, sizeof(l->ckpt.reason), "%s", reason);
	/* gdb hears of it at a stop: make one (it resumes silently) */
	if (!l->ckpt.in_query)
		kill(vg_run_pid(r), SIGSTOP);
	return true;
}

bool vg_live_take_checkpoint(struct vg_run *r, char *reason, size_t len,
			     bool *good)
{
	struct vg_live *l = vg_live_host_state(r);

	if (!l || !l->ckpt.wanted)
		return false;
	l->ckpt.wanted = false;
	snprintf(reason, len, "%s", l->ckpt.reason);
	*good = l->ckpt.good;
	return true;
}

/* A checkpoint reaction the records just read asked for: the kernel
 * tier's probe stopped the target at its event, and this stop query is
 * that stop's, so the checkpoint is of that moment (not of the later
 * stop the loop would make). */
static void reaction_checkpoint_now(struct vg_run *r)
{
	struct vg_live *l = vg_live_host_state(r);
	struct vg_scenario *sc = vg_run_scenario(r);
	struct vg_scenario_req req;
	struct vg_err e = { 0 };

	if (vg_live_host_watch(r) || !vg_scenario_checkpoint_wanted(sc))
		return;
	vg_scenario_take_requests(sc, &req);
	l->ckpt.in_query = true;
	if (vg_ckpt_run_reaction(vg_live_host_ckpt(r), req.reason, req.good,
				 &e))
		fprintf(stderr, "vigil: %s\n", e.msg);
	l->ckpt.in_query = false;
}

static json_t *stop_query(struct vg_run *r, json_t *args)
{
	struct vg_live *l = vg_live_host_state(r);
	const char *a = json_string_value(json_array_get(args, 0));
	pid_t tid = a ? (pid_t)atoi(a) : 0;
	json_t *d;
	int k = -1;

	settle(r);
	reaction_checkpoint_now(r);
	/* the thread the stop was for, else any stop of this process: a
	 * process-wide SIGSTOP lands in whichever thread takes it */
	for (int i = 0; i < l->nstops && k < 0; i++)
		if (l->stops[i].tid == tid)
			k = i;
	for (int i = 0; i < l->nstops && k < 0; i++)
		if (l->stops[i].pid == vg_run_pid(r) || !tid)
			k = i;
	if (k < 0)
		return vg_live_reply(true, NULL, json_pack("{s:b,s:b}", "stop", 0,
					"checkpoint", l->ckpt.wanted));
	d = json_pack("{s:b,s:s,s:i,s:i,s:b}", "stop", 1, "message",
		      l->stops[k].msg, "pid", l->stops[k].pid, "tid",
		      l->stops[k].tid, "checkpoint", l->ckpt.wanted);
	if (l->stops[k].violation)
		json_object_set_new(d, "violation", l->stops[k].violation);
	memmove(l->stops + k, l->stops + k + 1,
		sizeof(l->stops[0]) * (size_t)(l->nstops - k - 1));
	l->nstops--;
	return vg_live_reply(true, NULL, d);
}

struct vg_run *vg_live_part(struct vg_run *r, int k)
{
	/* (the parts are the run's own: writable as it is) */
	return (struct vg_run *)vg_run_part(r, k);
}

static json_t *hello(struct vg_run *r, int client, json_t *req)
{
	json_t *props = json_array(), *d;
	const char *role = json_string_value(json_object_get(req, "role"));
	struct vg_run *o;

	if (role && !strcmp(role, "gdb")) {
		struct vg_err e = { 0 };

		vg_live_host_state(r)->gdb_client = client;
		/* the run's properties and the loaded ones */
		for (int k = 0; (o = vg_live_part(r, k)); k++)
			if (vg_live_push_holds(r, o, &e))
				fprintf(stderr, "vigil: user-tier stops will be late: %s\n",
					e.msg);
	}
	/* the run's properties and the loaded ones (vigil load) */
	for (int k = 0; (o = vg_live_part(r, k)); k++) {
		const struct vg_spec *spec = vg_run_spec(o);

		for (int i = 0; i < spec->nprops; i++) {
			const struct vg_property *p = &spec->props[i];
			json_t *st;

			if (vg_run_prop_unloaded(o, i))
				continue;	/* unloaded */
			st = json_array();

			for (int s = 0; s < p->nstates; s++)
				json_array_append_new(st, json_string(p->states[s].name));
			json_array_append_new(props, json_pack("{s:s,s:o}", "name",
							       p->name, "states", st));
		}
	}
	d = json_pack("{s:i,s:i,s:o,s:b}", "pid", vg_run_pid(r), "vigil",
		      getpid(), "properties", props, "interactive",
		      vg_live_host_interactive(r));
	return vg_live_reply(true, NULL, d);
}

static json_t *dispatch(void *ctx, int client, const char *cmd, json_t *args,
			json_t *req)
{
	struct vg_run *r = ctx, *own;
	struct vg_live *l = vg_live_host_state(r);

	if (!strcmp(cmd, "hello"))
		return hello(r, client, req);
	if (!strcmp(cmd, "stop"))
		return stop_query(r, args);
	/* those that read slices see the monitor as it is now (the kernel
	 * tier's table is read whole: not for the other commands) */
	if (!strcmp(cmd, "status") || !strcmp(cmd, "slices") ||
	    !strcmp(cmd, "show") || !strcmp(cmd, "set") ||
	    !strcmp(cmd, "graph"))
		vg_run_sync_kernel(r);
	if (!strcmp(cmd, "status"))
		return vg_load_status(r, vg_live_status(r));
	/* a loaded property's commands go to its part (vigil load) */
	own = vg_load_owner(r, json_string_value(json_array_get(args, 0)));
	if (own && own != r && (!strcmp(cmd, "slices") ||
				!strcmp(cmd, "show") || !strcmp(cmd, "set")))
		vg_run_sync_kernel(own);
	else
		own = r;
	if (!strcmp(cmd, "slices"))
		return vg_live_slices(own, args);
	if (!strcmp(cmd, "show"))
		return vg_live_show(own, args);
	if (!strcmp(cmd, "set"))
		return vg_live_set(own, args);
	if (!strcmp(cmd, "graph"))
		return vg_live_graph(r, args);
	if (!strcmp(cmd, "break"))
		return vg_live_break(r, args);
	if (!strcmp(cmd, "delete"))
		return vg_live_delete(r, args);
	if (!strcmp(cmd, "breaks"))
		return vg_live_breaks(r);
	if (!strcmp(cmd, "probes"))
		return vg_load_probes(r, vg_live_probes(r));
	if (!strcmp(cmd, "returns"))
		return vg_live_returns(r);
	if (!strcmp(cmd, "keep-stopped")) {
		const char *a = json_string_value(json_array_get(args, 0));

		l->keep_stopped = !a || strcmp(a, "off");
		return vg_live_reply(true, l->keep_stopped
			? "the program stays stopped if gdb goes away\n"
			: "the program is resumed if gdb goes away\n", NULL);
	}
	if (!strcmp(cmd, "detach")) {
		l->detach = true;
		return vg_live_reply(true, "vigil: monitoring ends; the program goes on\n", NULL);
	}
	{	/* checkpoint, checkpoints, restore (ckpt/ckpt_ctl.c); a
		 * feature's (user/feature/feature.h): `leaks`, `view`, the
		 * live page */
		struct vg_err e = { 0 };
		char *text = NULL;
		json_t *data = NULL, *reply;
		int rc = vg_live_host_ctl(r, cmd, args, &text, &data, &e);

		if (rc) {
			reply = vg_live_reply(rc > 0, rc > 0 ? text : e.msg,
					      data);
			free(text);
			return reply;
		}
	}
	return vg_live_errf("unknown command '%s'", cmd, NULL);
}

/* gdb's extension went away (gdb quit, or died): monitoring ends with
 * it (the loop asks vg_live_detach_asked), and a process gdb left in a
 * stop goes on unless the user said `vigil keep-stopped`. */
static void closed(void *ctx, int client)
{
	struct vg_run *r = ctx;
	struct vg_live *l = vg_live_host_state(r);
	pid_t pid = vg_run_pid(r);

	if (client != l->gdb_client)
		return;
	l->gdb_client = -1;
	l->detach = true;
	l->ckpt.wanted = false;
	if (l->keep_stopped) {
		vg_live_mend_returns(r);	/* (stopped by now or never) */
		/* a gdb killed at a breakpoint leaves the thread running */
		kill(pid, SIGSTOP);
		l->keep_stopped_at_end = true;
		fprintf(stderr, "vigil: gdb went away: monitoring ends, pid %d stays stopped (vigil keep-stopped)\n",
			pid);
		return;
	}
	/* a gdb that died let go of a thread stopped in a function with an
	 * `after` probe, whose frame holds the real return address its
	 * extension put there: running on, it would return past the
	 * trampoline. A SIGSTOP while gdb still holds it stops it again as
	 * gdb lets go, so the addresses are put back first (below). */
	if (vg_proc_state(pid) == 't')
		kill(pid, SIGSTOP);
	/* gdb's ptrace stop is gone with gdb; a SIGSTOP it did not take
	 * would leave a group stop (gdb's socket closes before its exit
	 * lets go of the tracee: over 1 s on a loaded machine, so up to 5 s
	 * here, only when gdb died). A tracee gdb let go of before this
	 * look may not have taken the SIGSTOP yet (the extension's, queued
	 * on a thread whose frame holds real return addresses): it is
	 * waited for too, or the thread would run on past the trampoline. */
	for (int i = 0; i < 2500; i++) {
		char st = vg_proc_state(pid);

		if (st != 't' && (st == 'T' || !st ||
				  !vg_proc_stop_pending(pid)))
			break;
		usleep(2000);
	}
	if (vg_proc_state(pid) == 'T') {
		vg_live_mend_returns(r);
		kill(pid, SIGCONT);
	}
	fprintf(stderr, "vigil: gdb went away: monitoring ends, the program runs on\n");
}

void vg_live_open(struct vg_run *r)
{
	struct vg_err e = { 0 };
	struct vg_live *l = calloc(1, sizeof(*l));

	if (!l)
		return;
	l->gdb_client = -1;
	/* a run of vigil agent's answers at its own pid: several units
	 * may watch one process (and vigil watch has no pid of its own);
	 * the agent drives it there on a reload (agent/reload.c) */
	l->ctl = vg_ctl_open(vg_live_host_ctl_pid(r), dispatch, closed, r, &e);
	if (!l->ctl) {
		fprintf(stderr, "vigil: no control channel: %s\n", e.msg);
		free(l);
		return;
	}
	vg_live_host_set_state(r, l);
}

void vg_live_close(struct vg_run *r)
{
	struct vg_live *l = vg_live_host_state(r);

	if (!l || !l->ctl)
		return;
	vg_ctl_close(l->ctl);
	l->ctl = NULL;
	l->gdb_client = -1;
	for (int i = 0; i < l->nstops; i++)
		json_decref(l->stops[i].violation);
	l->nstops = 0;
}

void vg_live_free(struct vg_run *r)
{
	vg_live_close(r);
	free(vg_live_host_state(r));
	vg_live_host_set_state(r, NULL);
}

int vg_live_fd(const struct vg_run *r)
{
	const struct vg_live *l = vg_live_host_state(r);

	return l && l->ctl ? vg_ctl_fd(l->ctl) : -1;
}

void vg_live_serve(struct vg_run *r)
{
	struct vg_live *l = vg_live_host_state(r);

	if (l && l->ctl)
		vg_ctl_serve(l->ctl);
}

int vg_live_gdb_command(struct vg_run *r, char *cmd, size_t len,
			struct vg_err *e)
{
	struct vg_live *l = vg_live_host_state(r);

	if (!l || !l->ctl)
		return vg_errf(e, "no control channel: no live gdb session");
	return vg_gdb_prepare_live(vg_run_pid(r), vg_ctl_path(l->ctl), cmd,
				   len, e);
}
