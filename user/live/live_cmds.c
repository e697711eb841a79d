/* The control channel's commands that read or change the monitor: status,
 * slices, show, set, probes (live.c dispatches; graph is in
 * live_graph.c, checkpoints in ckpt/ckpt_ctl.c). Each answers with a text for people and the same as
 * "data" for programs. */
#include "live_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor.h"
#include "probe/probe.h"
#include "report/dot.h"
#include "report/evidence.h"
#include "report/report.h"
#include "spec/spec.h"

#define VG_LIVE_SLICES_MAX 1000	/* listed by `slices`; then a count */

void vg_live_slice_name(const struct vg_run *r, const struct vg_slice_view *s,
			char *out, size_t len)
{
	vg_slice_text(vg_run_spec(r), s, ",", out, len);
	if (!out[0])
		snprintf(out, len, "(the one instance)");
}

static json_t *vars_json(const struct vg_run *r,
			 const struct vg_slice_view *s)
{
	const struct vg_spec *spec = vg_run_spec(r);
	const struct vg_property *p = &spec->props[s->prop];
	json_t *o = json_object();

	for (int i = 0; s->vars && i < p->nvars; i++) {
		char v[128];

		vg_format_value(spec, p->vars[i].type, (uint64_t)s->vars[i],
				v, sizeof(v));
		json_object_set_new(o, p->vars[i].name, json_string(v));
	}
	return o;
}

/* --- status --- */

void vg_live_count_slice(void *ctx, const struct vg_slice_view *s)
{
	struct vg_live_counts *c = ctx;

	c->per_state[vg_dot_index(c->spec, s->prop, s->state)]++;
}

/* every process's slices: the target's, --follow-fork's and vigil
 * watch's (vigil watch: only its processes' monitors are fed) */
static uint64_t *state_counts(const struct vg_run *r)
{
	const struct vg_spec *spec = vg_run_spec(r);
	struct vg_live_counts c = { spec, calloc((size_t)vg_dot_nstates(spec) + 1,
					    sizeof(uint64_t)) };

	if (c.per_state)
		vg_run_foreach_slice(r, vg_live_count_slice, &c);
	return c.per_state;
}

json_t *vg_live_status(struct vg_run *r)
{
	const struct vg_spec *spec = vg_run_spec(r);
	struct vg_monitor *mon = vg_live_monitor(r);
	struct vg_probe *probe = vg_run_probe(r);
	uint64_t *cnt = state_counts(r), events, lost;
	struct vg_run_counts rc;
	json_t *props = json_array(), *d;
	char *text = NULL;
	size_t tlen = 0;
	int attached, total;
	FILE *m;

	if (!cnt || !(m = open_memstream(&text, &tlen))) {
		free(cnt);
		json_decref(props);
		return vg_live_reply(false, "out of memory", NULL);
	}
	vg_run_counts(r, &rc);
	events = rc.events;
	lost = rc.lost;
	attached = rc.probes_attached;
	total = rc.probes_planned;
	fprintf(m, "pid %d: %" PRIu64 " events, %" PRIu64 " lost, probes %d/%d attached",
		vg_run_pid(r), events, lost, attached, total);
	if (vg_probe_idle_sites(probe))	/* probe_unload.c says why */
		fprintf(m, " (%d of them idle: only unloaded properties used them)",
			vg_probe_idle_sites(probe));
	fputc('\n', m);
	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *p = &spec->props[i];
		bool kernel = vg_run_prop_kernel(r, i);
		json_t *states;

		if (vg_run_prop_unloaded(r, i))
			continue;	/* vigil unload */
		states = json_object();

		fprintf(m, "%s (%s tier)%s\n", p->name,
			kernel ? "kernel" : "user",
			vg_monitor_prop_inconclusive(mon, i)
				? ", inconclusive: it may have missed events" : "");
		for (int s = 0; s < p->nstates; s++) {
			uint64_t n = cnt[vg_dot_index(spec, i, s)];

			json_object_set_new(states, p->states[s].name,
					    json_integer((json_int_t)n));
			fprintf(m, "  %-20s %" PRIu64 " slices\n",
				p->states[s].name, n);
		}
		json_array_append_new(props, json_pack("{s:s,s:s,s:o,s:b}",
			"name", p->name, "tier", kernel ? "kernel" : "user",
			"states", states, "inconclusive",
			vg_monitor_prop_inconclusive(mon, i)));
	}
	{
		json_t *per = json_array();

		for (int i = 0; i < spec->nevents; i++) {
			uint64_t h, l;

			if (spec->events[i].maps_sync)	/* vigil's own */
				continue;
			vg_probe_counts(probe, i, &h, &l);
			json_array_append_new(per, json_pack("{s:s,s:s,s:I,s:I}",
				"kind", vg_event_kind_name(spec->events[i].kind),
				"name", spec->events[i].name ? spec->events[i].name : "",
				"hits", (json_int_t)h, "lost", (json_int_t)l));
		}
		fclose(m);
		d = json_pack("{s:i,s:I,s:I,s:i,s:i,s:o,s:o}", "pid", vg_run_pid(r),
			      "events", (json_int_t)events, "lost",
			      (json_int_t)lost, "probes_attached", attached,
			      "probes", total, "properties", props, "per_event",
			      per);
		json_object_set_new(d, "probes_idle",
				    json_integer(vg_probe_idle_sites(probe)));
	}
	free(cnt);
	{
		json_t *reply = vg_live_reply(true, text, d);

		free(text);
		return reply;
	}
}

/* --- slices, show, set --- */

struct find_ctx {
	struct vg_run *r;
	int prop, state;	/* state -1: any */
	const char *name;	/* `show`/`set`: this slice only */
	FILE *text;
	json_t *arr;
	int n;
	/* the slice found by name, copied out of the view */
	bool found;
	uint32_t mask;
	uint64_t params[VG_MAX_PARAMS];
	int fstate;
	int64_t vars[64];
	bool novars;	/* a slice in a violation state keeps none */
};

static void visit(void *ctx, const struct vg_slice_view *s)
{
	struct find_ctx *f = ctx;
	const struct vg_property *p = &vg_run_spec(f->r)->props[s->prop];
	char name[512];

	if (s->prop != f->prop || (f->state >= 0 && s->state != f->state))
		return;
	vg_live_slice_name(f->r, s, name, sizeof(name));
	if (f->name) {
		if (f->found || strcmp(name, f->name))
			return;
		f->found = true;
		f->mask = s->mask;
		memcpy(f->params, s->params, sizeof(f->params));
		f->fstate = s->state;
		f->novars = !s->vars && p->nvars;
		for (int i = 0; i < p->nvars && i < 64; i++)
			f->vars[i] = s->vars ? s->vars[i] : p->vars[i].init;
		if (f->text) {
			json_t *v = vars_json(f->r, s);
			char *vs = json_dumps(v, JSON_COMPACT);

			fprintf(f->text, "%s slice %s: state %s, vars %s\n",
				p->name, name, p->states[s->state].name,
				vs ? vs : "{}");
			free(vs);
			json_decref(v);
			/* the target's: the slices are its monitor's */
			vg_evidence_text(vg_run_evidence(f->r, (uint32_t)
							 vg_run_pid(f->r)),
					 s, f->text);
		}
		return;
	}
	if (f->n++ >= VG_LIVE_SLICES_MAX)
		return;
	{
		json_t *v = vars_json(f->r, s);
		char *vs = json_dumps(v, JSON_COMPACT);

		fprintf(f->text, "%-40s %-16s %s%s\n", name,
			p->states[s->state].name, vs ? vs : "{}",
			s->inconclusive ? " (may have missed events)" : "");
		free(vs);
		json_array_append_new(f->arr, json_pack("{s:s,s:s,s:o,s:b}",
			"slice", name, "state", p->states[s->state].name,
			"vars", v, "inconclusive", s->inconclusive));
	}
}

static json_t *prop_arg(struct vg_run *r, json_t *args, int *prop,
			const char *usage)
{
	const char *pn = json_string_value(json_array_get(args, 0));
	char msg[512];

	if (!pn) {
		snprintf(msg, sizeof(msg), "usage: %s", usage);
		return vg_live_reply(false, msg, NULL);
	}
	if ((*prop = vg_live_prop(r, pn)) < 0) {
		snprintf(msg, sizeof(msg), "no property %s", pn);
		return vg_live_reply(false, msg, NULL);
	}
	return NULL;
}

json_t *vg_live_slices(struct vg_run *run, json_t *args)
{
	struct find_ctx f = { .r = run, .state = -1 };
	const char *sn = json_string_value(json_array_get(args, 1));
	char *text = NULL;
	size_t tlen = 0;
	json_t *r = prop_arg(run, args, &f.prop, "slices PROPERTY [STATE]");

	if (r)
		return r;
	if (sn && (f.state = vg_live_state(run, f.prop, sn)) < 0)
		return vg_live_reply(false, "no such state", NULL);
	if (!(f.text = open_memstream(&text, &tlen)))
		return vg_live_reply(false, "out of memory", NULL);
	f.arr = json_array();
	vg_monitor_foreach(vg_live_monitor(run), visit, &f);
	if (f.n > VG_LIVE_SLICES_MAX)
		fprintf(f.text, "... %d more\n", f.n - VG_LIVE_SLICES_MAX);
	if (!f.n)
		fprintf(f.text, "no live slice%s\n", sn ? " in that state" : "");
	fclose(f.text);
	r = vg_live_reply(true, text, json_pack("{s:o,s:i}", "slices", f.arr,
						"count", f.n));
	free(text);
	return r;
}

json_t *vg_live_show(struct vg_run *run, json_t *args)
{
	struct find_ctx f = { .r = run, .state = -1 };
	char *text = NULL;
	size_t tlen = 0;
	json_t *r = prop_arg(run, args, &f.prop, "show PROPERTY SLICE");

	if (r)
		return r;
	if (!(f.name = json_string_value(json_array_get(args, 1))))
		return vg_live_reply(false, "usage: show PROPERTY SLICE (a slice as `slices` names it, e.g. q=0x55d1c0a012a0)", NULL);
	if (!(f.text = open_memstream(&text, &tlen)))
		return vg_live_reply(false, "out of memory", NULL);
	vg_monitor_foreach(vg_live_monitor(run), visit, &f);
	fclose(f.text);
	r = f.found ? vg_live_reply(true, text, NULL)
		    : vg_live_reply(false, "no such live slice", NULL);
	free(text);
	return r;
}

static json_t *errf2(const char *fmt, const char *a, const char *b)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, a, b);
	return vg_live_reply(false, msg, NULL);
}

/* set PROP SLICE VAR=VALUE | state=STATE: Verde's set_env_value and
 * set_current_state. The slice keeps its evidence; the change is not an
 * event and runs no reaction. */
json_t *vg_live_set(struct vg_run *run, json_t *args)
{
	struct find_ctx f = { .r = run, .state = -1 };
	struct vg_monitor *mon = vg_live_monitor(run);
	const char *as = json_string_value(json_array_get(args, 2)), *eq;
	json_t *r = prop_arg(run, args, &f.prop, "set PROPERTY SLICE VAR=VALUE|state=STATE");
	const struct vg_property *p;
	struct vg_err e = { 0 };
	char var[128], *end;

	if (r)
		return r;
	p = &vg_run_spec(run)->props[f.prop];
	f.name = json_string_value(json_array_get(args, 1));
	if (!f.name || !as || !(eq = strchr(as, '=')) || eq == as)
		return vg_live_reply(false, "usage: set PROPERTY SLICE VAR=VALUE|state=STATE", NULL);
	vg_monitor_foreach(mon, visit, &f);
	if (!f.found)
		return vg_live_reply(false, "no such live slice", NULL);
	snprintf(var, sizeof(var), "%.*s", (int)(eq - as), as);
	if (!strcmp(var, "state")) {
		int st = vg_live_state(run, f.prop, eq + 1);

		if (st < 0)
			return errf2("%s has no state %s", p->name, eq + 1);
		f.fstate = st;
	} else {
		int i;
		long long v = strtoll(eq + 1, &end, 0);

		for (i = 0; i < p->nvars && strcmp(p->vars[i].name, var); i++)
			;
		if (i == p->nvars)
			return errf2("%s has no variable %s", p->name, var);
		if (*end || end == eq + 1)
			return vg_live_reply(false, "the value must be an integer", NULL);
		f.vars[i] = v;
	}
	if (vg_monitor_set(mon, f.prop, f.mask, f.params, f.fstate, f.vars, &e) ||
	    (vg_run_prop_kernel(run, f.prop) &&
	     vg_probe_set_kslice(vg_run_probe(run), f.prop, f.params, f.fstate,
				 f.vars, &e)))
		return vg_live_reply(false, e.msg, NULL);
	if (f.novars && !strcmp(var, "state") &&
	    p->states[f.fstate].kind != VG_STATE_VIOLATION) {
		/* out of a violation state, whose slices keep no variables */
		char msg[1024];
		int n = snprintf(msg, sizeof(msg), "set; its variables are at their initial values (a slice keeps none in a violation state): ");

		for (int i = 0; i < p->nvars && n < (int)sizeof(msg) - 64; i++)
			n += snprintf(msg + n, sizeof(msg) - (size_t)n, "%s%s=%lld",
				      i ? " " : "", p->vars[i].name,
				      (long long)f.vars[i]);
		snprintf(msg + n, sizeof(msg) - (size_t)n, "\n");
		return vg_live_reply(true, msg, NULL);
	}
	return vg_live_reply(true, "set\n", NULL);
}

/* probes: where the uprobes trap (file, offset), for gdb's extension,
 * which keeps its own breakpoints off those addresses */
json_t *vg_live_probes(struct vg_run *run)
{
	json_t *arr = json_array(), *r;
	char *text = NULL;
	size_t tlen = 0;
	FILE *m = open_memstream(&text, &tlen);
	const char *path;
	uint64_t off;
	bool ret;
	int k;

	if (!m) {
		json_decref(arr);
		return vg_live_reply(false, "out of memory", NULL);
	}
	for (int i = 0; (k = vg_probe_site(vg_run_probe(run), i, &path, &off, &ret)) >= 0; i++) {
		if (!k)
			continue;
		fprintf(m, "%s+0x%" PRIx64 " (%s)\n", path, off,
			ret ? "return probe, traps at entry" : "entry");
		json_array_append_new(arr, json_pack("{s:s,s:I,s:b}", "path",
			path, "offset", (json_int_t)off, "ret", ret));
	}
	fclose(m);
	r = vg_live_reply(true, text, json_pack("{s:o}", "probes", arr));
	free(text);
	return r;
}
