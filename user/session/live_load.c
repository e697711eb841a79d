/* `vigil load SPEC` / `vigil unload PROP` in a running session: each
 * loaded spec file is a unit, a session of its own on the same process
 * (live_load.h says why). A unit is put together as the session's own
 * properties are (session.c's open_all): spec, plan, report, evidence,
 * monitor, scenario, then the probes, attached to the running process as
 * `vigil attach` does. Anything that fails on the way is undone, and the
 * session goes on as it was. The units in a checkpoint's state:
 * live_load_state.c. */
#include "live_load.h"
#include "live_load_unit.h"
#include "live.h"
#include "session_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "act/scenario.h"
#include "follow/follow.h"
#include "monitor/monitor.h"
#include "plan/plan.h"
#include "probe/features.h"
#include "report/evidence.h"
#include "report/report.h"
#include "sym/symbolize.h"
#include "symval/symval.h"

#define VG_LOAD_DEFS 32		/* -D per load */

struct unit {
	struct session s;
	struct vg_session_opts o;
	struct vg_err err;		/* where its record handling reports */
	char path[PATH_MAX];
	char *defs[VG_LOAD_DEFS];	/* "NAME=VALUE", as given */
	int ndefs;
	char *reacts[VG_LOAD_DEFS];	/* "PROP=REACTION" (--on-violation) */
	int nreacts;
};

struct vg_load {
	struct unit *u[VG_LOAD_MAX];
	int n;
	bool violated;		/* by a unit, unloaded since or not */
	int ep;			/* the loop's epoll set (vg_load_watch) */
	bool has_ep;
	/* [nprops] of the session's own: unloaded (live_unload.c) */
	bool *gone;
	bool any_gone;
};

/* A unit's records wake the loop as the session's own do: waiting a
 * whole idle poll for them could fill its ring. Its fd leaves the set
 * when the unit closes it. */
static void watch_unit(struct vg_load *l, struct unit *u)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (!l->has_ep)
		return;
	ev.data.fd = vg_probe_fd(u->s.probe);
	epoll_ctl(l->ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
}

void vg_load_watch(struct session *ss, int ep)
{
	if (!ss->loaded && !(ss->loaded = calloc(1, sizeof(*ss->loaded))))
		return;		/* then units wake it at its poll only */
	ss->loaded->ep = ep;
	ss->loaded->has_ep = true;
	for (int k = 0; k < ss->loaded->n; k++)
		watch_unit(ss->loaded, ss->loaded->u[k]);
}

static struct unit *unit_of(struct session *s)
{
	return (struct unit *)s;	/* s is a unit's first member */
}

static void unit_free(struct unit *u)
{
	struct session *s;

	if (!u)
		return;
	s = &u->s;
	vg_probe_close(s->probe);	/* its uprobes detach here */
	vg_follow_free(s->procs);	/* vigil watch: its processes' */
	vg_scenario_free(s->sc);
	vg_monitor_free(s->mon);
	vg_report_free(s->report);
	vg_evidence_free(s->evidence);
	vg_symval_free(s->symval);
	vg_symbolizer_free(s->sym);
	free(s->stack_on);
	free(s->kernel);
	vg_spec_free(s->spec);
	for (int i = 0; i < u->ndefs; i++)
		free(u->defs[i]);
	for (int i = 0; i < u->nreacts; i++)
		free(u->reacts[i]);
	vg_features_end(s, NULL);	/* borrowed: the features forget it */
	free(u);
}

/* --on-violation PROP=REACTION of a load (as vigil run takes them; the
 * agent's reload gives each property's): onto the loaded properties.
 * Not checkpoint: a unit's checkpoint requests are not taken (only the
 * session's own scenario's are, ckpt/ckpt_run.c). */
static int unit_reactions(struct unit *u, struct vg_err *e)
{
	static const char *const names[] = {
		[VG_OV_STOP] = "stop", [VG_OV_GDB] = "gdb",
		[VG_OV_CONTINUE] = "continue", [VG_OV_KILL] = "kill",
	};
	struct vg_spec *sp = u->s.spec;

	for (int i = 0; i < u->nreacts; i++) {
		const char *a = u->reacts[i], *eq = strchr(a, '='), *r;
		int ov = -1, p;

		if (!eq || eq == a)
			return vg_errf(e, "--on-violation '%s': expected PROPERTY=REACTION", a);
		r = !strcmp(eq + 1, "log") ? "continue" : eq + 1;
		for (p = 0; p < sp->nprops; p++)
			if (strlen(sp->props[p].name) == (size_t)(eq - a) &&
			    !strncmp(sp->props[p].name, a, (size_t)(eq - a)))
				break;
		if (p == sp->nprops)
			return vg_errf(e, "--on-violation %s: no property '%.*s' in %s",
				       a, (int)(eq - a), a, u->path);
		for (int k = 0; k < (int)(sizeof(names) / sizeof(names[0])); k++)
			if (names[k] && !strcmp(r, names[k]))
				ov = k;
		if (ov < 0)
			return vg_errf(e, "--on-violation %s: '%s' is not stop, gdb, continue (log) or kill (a loaded spec takes no checkpoint reaction)",
				       a, eq + 1);
		sp->props[p].has_on_violation = true;
		sp->props[p].on_violation = ov;
	}
	return 0;
}

/* The spec file, with its -D NAME=VALUE (as vigil run takes them) and
 * --on-violation PROP=REACTION. */
static int unit_spec(struct unit *u, json_t *args, struct vg_err *e)
{
	const char *a;
	size_t i;

	if (!(u->s.spec = vg_spec_new()))
		return vg_errf(e, "out of memory");
	for (i = 1; (a = json_string_value(json_array_get(args, i))); i++) {
		const char *eq;
		char *name;
		int rc;

		if (!strcmp(a, "--on-violation") || !strncmp(a, "--on-violation=", 15)) {
			if (a[14])
				a += 15;
			else if (!(a = json_string_value(json_array_get(args, ++i))))
				return vg_errf(e, "--on-violation: expected PROPERTY=REACTION");
			if (u->nreacts == VG_LOAD_DEFS)
				return vg_errf(e, "more than %d --on-violation", VG_LOAD_DEFS);
			if (!(u->reacts[u->nreacts++] = strdup(a)))
				return vg_errf(e, "out of memory");
			continue;
		}
		if (!strcmp(a, "-D") || !strcmp(a, "--define")) {
			if (!(a = json_string_value(json_array_get(args, ++i))))
				return vg_errf(e, "-D: expected NAME=VALUE");
		} else if (!strncmp(a, "-D", 2)) {
			a += 2;
		} else {
			return vg_errf(e, "'%s': expected -D NAME=VALUE or --on-violation PROPERTY=REACTION (one spec file per load)", a);
		}
		if (!(eq = strchr(a, '=')) || eq == a)
			return vg_errf(e, "-D '%s': expected NAME=VALUE", a);
		if (u->ndefs == VG_LOAD_DEFS)
			return vg_errf(e, "more than %d -D", VG_LOAD_DEFS);
		if (!(u->defs[u->ndefs] = strdup(a)) ||
		    !(name = strndup(a, (size_t)(eq - a))))
			return vg_errf(e, "out of memory");
		u->ndefs++;
		rc = vg_spec_define(u->s.spec, name, eq + 1, e);
		free(name);
		if (rc)
			return -1;
	}
	if (vg_spec_load_file(u->s.spec, u->path, e) ||
	    vg_spec_check_defines(u->s.spec, e) || unit_reactions(u, e))
		return -1;
	return 0;
}

/* A property name already in the session, the session's own or a
 * unit's: the commands find a property by its name. */
static int unit_check(struct session *ss, struct unit *u, struct vg_err *e)
{
	const struct vg_spec *sp = u->s.spec;

	if (!sp->nprops)
		return vg_errf(e, "%s: no property in it", u->path);
	for (int i = 0; i < sp->nprops; i++) {
		if (vg_load_owner(ss, sp->props[i].name))
			return vg_errf(e, "%s: property %s is already in this session (vigil unload %s first)",
				       u->path, sp->props[i].name,
				       sp->props[i].name);
		for (int j = 0; j < i; j++)
			if (!strcmp(sp->props[i].name, sp->props[j].name))
				return vg_errf(e, "%s: property %s is there twice",
					       u->path, sp->props[i].name);
	}
	/* watchpoints are armed per thread from the start of a run
	 * (watchset.c): not planned for a unit */
	for (int i = 0; i < sp->nevents; i++)
		if (vg_event_watches(&sp->events[i]))
			return vg_errf(e, "%s: a watch event (%s) cannot be loaded into a running session: give the spec when the session starts",
				       u->path, vg_event_kind_name(sp->events[i].kind));
	return 0;
}

/* Everything a session's own properties get (session.c's open_all), on
 * the process as it runs now. */
static int unit_open(struct session *ss, struct unit *u, struct vg_err *e)
{
	struct session *s = &u->s;
	struct vg_monitor_opts mo = { 0 };
	struct vg_monitor_hooks hooks = { .ctx = s,
					  .transition = vg_session_on_transition };
	struct vg_plan *plan = NULL;
	bool *user = NULL;
	int rc = -1;

	u->o = *ss->o;
	u->o.pid = ss->pid;		/* attached: launched long ago */
	/* vigil watch: it follows the session's processes (watch_load.c),
	 * whose counts and hooks are the session's */
	if (ss->o->watch_exe)
		s->watch_root = ss;
	u->o.json_path = NULL;		/* the session's JSON is its own */
	u->o.record_path = NULL;
	u->o.state_path = NULL;
	u->o.dynamic = false;
	u->o.live = false;
	s->o = &u->o;
	s->pid = ss->pid;
	s->err = &u->err;
	s->libs = ss->libs;		/* borrowed: the session's */
	s->nlibs = ss->nlibs;
	snprintf(s->exe, sizeof(s->exe), "%s", ss->exe);

	struct vg_plan_opts plo = {
		.binary = s->exe, .libs = s->libs, .nlibs = s->nlibs,
		/* vigil watch: the user tier unless --tier=kernel, as the
		 * session's own (session_procs.c, vg_session_follow_check) */
		.tier = ss->o->watch_exe && !vg_session_watch_kernel(ss)
			? VG_TIER_USER : ss->o->tier,
		.on_violation = ss->o->on_violation,
		.stacks = ss->o->stacks,
		.no_ktimer = !vg_feat_ktimer(NULL),
	};
	if (!(plan = vg_plan_build(s->spec, &plo, e)))
		goto out;
	s->kernel = calloc((size_t)s->spec->nprops + 1, sizeof(bool));
	s->stack_on = calloc((size_t)s->spec->nevents + 1, sizeof(bool));
	user = calloc((size_t)s->spec->nprops + 1, sizeof(bool));
	/* its own monitors of the processes it follows (vigil watch's) */
	s->procs = vg_follow_new();
	if (!s->kernel || !s->stack_on || !user || !s->procs) {
		vg_errf(e, "out of memory");
		goto out;
	}
	memcpy(s->kernel, plan->kernel, (size_t)s->spec->nprops * sizeof(bool));
	memcpy(s->stack_on, plan->stack_events,
	       (size_t)s->spec->nevents * sizeof(bool));
	if (!(s->report = vg_report_new(s->spec, stderr, NULL, e)))
		goto out;
	if (!(s->evidence = vg_evidence_new(s->spec, 0, ss->o->evidence)) ||
	    !(s->symval = vg_symval_new((struct vg_run *)s, s->spec,
					s->stack_on, s->o->pid > 0))) {
		vg_errf(e, "out of memory");
		goto out;
	}
	vg_evidence_set_stacks(s->evidence, vg_session_event_stack, s);
	vg_report_set_evidence(s->report, s->evidence);
	for (int i = 0; i < s->spec->nprops; i++)
		user[i] = !s->kernel[i];
	mo.evaluate = user;
	mo.max_slices = ss->o->max_slices;
	if (!(s->mon = vg_monitor_new(s->spec, &mo, &hooks, e)))
		goto out;
	if (!(s->sc = vg_scenario_new(s->spec, s->pid, s->report,
				      ss->o->on_violation, e)))
		goto out;
	/* its violations counted and sent where the session's go */
	vg_features_share(ss, s);
	struct vg_probe_opts po = {
		.plan = plan,
		.pid = s->pid,
		.binary = s->exe,
		.libs = s->libs,
		.nlibs = s->nlibs,
		.ringbuf_bytes = ss->o->ringbuf_bytes,
		.max_kslices = ss->o->max_slices,
		.warn = stderr,
		/* vigil watch: the session holds and finds the processes,
		 * the unit follows them (slices keyed by process) */
		.follow_forks = ss->o->watch_exe != NULL,
		.watch = ss->o->watch_exe != NULL,
		.follower = ss->o->watch_exe != NULL,
	};
	if (!(s->probe = vg_probe_open(s->spec, &po, e)))
		goto out;
	if (ss->o->watch_exe && vg_watch_unit_start(ss, s, e))
		goto out;
	for (int i = 0; i < s->spec->nprops; i++)
		fprintf(stderr, "vigil: loaded %s from %s: %s tier%s%s\n",
			s->spec->props[i].name, u->path,
			s->kernel[i] ? "kernel" : "user",
			s->kernel[i] ? "" : " because ",
			s->kernel[i] ? ""
			: ss->o->watch_exe ? "vigil watch (the default; --tier=kernel keys kernel-tier slices by process)"
					   : plan->props[i].why);
	rc = 0;
out:
	free(user);
	vg_plan_free(plan);
	return rc;
}

static void unit_final(struct session *s);

static json_t *fail(struct unit *u, const struct vg_err *e)
{
	char msg[sizeof(e->msg)];
	size_t n;

	/* a parse error's message spans lines (the source line and a caret):
	 * the reply keeps them, without the last newline */
	snprintf(msg, sizeof(msg), "%s", e->msg);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	unit_free(u);
	return vg_live_reply(false, msg, NULL);
}

json_t *vg_load_cmd(struct session *ss, json_t *args)
{
	const char *path = json_string_value(json_array_get(args, 0));
	struct vg_load *l;
	struct vg_err e = { 0 };
	struct unit *u;
	char *text = NULL;
	size_t tlen = 0;
	json_t *props, *r;
	FILE *m;

	if (!path)
		return vg_live_reply(false, "usage: load SPEC [-D NAME=VALUE ...] [--on-violation PROPERTY=REACTION ...]", NULL);
	if (ss->o->follow_forks && !ss->o->watch_exe)	/* watch_load.c */
		return vg_live_reply(false, "no vigil load with --follow-fork: the followed processes' monitors are made at their first event", NULL);
	if (!ss->loaded && !(ss->loaded = calloc(1, sizeof(*ss->loaded))))
		return vg_live_reply(false, "out of memory", NULL);
	l = ss->loaded;
	if (l->n == VG_LOAD_MAX)
		return vg_live_reply(false, "too many loaded spec files (16)", NULL);
	if (!(u = calloc(1, sizeof(*u))))
		return vg_live_reply(false, "out of memory", NULL);
	/* relative to the directory vigil runs in; gdb's extension sends
	 * absolute paths (gdb's own directory may differ) */
	if (!realpath(path, u->path)) {
		snprintf(e.msg, sizeof(e.msg), "%s: %s", path, strerror(errno));
		return fail(u, &e);
	}
	if (unit_spec(u, args, &e) || unit_check(ss, u, &e) ||
	    unit_open(ss, u, &e))
		return fail(u, &e);
	l->u[l->n++] = u;
	watch_unit(l, u);
	/* under gdb its user-tier stops land at their events too */
	if (vg_live_push_holds(ss, &u->s, &e))
		fprintf(stderr, "vigil: %s: user-tier stops will be late: %s\n",
			u->path, e.msg);
	props = json_array();
	if (!(m = open_memstream(&text, &tlen))) {
		json_decref(props);
		return vg_live_reply(false, "out of memory", NULL);
	}
	for (int i = 0; i < u->s.spec->nprops; i++) {
		fprintf(m, "loaded %s (%s tier): its slices start in its initial state",
			u->s.spec->props[i].name,
			u->s.kernel[i] ? "kernel" : "user");
		if (ss->o->watch_exe)	/* watch_load.c */
			fprintf(m, ", in each of the %d watched processes and those to come",
				vg_follow_count(u->s.procs));
		fputc('\n', m);
		json_array_append_new(props, json_pack("{s:s,s:s}", "name",
			u->s.spec->props[i].name, "tier",
			u->s.kernel[i] ? "kernel" : "user"));
	}
	fclose(m);
	r = vg_live_reply(true, text, json_pack("{s:s,s:o}", "path", u->path,
						"properties", props));
	free(text);
	return r;
}

json_t *vg_unload_cmd(struct session *ss, json_t *args)
{
	const char *name = json_string_value(json_array_get(args, 0));
	struct session *own = name ? vg_load_owner(ss, name) : NULL;
	struct vg_load *l = ss->loaded;
	char *text = NULL;
	size_t tlen = 0;
	json_t *props, *r;
	struct unit *u;
	FILE *m;
	int k;

	if (!name)
		return vg_live_reply(false, "usage: unload PROPERTY", NULL);
	if (!own) {
		char msg[512];

		snprintf(msg, sizeof(msg), "no property %s", name);
		return vg_live_reply(false, msg, NULL);
	}
	if (own == ss)		/* given when the session started */
		return vg_unload_own(ss, name);
	u = unit_of(own);
	for (k = 0; l->u[k] != u; k++)
		;
	/* what it had to say comes first: its last records, a violation */
	vg_load_drain(ss);
	if (vg_scenario_violated(u->s.sc))
		l->violated = true;
	vg_live_forget(ss, own);
	props = json_array();
	if (!(m = open_memstream(&text, &tlen))) {
		json_decref(props);
		return vg_live_reply(false, "out of memory", NULL);
	}
	for (int i = 0; i < own->spec->nprops; i++) {
		fprintf(m, "unloaded %s%s%s, its probes detached and its slices freed\n",
			own->spec->props[i].name,
			own->spec->nprops > 1 ? " (loaded together from " : "",
			own->spec->nprops > 1 ? u->path : "");
		json_array_append_new(props,
				      json_string(own->spec->props[i].name));
	}
	fclose(m);
	for (int i = 0; i < own->spec->nprops; i++)
		fprintf(stderr, "vigil: unloaded %s\n", own->spec->props[i].name);
	unit_final(own);
	if (vg_report_errors(own->report))	/* its verdicts at the end */
		l->violated = true;
	memmove(l->u + k, l->u + k + 1, sizeof(l->u[0]) * (size_t)(l->n - k - 1));
	l->n--;
	unit_free(u);
	r = vg_live_reply(true, text, json_pack("{s:o}", "properties", props));
	free(text);
	return r;
}

struct session *vg_load_unit(struct session *ss, int i)
{
	return ss->loaded && i >= 0 && i < ss->loaded->n ? &ss->loaded->u[i]->s
							  : NULL;
}

struct session *vg_load_owner(struct session *ss, const char *name)
{
	struct session *s = ss;

	for (int k = 0; s && name; s = vg_load_unit(ss, k++))
		for (int i = 0; i < s->spec->nprops; i++)
			if (!strcmp(s->spec->props[i].name, name) &&
			    !vg_monitor_prop_disabled(s->mon, i))	/* unloaded */
				return s;
	return NULL;
}

const bool *vg_load_gone(const struct session *s)
{
	return s->loaded && s->loaded->any_gone ? s->loaded->gone : NULL;
}

int vg_load_set_gone(struct session *ss, int prop, bool gone)
{
	struct vg_load *l = ss->loaded ? ss->loaded : calloc(1, sizeof(*l));

	if (!(ss->loaded = l) || (!l->gone && !(l->gone = calloc(
				(size_t)ss->spec->nprops + 1, sizeof(bool)))))
		return -1;
	l->gone[prop] = gone;
	l->any_gone = false;
	for (int i = 0; i < ss->spec->nprops; i++)
		l->any_gone |= l->gone[i];
	return 0;
}

const char *vg_load_path(const struct session *u)
{
	return ((const struct unit *)u)->path;
}

char *const *vg_load_defs(const struct session *u, int *n)
{
	*n = ((const struct unit *)u)->ndefs;
	return ((const struct unit *)u)->defs;
}

char *const *vg_load_reacts(const struct session *u, int *n)
{
	*n = ((const struct unit *)u)->nreacts;
	return ((const struct unit *)u)->reacts;
}

struct session *vg_load_unit_open(struct session *ss, const char *path,
				  json_t *args, struct vg_err *e)
{
	struct unit *u = calloc(1, sizeof(*u));

	if (!u) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	snprintf(u->path, sizeof(u->path), "%s", path);
	if (unit_spec(u, args, e) || unit_check(ss, u, e) ||
	    unit_open(ss, u, e)) {
		unit_free(u);
		return NULL;
	}
	return &u->s;
}

void vg_load_unit_free(struct session *u)
{
	unit_free(unit_of(u));	/* NULL: nothing */
}

int vg_load_units_reset(struct session *ss, bool room, struct vg_err *e)
{
	if (room && !ss->loaded && !(ss->loaded = calloc(1, sizeof(*ss->loaded))))
		return vg_errf(e, "out of memory");
	if (!ss->loaded)
		return 0;
	for (int k = 0; k < ss->loaded->n; k++) {
		vg_live_forget(ss, &ss->loaded->u[k]->s);
		unit_free(ss->loaded->u[k]);
	}
	ss->loaded->n = 0;
	return 0;
}

void vg_load_unit_add(struct session *ss, struct session *u)
{
	ss->loaded->u[ss->loaded->n++] = unit_of(u);
	watch_unit(ss->loaded, unit_of(u));
}

void vg_load_drain(struct session *ss)
{
	struct session *s;

	for (int k = 0; (s = vg_load_unit(ss, k)); k++)
		vg_load_drain_unit(ss, s);
}

void vg_load_drain_unit(struct session *ss, struct session *s)
{
	struct unit *u = unit_of(s);

	/* the unit borrows the live side while its records go
	 * through: its `vigil break`s (each knows its owner) and its
	 * stops for gdb, as the session's own */
	s->live = ss->live;
	u->err.msg[0] = 0;
	if (vg_probe_drain(s->probe, vg_session_on_record, s, &u->err) < 0 ||
	    vg_session_timeouts(s, &u->err))
		fprintf(stderr, "vigil: %s: %s\n", u->path, u->err.msg);
	if (vg_hold_release(s, &u->err))
		fprintf(stderr, "vigil: %s: %s\n", u->path, u->err.msg);
	if (vg_scenario_violated(s->sc))
		ss->loaded->violated = true;
	vg_live_keep_going(s);
	s->live = NULL;
	/* a `gdb` reaction of a loaded property opened the live
	 * session: the gdb it started is the session's (its exit
	 * ends monitoring) */
	if (s->gdb_pid > 0) {
		if (ss->gdb_pid <= 0)
			ss->gdb_pid = s->gdb_pid;
		s->gdb_pid = 0;
	}
}

struct vg_scenario *vg_load_stopped(struct session *ss)
{
	struct session *s;

	if (ss->o->watch_exe)	/* each process's stop is its own */
		return NULL;
	for (int k = 0; (s = vg_load_unit(ss, k)); k++)
		if (vg_scenario_target_stopped(s->sc))
			return s->sc;
	return NULL;
}

bool vg_load_violated(const struct session *ss)
{
	return ss->loaded && ss->loaded->violated;
}

void vg_load_suspend(struct session *ss)
{
	struct session *s;

	for (int k = 0; (s = vg_load_unit(ss, k)); k++)
		vg_probe_suspend(s->probe);
	vg_load_drain(ss);
}

int vg_load_resume(struct session *ss, struct vg_err *e)
{
	struct session *s;
	int rc = 0;

	for (int k = 0; (s = vg_load_unit(ss, k)); k++)
		if (vg_probe_resume(s->probe, e))
			rc = -1;
	return rc;
}

/* A unit's verdicts: at the end of the run, or when it is unloaded (what
 * it saw until then). */
static void unit_final(struct session *s)
{
	char label[PATH_MAX + 32];

	vg_session_mirror_kslices(s);
	if (s->watch_root)	/* each process's */
		vg_watch_unit_final(s);
	else
		vg_report_final(s->report, s->mon, 0);
	snprintf(label, sizeof(label), "loaded from %s: ", vg_load_path(s));
	vg_report_summary(s->report, label);
}

void vg_load_final(struct session *ss)
{
	struct session *s;

	for (int k = 0; (s = vg_load_unit(ss, k)); k++) {
		unit_final(s);
		if (vg_report_errors(s->report))  /* its verdicts at the end */
			ss->loaded->violated = true;
	}
}

void vg_load_free(struct session *ss)
{
	if (!ss->loaded)
		return;
	for (int k = 0; k < ss->loaded->n; k++)
		unit_free(ss->loaded->u[k]);
	free(ss->loaded->gone);
	free(ss->loaded);
	ss->loaded = NULL;
}

/* `status`: the units' properties after the session's own, each unit
 * with its file, its probes and its events; the totals count them all. */
json_t *vg_load_status(struct session *ss, json_t *r)
{
	json_t *d = json_object_get(r, "data");
	const char *t = json_string_value(json_object_get(r, "text"));
	struct session *s;
	char *text = NULL;
	size_t tlen = 0;
	FILE *m;

	if (!d || !t || !vg_load_unit(ss, 0) ||
	    !(m = open_memstream(&text, &tlen)))
		return r;
	fputs(t, m);
	for (int k = 0; (s = vg_load_unit(ss, k)); k++) {
		json_t *r2, *d2, *v;
		const char *t2;
		size_t i;

		vg_session_mirror_kslices(s);
		r2 = vg_live_status(s);
		d2 = json_object_get(r2, "data");
		t2 = json_string_value(json_object_get(r2, "text"));
		if (!d2 || !t2) {
			json_decref(r2);
			continue;
		}
		/* its first line is its probes and events: said here */
		fprintf(m, "loaded from %s: %" JSON_INTEGER_FORMAT " events, %" JSON_INTEGER_FORMAT " lost, probes %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT " attached\n",
			vg_load_path(s),
			json_integer_value(json_object_get(d2, "events")),
			json_integer_value(json_object_get(d2, "lost")),
			json_integer_value(json_object_get(d2, "probes_attached")),
			json_integer_value(json_object_get(d2, "probes")));
		fputs(strchr(t2, '\n') ? strchr(t2, '\n') + 1 : "", m);
		json_array_foreach(json_object_get(d2, "properties"), i, v) {
			json_object_set_new(v, "loaded", json_string(vg_load_path(s)));
			json_array_append(json_object_get(d, "properties"), v);
		}
		json_array_foreach(json_object_get(d2, "per_event"), i, v)
			json_array_append(json_object_get(d, "per_event"), v);
		for (const char **f = (const char *[]){ "events", "lost",
			"probes_attached", "probes", NULL }; *f; f++)
			json_object_set_new(d, *f, json_integer(
				json_integer_value(json_object_get(d, *f)) +
				json_integer_value(json_object_get(d2, *f))));
		json_decref(r2);
	}
	fclose(m);
	json_object_set_new(r, "text", json_string(text ? text : ""));
	free(text);
	return r;
}

/* `probes`: where the units' uprobes trap too (gdb's extension keeps its
 * breakpoints off every one of them). */
json_t *vg_load_probes(struct session *ss, json_t *r)
{
	json_t *arr = json_object_get(json_object_get(r, "data"), "probes");
	const char *t = json_string_value(json_object_get(r, "text"));
	struct session *s;
	char *text = NULL;
	size_t tlen = 0;
	FILE *m;

	if (!arr || !t || !vg_load_unit(ss, 0) ||
	    !(m = open_memstream(&text, &tlen)))
		return r;
	fputs(t, m);
	for (int k = 0; (s = vg_load_unit(ss, k)); k++) {
		json_t *r2 = vg_live_probes(s), *v;
		const char *t2 = json_string_value(json_object_get(r2, "text"));
		size_t i;

		fputs(t2 ? t2 : "", m);
		json_array_foreach(json_object_get(json_object_get(r2, "data"),
						   "probes"), i, v)
			json_array_append(arr, v);
		json_decref(r2);
	}
	fclose(m);
	json_object_set_new(r, "text", json_string(text ? text : ""));
	free(text);
	return r;
}
