/* `vigil load SPEC` / `vigil unload PROP` in a running session: each
 * loaded spec file is a unit, a run of its own on the same process
 * (load.h says why). A unit is its spec (the file, its -D and
 * --on-violation), checked against the session's properties, then a run
 * the core opens for it as it opens its own (vg_load_host_open_part).
 * Anything that fails on the way is undone, and the session goes on as it
 * was. The units in a checkpoint's state: load_state.c; the session's own
 * properties unloaded: unload.c. */
#include "load.h"
#include "load_unit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "act/on_violation.h"
#include "feature/feature.h"
#include "probe/probe.h"
#include "spec/spec.h"

#define VG_LOAD_DEFS 32		/* -D per load */

struct vg_loaded {
	struct vg_run *run;		/* NULL until opened */
	struct vg_spec *spec;		/* its spec until the run takes it */
	char path[PATH_MAX];
	char *defs[VG_LOAD_DEFS];	/* "NAME=VALUE", as given */
	int ndefs;
	char *reacts[VG_LOAD_DEFS];	/* "PROP=REACTION" (--on-violation) */
	int nreacts;
};

struct vg_load {
	struct vg_loaded *u[VG_LOAD_MAX];
	int n;
	bool violated;		/* by a unit, unloaded since or not */
	int ep;			/* the loop's epoll set (vg_load_watch) */
	bool has_ep;
	/* [nprops] of the session's own: unloaded (unload.c) */
	bool *gone;
	bool any_gone;
};

/* The module's state in the session, made at first need (NULL: out of
 * memory). */
static struct vg_load *state_made(struct vg_run *ss)
{
	struct vg_load **l = vg_load_host_state(ss);

	if (!*l)
		*l = calloc(1, sizeof(**l));
	return *l;
}

static struct vg_load *state(const struct vg_run *ss)
{
	return *vg_load_host_state(ss);
}

int vg_load_answer(char *text, json_t *data, char **out, json_t **dout)
{
	*out = text;
	*dout = data;
	return 1;
}

/* A unit's records wake the loop as the session's own do: waiting a
 * whole idle poll for them could fill its ring. Its fd leaves the set
 * when the unit closes it. */
static void watch_unit(struct vg_load *l, struct vg_loaded *u)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (!l->has_ep)
		return;
	ev.data.fd = vg_probe_fd(vg_run_probe(u->run));
	epoll_ctl(l->ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
}

void vg_load_watch(struct vg_run *ss, int ep)
{
	struct vg_load *l = state_made(ss);

	if (!l)
		return;		/* then units wake it at its poll only */
	l->ep = ep;
	l->has_ep = true;
	for (int k = 0; k < l->n; k++)
		watch_unit(l, l->u[k]);
}

static void unit_free(struct vg_loaded *u)
{
	if (!u)
		return;
	vg_load_host_close_part(u->run);	/* its uprobes detach here */
	vg_spec_free(u->spec);			/* not opened: still ours */
	for (int i = 0; i < u->ndefs; i++)
		free(u->defs[i]);
	for (int i = 0; i < u->nreacts; i++)
		free(u->reacts[i]);
	free(u);
}

/* The unit of run part, or NULL; *k its place in the list. */
static struct vg_loaded *unit_of(const struct vg_run *ss,
				const struct vg_run *part, int *k)
{
	struct vg_load *l = state(ss);

	for (int i = 0; l && i < l->n; i++)
		if (l->u[i]->run == part) {
			if (k)
				*k = i;
			return l->u[i];
		}
	return NULL;
}
/* --on-violation PROP=REACTION of a load (as vigil run takes them; the
 * agent's reload gives each property's): onto the loaded properties.
 * Not checkpoint: a unit's checkpoint requests are not taken (only the
 * session's own scenario's are, ckpt/ckpt_run.c). */
static int unit_reactions(struct vg_loaded *u, struct vg_err *e)
{
	static const char *const names[] = {
		[VG_OV_STOP] = "stop", [VG_OV_GDB] = "gdb",
		[VG_OV_CONTINUE] = "continue", [VG_OV_KILL] = "kill",
	};
	struct vg_spec *sp = u->spec;

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
static int unit_spec(struct vg_loaded *u, json_t *args, struct vg_err *e)
{
	const char *a;
	size_t i;

	if (!(u->spec = vg_spec_new()))
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
		rc = vg_spec_define(u->spec, name, eq + 1, e);
		free(name);
		if (rc)
			return -1;
	}
	if (vg_spec_load_file(u->spec, u->path, e) ||
	    vg_spec_check_defines(u->spec, e) || unit_reactions(u, e))
		return -1;
	return 0;
}

/* A property name already in the session, the session's own or a
 * unit's: the commands find a property by its name. */
static int unit_check(struct vg_run *ss, struct vg_loaded *u,
		      struct vg_err *e)
{
	const struct vg_spec *sp = u->spec;

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


static int fail(struct vg_loaded *u, struct vg_err *e)
{
	size_t n = strlen(e->msg);

	/* a parse error's message spans lines (the source line and a caret):
	 * the reply keeps them, without the last newline */
	while (n && e->msg[n - 1] == '\n')
		e->msg[--n] = 0;
	unit_free(u);
	return -1;
}

/* The unit's spec, checked, then its run opened by the core (which takes
 * the spec, opened or not). */
static int unit_open(struct vg_run *ss, struct vg_loaded *u, json_t *args,
		     struct vg_err *e)
{
	struct vg_spec *spec;

	if (unit_spec(u, args, e) || unit_check(ss, u, e))
		return -1;
	spec = u->spec;
	u->spec = NULL;
	return (u->run = vg_load_host_open_part(ss, spec, u->path, e)) ? 0 : -1;
}

int vg_load_cmd(struct vg_run *ss, json_t *args, char **reply,
		json_t **data, struct vg_err *e)
{
	const char *path = json_string_value(json_array_get(args, 0));
	const struct vg_spec *sp;
	struct vg_load_host_how how;
	struct vg_load *l;
	struct vg_err w = { 0 };
	struct vg_loaded *u;
	char *text = NULL;
	size_t tlen = 0;
	json_t *props;
	FILE *m;

	vg_load_host_how(ss, &how);
	if (!path)
		return vg_errf(e, "usage: load SPEC [-D NAME=VALUE ...] [--on-violation PROPERTY=REACTION ...]");
	if (how.follow_forks && !how.watch)	/* watch_load.c */
		return vg_errf(e, "no vigil load with --follow-fork: the followed processes' monitors are made at their first event");
	if (!(l = state_made(ss)))
		return vg_errf(e, "out of memory");
	if (l->n == VG_LOAD_MAX)
		return vg_errf(e, "too many loaded spec files (16)");
	if (!(u = calloc(1, sizeof(*u))))
		return vg_errf(e, "out of memory");
	/* relative to the directory vigil runs in; gdb's extension sends
	 * absolute paths (gdb's own directory may differ) */
	if (!realpath(path, u->path)) {
		vg_errf(e, "%s: %s", path, strerror(errno));
		return fail(u, e);
	}
	if (unit_open(ss, u, args, e))
		return fail(u, e);
	l->u[l->n++] = u;
	watch_unit(l, u);
	/* under gdb its user-tier stops land at their events too */
	if (vg_load_host_push_holds(ss, u->run, &w))
		fprintf(stderr, "vigil: %s: user-tier stops will be late: %s\n",
			u->path, w.msg);
	props = json_array();
	if (!(m = open_memstream(&text, &tlen))) {
		json_decref(props);
		return vg_errf(e, "out of memory");
	}
	sp = vg_run_spec(u->run);
	for (int i = 0; i < sp->nprops; i++) {
		const char *tier = vg_run_prop_kernel(u->run, i) ? "kernel"
								 : "user";

		fprintf(m, "loaded %s (%s tier): its slices start in its initial state",
			sp->props[i].name, tier);
		if (how.watch)	/* watch_load.c */
			fprintf(m, ", in each of the %d watched processes and those to come",
				vg_load_host_part_processes(u->run));
		fputc('\n', m);
		json_array_append_new(props, json_pack("{s:s,s:s}", "name",
			sp->props[i].name, "tier", tier));
	}
	fclose(m);
	return vg_load_answer(text, json_pack("{s:s,s:o}", "path", u->path,
					      "properties", props), reply, data);
}

/* A unit's verdicts: at the end of the run, or when it is unloaded (what
 * it saw until then); a violation among them counted. */
static void unit_final(struct vg_load *l, struct vg_loaded *u)
{
	char label[PATH_MAX + 32];

	snprintf(label, sizeof(label), "loaded from %s: ", u->path);
	if (vg_load_host_part_final(u->run, label))
		l->violated = true;
}

int vg_unload_cmd(struct vg_run *ss, json_t *args, char **reply,
		  json_t **data, struct vg_err *e)
{
	const char *name = json_string_value(json_array_get(args, 0));
	struct vg_run *own = name ? vg_load_owner(ss, name) : NULL;
	struct vg_load *l = state(ss);
	const struct vg_spec *sp;
	char *text = NULL;
	size_t tlen = 0;
	json_t *props;
	struct vg_loaded *u;
	FILE *m;
	int k = 0;

	if (!name)
		return vg_errf(e, "usage: unload PROPERTY");
	if (!own)
		return vg_errf(e, "no property %s", name);
	if (own == ss)		/* given when the session started */
		return vg_unload_own(ss, name, reply, data, e);
	u = unit_of(ss, own, &k);
	sp = vg_run_spec(own);
	/* what it had to say comes first: its last records, a violation */
	vg_load_drain(ss);
	if (vg_load_host_part_violated(own))
		l->violated = true;
	vg_load_host_forget_part(ss, own);
	props = json_array();
	if (!(m = open_memstream(&text, &tlen))) {
		json_decref(props);
		return vg_errf(e, "out of memory");
	}
	for (int i = 0; i < sp->nprops; i++) {
		fprintf(m, "unloaded %s%s%s, its probes detached and its slices freed\n",
			sp->props[i].name,
			sp->nprops > 1 ? " (loaded together from " : "",
			sp->nprops > 1 ? u->path : "");
		json_array_append_new(props, json_string(sp->props[i].name));
	}
	fclose(m);
	for (int i = 0; i < sp->nprops; i++)
		fprintf(stderr, "vigil: unloaded %s\n", sp->props[i].name);
	unit_final(l, u);	/* its verdicts at the end */
	memmove(l->u + k, l->u + k + 1, sizeof(l->u[0]) * (size_t)(l->n - k - 1));
	l->n--;
	unit_free(u);
	return vg_load_answer(text, json_pack("{s:o}", "properties", props),
			      reply, data);
}

struct vg_loaded *vg_loaded_at(const struct vg_run *ss, int k)
{
	struct vg_load *l = state(ss);

	return l && k >= 0 && k < l->n ? l->u[k] : NULL;
}

struct vg_run *vg_load_unit(const struct vg_run *ss, int i)
{
	struct vg_loaded *u = vg_loaded_at(ss, i);

	return u ? u->run : NULL;
}

struct vg_run *vg_loaded_run(const struct vg_loaded *u)
{
	return u->run;
}

struct vg_run *vg_load_owner(struct vg_run *ss, const char *name)
{
	struct vg_run *s = ss;

	for (int k = 0; s && name; s = vg_load_unit(ss, k++)) {
		const struct vg_spec *sp = vg_run_spec(s);

		for (int i = 0; i < sp->nprops; i++)
			if (!strcmp(sp->props[i].name, name) &&
			    !vg_run_prop_unloaded(s, i))
				return s;
	}
	return NULL;
}

const bool *vg_load_gone(const struct vg_run *ss)
{
	struct vg_load *l = state(ss);

	return l && l->any_gone ? l->gone : NULL;
}

int vg_load_set_gone(struct vg_run *ss, int prop, bool gone)
{
	struct vg_load *l = state_made(ss);
	int nprops = vg_run_spec(ss)->nprops;

	if (!l || (!l->gone &&
		   !(l->gone = calloc((size_t)nprops + 1, sizeof(bool)))))
		return -1;
	l->gone[prop] = gone;
	l->any_gone = false;
	for (int i = 0; i < nprops; i++)
		l->any_gone |= l->gone[i];
	return 0;
}

const char *vg_load_path(const struct vg_run *u)
{
	return vg_load_host_part_path(u);
}

char *const *vg_load_defs(const struct vg_loaded *u, int *n)
{
	*n = u->ndefs;
	return u->defs;
}

char *const *vg_load_reacts(const struct vg_loaded *u, int *n)
{
	*n = u->nreacts;
	return u->reacts;
}

struct vg_loaded *vg_load_unit_open(struct vg_run *ss, const char *path,
				    json_t *args, struct vg_err *e)
{
	struct vg_loaded *u = calloc(1, sizeof(*u));

	if (!u) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	snprintf(u->path, sizeof(u->path), "%s", path);
	if (unit_open(ss, u, args, e)) {
		unit_free(u);
		return NULL;
	}
	return u;
}

void vg_load_unit_free(struct vg_loaded *u)
{
	unit_free(u);	/* NULL: nothing */
}

int vg_load_units_reset(struct vg_run *ss, bool room, struct vg_err *e)
{
	struct vg_load *l = room ? state_made(ss) : state(ss);

	if (room && !l)
		return vg_errf(e, "out of memory");
	if (!l)
		return 0;
	for (int k = 0; k < l->n; k++) {
		vg_load_host_forget_part(ss, l->u[k]->run);
		unit_free(l->u[k]);
	}
	l->n = 0;
	return 0;
}

void vg_load_unit_add(struct vg_run *ss, struct vg_loaded *u)
{
	struct vg_load *l = state(ss);

	l->u[l->n++] = u;
	watch_unit(l, u);
}

void vg_load_drain(struct vg_run *ss)
{
	struct vg_run *s;

	for (int k = 0; (s = vg_load_unit(ss, k)); k++)
		vg_load_drain_unit(ss, s);
}

void vg_load_drain_unit(struct vg_run *ss, struct vg_run *u)
{
	vg_load_host_drain_part(ss, u);
	if (vg_load_host_part_violated(u))
		state(ss)->violated = true;
}

struct vg_scenario *vg_load_stopped(struct vg_run *ss)
{
	struct vg_load_host_how how;
	struct vg_scenario *sc;
	struct vg_run *s;

	vg_load_host_how(ss, &how);
	if (how.watch)	/* each process's stop is its own */
		return NULL;
	for (int k = 0; (s = vg_load_unit(ss, k)); k++)
		if ((sc = vg_load_host_part_stopped(s)))
			return sc;
	return NULL;
}

bool vg_load_violated(const struct vg_run *ss)
{
	struct vg_load *l = state(ss);

	return l && l->violated;
}

void vg_load_suspend(struct vg_run *ss)
{
	struct vg_run *s;

	for (int k = 0; (s = vg_load_unit(ss, k)); k++)
		vg_probe_suspend(vg_run_probe(s));
	vg_load_drain(ss);
}

int vg_load_resume(struct vg_run *ss, struct vg_err *e)
{
	struct vg_run *s;
	int rc = 0;

	for (int k = 0; (s = vg_load_unit(ss, k)); k++)
		if (vg_probe_resume(vg_run_probe(s), e))
			rc = -1;
	return rc;
}

void vg_load_final(struct vg_run *ss)
{
	struct vg_loaded *u;

	for (int k = 0; (u = vg_loaded_at(ss, k)); k++)
		unit_final(state(ss), u);	/* its verdicts at the end */
}

void vg_load_free(struct vg_run *ss)
{
	struct vg_load **slot = vg_load_host_state(ss);
	struct vg_load *l = *slot;

	if (!l)
		return;
	for (int k = 0; k < l->n; k++)
		unit_free(l->u[k]);
	free(l->gone);
	free(l);
	*slot = NULL;
}

/* `status`: the units' properties after the session's own, each unit
 * with its file, its probes and its events; the totals count them all. */
json_t *vg_load_status(struct vg_run *ss, json_t *r)
{
	json_t *d = json_object_get(r, "data");
	const char *t = json_string_value(json_object_get(r, "text"));
	struct vg_run *s;
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

		r2 = vg_load_host_part_status(s);
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
json_t *vg_load_probes(struct vg_run *ss, json_t *r)
{
	json_t *arr = json_object_get(json_object_get(r, "data"), "probes");
	const char *t = json_string_value(json_object_get(r, "text"));
	struct vg_run *s;
	char *text = NULL;
	size_t tlen = 0;
	FILE *m;

	if (!arr || !t || !vg_load_unit(ss, 0) ||
	    !(m = open_memstream(&text, &tlen)))
		return r;
	fputs(t, m);
	for (int k = 0; (s = vg_load_unit(ss, k)); k++) {
		json_t *r2 = vg_load_host_part_probes(s), *v;
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
