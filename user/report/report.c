/* Text and JSON-lines reports. */
#include "report.h"
#include "vigil_event.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report/evidence.h"
#include "report/names.h"
#include "util/color.h"
#include "util/json.h"
#include "util/rundir.h"

struct vg_report {
	const struct vg_spec *spec;
	struct vg_evidence *evidence;	/* may be NULL (offline) */
	FILE *text;
	FILE *json;
	uint64_t violations;
	char stop_note[256];	/* for the next stopped violation */
	char fault_note[320];	/* for the next violation */
	/* for the ERROR SUMMARY: per [property][state], flattened at
	 * base[prop], violations entered and slices ending non-accepting
	 * (or inconclusive) at exit */
	int *base;
	uint64_t *entered, *ended, *unsure;
	/* every error a summary counts, kept through an unload's reset of
	 * the arrays above: the exit status says whether there was any */
	uint64_t errors;
	/* how a process is named beyond its pid (vigil watch, containers) */
	vg_proc_namer proc_namer;
	void *proc_ctx;
	/* the leak check's class of a block at exit (vg_report_set_leak_classer) */
	vg_leak_classer leak_classer;
	void *leak_ctx;
	char blind[128];	/* vg_report_set_blind */
};

void vg_report_set_blind(struct vg_report *r, const char *why)
{
	snprintf(r->blind, sizeof(r->blind), "%s", why ? why : "");
}

void vg_report_set_leak_classer(struct vg_report *r, vg_leak_classer fn,
				void *ctx)
{
	r->leak_classer = fn;
	r->leak_ctx = ctx;
}

uint64_t vg_report_errors(const struct vg_report *r)
{
	return r->errors;
}

FILE *vg_report_json(struct vg_report *r)
{
	return r->json;
}

void vg_report_set_proc_namer(struct vg_report *r, vg_proc_namer fn,
			      void *ctx)
{
	r->proc_namer = fn;
	r->proc_ctx = ctx;
}

/* "  process pid 1234 (pid 7 in its pid namespace), cgroup /x" */
static void text_process(struct vg_report *r, uint32_t pid)
{
	struct vg_report_proc pi = { 0 };

	if (!pid || !r->proc_namer || !r->proc_namer(r->proc_ctx, pid, &pi))
		return;
	fprintf(r->text, "  process pid %u", pid);
	if (pi.ns_pid && pi.ns_pid != pid)
		fprintf(r->text, " (pid %u in its pid namespace)", pi.ns_pid);
	if (pi.cgroup && pi.cgroup[0])
		fprintf(r->text, ", cgroup %s", pi.cgroup);
	fputc('\n', r->text);
}

static void json_process(struct vg_report *r, FILE *out, uint32_t pid)
{
	struct vg_report_proc pi = { 0 };

	if (!pid || !r->proc_namer || !r->proc_namer(r->proc_ctx, pid, &pi))
		return;
	fprintf(out, ",\"ns_pid\":%u,\"cgroup\":", pi.ns_pid ? pi.ns_pid : pid);
	vg_json_str(out, pi.cgroup ? pi.cgroup : "");
}

static int summary_new(struct vg_report *r)
{
	int total = 0;

	r->base = calloc(r->spec->nprops + 1, sizeof(int));
	for (int i = 0; r->base && i < r->spec->nprops; i++) {
		r->base[i] = total;
		total += r->spec->props[i].nstates;
	}
	r->entered = calloc(total + 1, sizeof(uint64_t));
	r->ended = calloc(total + 1, sizeof(uint64_t));
	r->unsure = calloc(total + 1, sizeof(uint64_t));
	return r->base && r->entered && r->ended && r->unsure ? 0 : -1;
}

struct vg_report *vg_report_new(const struct vg_spec *spec, FILE *text,
				const char *json_path, struct vg_err *e)
{
	struct vg_report *r = calloc(1, sizeof(*r));

	if (!r) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	r->spec = spec;
	r->text = text;
	if (summary_new(r)) {
		vg_errf(e, "out of memory");
		vg_report_free(r);
		return NULL;
	}
	if (json_path) {
		r->json = strcmp(json_path, "-") ? vg_json_open(json_path, e)
						 : stdout;
		if (!r->json) {
			vg_report_free(r);
			return NULL;
		}
	}
	return r;
}

void vg_report_set_evidence(struct vg_report *r, struct vg_evidence *x)
{
	r->evidence = x;
}

FILE *vg_report_json_file(struct vg_report *r)
{
	return r ? r->json : NULL;
}

void vg_report_free(struct vg_report *r)
{
	if (!r)
		return;
	if (r->json && r->json != stdout)
		fclose(r->json);
	else if (r->json)
		fflush(r->json);
	free(r->base);
	free(r->entered);
	free(r->ended);
	free(r->unsure);
	free(r);
}

static const char *verdict_of(const struct vg_property *p, int state,
			      bool inconclusive)
{
	switch (p->states[state].kind) {
	case VG_STATE_VIOLATION:
		return "violation";
	case VG_STATE_NONACCEPTING:
		return inconclusive ? "inconclusive" : "nonaccepting";
	default:
		return inconclusive ? "inconclusive" : "accepting";
	}
}

static void text_slice(struct vg_report *r, const struct vg_slice_view *s)
{
	const struct vg_property *p = &r->spec->props[s->prop];
	char buf[128];

	if (!p->nparams) {
		fprintf(r->text, "(the one instance)");
		return;
	}
	for (int i = 0, first = 1; i < p->nparams; i++) {
		if (!(s->mask & (1u << i)))
			continue;
		vg_format_value(r->spec, p->param_types[i], s->params[i], buf,
				sizeof(buf));
		fprintf(r->text, "%s%s=%s", first ? "" : " ", p->params[i], buf);
		if (p->param_types[i] != VG_TYPE_STR &&
		    p->param_types[i] != VG_TYPE_BOOL)
			vg_name_text(r->text, s->params[i]);
		first = 0;
	}
}

static void text_vars(struct vg_report *r, const struct vg_slice_view *s)
{
	const struct vg_property *p = &r->spec->props[s->prop];
	char buf[128];

	for (int i = 0, n = 0; s->vars && i < p->nvars; i++) {
		if (p->vars[i].hidden)
			continue;	/* a timeout's deadline: the event says */
		if (p->vars[i].clock)	/* the time of its last reset */
			snprintf(buf, sizeof(buf), "reset@%.6fs",
				 (double)s->vars[i] / 1e9);
		else
			vg_format_value(r->spec, p->vars[i].type,
					(uint64_t)s->vars[i], buf, sizeof(buf));
		fprintf(r->text, "%s%s=%s", n++ ? " " : "", p->vars[i].name, buf);
		if (p->vars[i].type == VG_TYPE_PTR && !p->vars[i].clock)
			vg_name_text(r->text, (uint64_t)s->vars[i]);
	}
}


static void json_slice(struct vg_report *r, FILE *out,
		       const struct vg_slice_view *s)
{
	const struct vg_property *p = &r->spec->props[s->prop];
	char buf[128];
	int first = 1;

	fputs("\"slice\":{", out);
	for (int i = 0; i < p->nparams; i++) {
		if (!(s->mask & (1u << i)))
			continue;
		vg_format_value(r->spec, p->param_types[i], s->params[i], buf,
				sizeof(buf));
		fprintf(out, "%s", first ? "" : ",");
		vg_json_str(out, p->params[i]);
		fputc(':', out);
		vg_json_value(out, p->param_types[i], buf);
		first = 0;
	}
	fputs("},\"vars\":{", out);
	for (int i = 0, n = 0; s->vars && i < p->nvars; i++) {
		if (p->vars[i].hidden)
			continue;
		vg_format_value(r->spec, p->vars[i].type, (uint64_t)s->vars[i],
				buf, sizeof(buf));
		fprintf(out, "%s", n++ ? "," : "");
		vg_json_str(out, p->vars[i].name);
		fputc(':', out);
		vg_json_value(out, p->vars[i].type, buf);
	}
	fputc('}', out);
	{
		struct vg_jnames j = { out, 0 };

		for (int i = 0; i < p->nparams; i++)
			if (s->mask >> i & 1 &&
			    p->param_types[i] != VG_TYPE_STR &&
			    p->param_types[i] != VG_TYPE_BOOL)
				vg_name_json(&j, p->params[i], s->params[i]);
		for (int i = 0; s->vars && i < p->nvars; i++)
			if (p->vars[i].type == VG_TYPE_PTR)
				vg_name_json(&j, p->vars[i].name,
					  (uint64_t)s->vars[i]);
		vg_names_json_end(&j);
	}
}

/* The start of a verdict object, up to and including "verdict". */
static void json_verdict(struct vg_report *r, FILE *out,
			 const struct vg_slice_view *s, const char *verdict)
{
	const struct vg_property *p = &r->spec->props[s->prop];

	fputs("{\"type\":\"verdict\",\"property\":", out);
	vg_json_str(out, p->name);
	fputc(',', out);
	json_slice(r, out, s);
	fputs(",\"state\":", out);
	vg_json_str(out, p->states[s->state].name);
	fputs(",\"verdict\":", out);
	vg_json_str(out, verdict);
}


static void json_violation(struct vg_report *r, FILE *out,
			   const struct vg_slice_view *s, int from,
			   const struct vg_mon_event *ev, bool stopped)
{
	const struct vg_property *p = &r->spec->props[s->prop];

	json_verdict(r, out, s, "violation");
	fputs(",\"from\":", out);
	vg_json_str(out, p->states[from].name);
	fputc(',', out);
	vg_event_json(r->spec, out, ev);
	if (r->evidence) {
		fputs(",\"stack\":", out);
		vg_evidence_stack_json(r->evidence, ev, out);
		fputs(",\"evidence\":", out);
		vg_evidence_json(r->evidence, s, out);
	}
	json_process(r, out, ev->pid);
	fprintf(out, ",\"may_have_missed_events\":%s,\"stopped\":%s",
		s->inconclusive ? "true" : "false",
		stopped ? "true" : "false");
	if (stopped && r->stop_note[0]) {
		fputs(",\"stop_note\":", out);
		vg_json_str(out, r->stop_note);
	}
	if (r->fault_note[0]) {
		fputs(",\"fault\":", out);
		vg_json_str(out, r->fault_note);
	}
	fputs("}\n", out);
}

/* The last violation of the run, for `vigil status` in gdb
 * (scripts/gdb/vigil.py): RUNDIR/violation-PID.json, private to the user. */
static void violation_file(struct vg_report *r, const struct vg_slice_view *s,
			   int from, const struct vg_mon_event *ev,
			   bool stopped)
{
	char dir[PATH_MAX - 64], path[PATH_MAX];
	struct vg_err e;
	FILE *f;

	if (vg_rundir(dir, sizeof(dir), &e))
		return;
	snprintf(path, sizeof(path), "%s/violation-%u.json", dir, ev->pid);
	if (!(f = vg_json_open(path, &e)))
		return;
	json_violation(r, f, s, from, ev, stopped);
	fclose(f);
}

void vg_report_violation(struct vg_report *r, const struct vg_slice_view *s,
			 int from, const struct vg_mon_event *ev, bool stopped)
{
	const struct vg_property *p = &r->spec->props[s->prop];

	r->violations++;
	r->errors++;
	r->entered[r->base[s->prop] + s->state]++;
	fprintf(r->text, "vigil: %sVIOLATION%s of %s", vg_color(VG_COLOR_RED),
		vg_color(VG_COLOR_END), p->name);
	if (p->description && *p->description)
		fprintf(r->text, " (\"%s\")", p->description);
	fprintf(r->text, "\n  slice  ");
	text_slice(r, s);
	fprintf(r->text, "\n  state  %s -> %s (violation)\n  event  ",
		p->states[from].name, p->states[s->state].name);
	vg_event_text(r->spec, r->text, ev);
	if (ev->pid)
		fprintf(r->text, " in tid %u\n", ev->tid);
	else if (r->spec->events[ev->event].kind == VG_EV_TIMEOUT)
		fprintf(r->text, ", the state entered at event %llu of the trace\n",
			(unsigned long long)ev->seq);
	else	/* offline: where in the trace */
		fprintf(r->text, ", event %llu of the trace\n",
			(unsigned long long)ev->seq);
	if (r->fault_note[0])
		fprintf(r->text, "  fault  %s\n", r->fault_note);
	text_process(r, ev->pid);
	if (p->nvars > (p->timed ? 1 : 0)) {	/* the deadline is hidden */
		fprintf(r->text, "  vars   ");
		text_vars(r, s);
		fputc('\n', r->text);
	}
	if (s->inconclusive)
		fprintf(r->text, "  note   this slice may have missed events (lost records, a refused slice or watchpoint): the violation may not be real\n");
	if (stopped)
		fprintf(r->text, "  target pid %u is %s\n", ev->pid,
			r->stop_note[0] ? r->stop_note
					: "stopped at this event");

	if (r->evidence)
		vg_evidence_text(r->evidence, s, r->text);
	fflush(r->text);
	if (r->json) {
		json_violation(r, r->json, s, from, ev, stopped);
		fflush(r->json);
	}
	/* the one gdb will see: the stop, or else the first */
	if (ev->pid && (stopped || r->violations == 1))
		violation_file(r, s, from, ev, stopped);
	r->stop_note[0] = 0;
}

void vg_report_stop_note(struct vg_report *r, const char *note)
{
	snprintf(r->stop_note, sizeof(r->stop_note), "%s", note ? note : "");
}

void vg_report_fault_note(struct vg_report *r, const char *note)
{
	snprintf(r->fault_note, sizeof(r->fault_note), "%s", note ? note : "");
}

void vg_report_backtrace(struct vg_report *r, const struct vg_slice_view *s,
			 const struct vg_mon_event *ev)
{
	const struct vg_property *p = &r->spec->props[s->prop];

	fprintf(r->text, "vigil: %s: backtrace of tid %u at ", p->name, ev->tid);
	vg_event_text(r->spec, r->text, ev);
	fputc('\n', r->text);
	if (!r->evidence ||
	    !vg_evidence_stack_text(r->evidence, ev, r->text, "    "))
		fprintf(r->text, "    (no user stack was captured for this event)\n");
	fflush(r->text);
	if (!r->json || !r->evidence)
		return;
	fputs("{\"type\":\"backtrace\",\"property\":", r->json);
	vg_json_str(r->json, p->name);
	fputc(',', r->json);
	vg_event_json(r->spec, r->json, ev);
	fputs(",\"stack\":", r->json);
	vg_evidence_stack_json(r->evidence, ev, r->json);
	fputs("}\n", r->json);
}

void vg_report_log(struct vg_report *r, const struct vg_slice_view *s,
		   const struct vg_mon_event *ev, const char *fmt)
{
	const struct vg_property *p = &r->spec->props[s->prop];
	char buf[128];

	fprintf(r->text, "vigil: %s: ", p->name);
	for (const char *c = fmt; *c; c++) {
		const char *end = *c == '{' ? strchr(c, '}') : NULL;
		int n = end ? (int)(end - c - 1) : 0;
		bool done = false;

		if (!end) {
			fputc(*c, r->text);
			continue;
		}
		for (int i = 0; i < p->nparams && !done; i++)
			if ((int)strlen(p->params[i]) == n &&
			    !strncmp(c + 1, p->params[i], n)) {
				vg_format_value(r->spec, p->param_types[i],
						s->params[i], buf, sizeof(buf));
				fputs(buf, r->text);
				done = true;
			}
		for (int i = 0; i < p->nvars && s->vars && !done; i++)
			if ((int)strlen(p->vars[i].name) == n &&
			    !strncmp(c + 1, p->vars[i].name, n)) {
				vg_format_value(r->spec, p->vars[i].type,
						s->vars[i], buf, sizeof(buf));
				fputs(buf, r->text);
				done = true;
			}
		if (!done && n == 3 && !strncmp(c + 1, "tid", 3)) {
			fprintf(r->text, "%u", ev->tid);
			done = true;
		}
		if (!done)
			fprintf(r->text, "%.*s", n + 2, c);
		c = end;
	}
	fputc('\n', r->text);
}

struct final_ctx {
	struct vg_report *r;
	int only;		/* one property's verdicts, or -1 */
	int nonaccepting;
	uint64_t *left_out;	/* [prop][kind]: not errors (reachable, libc) */
	uint64_t *per_state;	/* [prop][state] counts, flattened */
	int *base;
	uint32_t pid;		/* a followed or watched process's; 0 */
};

static void final_one(void *ctx, const struct vg_slice_view *s)
{
	struct final_ctx *f = ctx;
	struct vg_report *r = f->r;
	const struct vg_property *p = &r->spec->props[s->prop];
	const char *v = verdict_of(p, s->state, s->inconclusive);
	struct vg_leak_verdict lk = { 0 };

	if (f->only >= 0 && s->prop != f->only)
		return;
	f->per_state[f->base[s->prop] + s->state]++;
	if (p->states[s->state].kind == VG_STATE_VIOLATION)
		return;		/* reported when it happened */
	/* a block the leak check at exit classed (the target's own) */
	if (!f->pid && !s->inconclusive && r->leak_classer &&
	    p->states[s->state].kind == VG_STATE_NONACCEPTING &&
	    r->leak_classer(r->leak_ctx, s, &lk) && !lk.error) {
		v = "accepting";
		f->left_out[s->prop * 2 + !strcmp(lk.kind, "libc")]++;
	}
	if (s->inconclusive)
		r->unsure[r->base[s->prop] + s->state]++;
	else if (strcmp(v, "accepting")) {
		r->ended[r->base[s->prop] + s->state]++;
		r->errors++;
	}
	if (strcmp(v, "accepting")) {
		if (f->nonaccepting < 20) {
			if (f->pid)
				fprintf(r->text, "vigil: pid %u: %s: slice ",
					f->pid, p->name);
			else
				fprintf(r->text, "vigil: %s: slice ", p->name);
			text_slice(r, s);
			fprintf(r->text, " ends %s in state %s", v,
				p->states[s->state].name);
			if (lk.kind)
				fprintf(r->text, ": %s", lk.text);
			fputc('\n', r->text);
			/* how it got there: the allocation of a leak */
			if (r->evidence)
				vg_evidence_text(r->evidence, s, r->text);
		}
		f->nonaccepting++;
	}
	if (!r->json)
		return;
	json_verdict(r, r->json, s, v);
	if (lk.kind) {
		fputs(",\"leak\":", r->json);
		vg_json_str(r->json, lk.kind);
	}
	if (f->pid) {	/* whose (--follow-fork, vigil watch) */
		fprintf(r->json, ",\"pid\":%u", f->pid);
		json_process(r, r->json, f->pid);
	}
	fputs(",\"at\":\"exit\"}\n", r->json);
}

static int report_final(struct vg_report *r, struct vg_monitor *m,
			uint32_t pid, int only)
{
	char who[32] = "";

	struct final_ctx f = { .r = r, .pid = pid, .only = only };
	int total = 0;

	f.base = calloc(r->spec->nprops + 1, sizeof(int));
	for (int i = 0; i < r->spec->nprops; i++) {
		f.base[i] = total;
		total += r->spec->props[i].nstates;
	}
	f.per_state = calloc(total + 1, sizeof(uint64_t));
	f.left_out = calloc((size_t)r->spec->nprops * 2 + 1, sizeof(uint64_t));
	if (!f.base || !f.per_state || !f.left_out) {
		free(f.base);
		free(f.per_state);
		free(f.left_out);
		return -1;
	}
	vg_monitor_foreach(m, final_one, &f);
	if (f.nonaccepting > 20)
		fprintf(r->text, "vigil: ... and %d more slices not accepting\n",
			f.nonaccepting - 20);
	for (int i = 0; i < r->spec->nprops; i++)
		if (f.left_out[i * 2] || f.left_out[i * 2 + 1])
			fprintf(r->text, "vigil: %s: not errors (the leak check's classes): %" PRIu64 " blocks still reachable, %" PRIu64 " of the C library's own\n",
				r->spec->props[i].name, f.left_out[i * 2],
				f.left_out[i * 2 + 1]);
	for (int i = 0; i < r->spec->nprops; i++) {
		uint64_t gone = vg_monitor_inconclusive_gone(m, i);

		if (!gone || (only >= 0 && i != only) ||
		    (only < 0 && vg_monitor_prop_disabled(m, i)))
			continue;
		/* counted with the inconclusive ones, in the initial state */
		r->unsure[r->base[i]] += gone;
		if (pid)
			snprintf(who, sizeof(who), "pid %u: ", pid);
		fprintf(r->text, "vigil: %s%s: %" PRIu64 " slice%s went back to the initial state inconclusive (%s may have been missed)\n",
			who, r->spec->props[i].name, gone,
			gone == 1 ? "" : "s",
			gone == 1 ? "an event" : "events");
	}
	for (int i = 0; i < r->spec->nprops; i++) {
		const struct vg_property *p = &r->spec->props[i];

		/* an unloaded property said its verdicts at its unload */
		if ((only >= 0 && i != only) ||
		    (only < 0 && vg_monitor_prop_disabled(m, i)))
			continue;
		if (pid)
			snprintf(who, sizeof(who), "pid %u: ", pid);
		fprintf(r->text, "vigil: %s%s: live slices by state:", who,
			p->name);
		for (int s = 0; s < p->nstates; s++)
			fprintf(r->text, " %s=%" PRIu64, p->states[s].name,
				f.per_state[f.base[i] + s]);
		fputc('\n', r->text);
	}
	free(f.base);
	free(f.per_state);
	free(f.left_out);
	return f.nonaccepting;
}

int vg_report_final(struct vg_report *r, struct vg_monitor *m, uint32_t pid)
{
	return report_final(r, m, pid, -1);
}

/* The last lines, as memcheck ends with its ERROR SUMMARY: the errors of
 * the run by kind, a kind being a property's state: the violations
 * entered during the run (all of them under --on-violation=continue),
 * then the slices that ended non-accepting at exit (a leak's blocks).
 * Inconclusive slices are counted apart: they are not errors found. */
static void report_summary(struct vg_report *r, const char *label, int only)
{
	const struct vg_spec *spec = r->spec;
	uint64_t total = 0, unsure = 0;
	bool first = true;

	for (int i = 0; i < spec->nprops; i++)
		for (int s = 0; (only < 0 || i == only) &&
				s < spec->props[i].nstates; s++) {
			total += r->entered[r->base[i] + s] +
				 r->ended[r->base[i] + s];
			unsure += r->unsure[r->base[i] + s];
		}
	fprintf(r->text, "vigil: %sERROR SUMMARY: %" PRIu64 " error%s", label, total,
		total == 1 ? "" : "s");
	if (r->json)
		fprintf(r->json, "{\"type\":\"summary\",\"errors\":%" PRIu64
			",\"inconclusive\":%" PRIu64 ",\"kinds\":[", total,
			unsure);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < spec->nprops; i++)
			for (int s = 0; (only < 0 || i == only) &&
					s < spec->props[i].nstates; s++) {
				const struct vg_property *p = &spec->props[i];
				uint64_t n = pass ? r->ended[r->base[i] + s]
						  : r->entered[r->base[i] + s];

				if (!n)
					continue;
				fprintf(r->text, "%s %s.%s=%" PRIu64 "%s",
					first ? ":" : ",", p->name,
					p->states[s].name, n,
					pass ? " (at the end)" : "");
				if (r->json) {
					fprintf(r->json, "%s{\"property\":",
						first ? "" : ",");
					vg_json_str(r->json, p->name);
					fputs(",\"state\":", r->json);
					vg_json_str(r->json, p->states[s].name);
					fprintf(r->json, ",\"count\":%" PRIu64
						",\"at\":\"%s\"}", n,
						pass ? "exit" : "event");
				}
				first = false;
			}
	if (unsure)
		fprintf(r->text, "; %" PRIu64 " slice%s inconclusive", unsure,
			unsure == 1 ? "" : "s");
	if (unsure && r->blind[0])
		fprintf(r->text, " (%s)", r->blind);
	fputc('\n', r->text);
	fflush(r->text);
	if (r->json) {
		fputc(']', r->json);
		if (r->blind[0]) {
			fputs(",\"inconclusive_why\":", r->json);
			vg_json_str(r->json, r->blind);
		}
		fputs("}\n", r->json);
		fflush(r->json);
	}
}

void vg_report_stats(struct vg_report *r, struct vg_monitor *m,
		     const struct vg_run_stats *st)
{
	struct vg_monitor_stats ms;
	const struct vg_spec *spec = r->spec;

	vg_monitor_stats(m, &ms);
	fprintf(r->text,
		"vigil: stats: events=%" PRIu64 " records=%" PRIu64
		" lost=%" PRIu64 " violations=%" PRIu64
		" slices created=%" PRIu64 " freed=%" PRIu64 " live=%" PRIu64,
		st->events, st->records, st->lost, r->violations,
		ms.slices_created,
		ms.slices_freed, ms.slices_live);
	for (int i = 0; st->hits && i < spec->nevents; i++)
		if (spec->events[i].kind == VG_EV_TIMEOUT)	/* no probe */
			fprintf(r->text, " timeouts=%" PRIu64, ms.timeouts);
		else
			fprintf(r->text, " %s%s%s=%" PRIu64,
				vg_event_kind_name(spec->events[i].kind),
				spec->events[i].name[0] ? ":" : "",
				spec->events[i].name, st->hits[i]);
	fputc('\n', r->text);
	if (ms.slices_refused || st->kfull)
		fprintf(r->text,
			"vigil: %" PRIu64 " new slices refused: the slice table was full (--max-slices); the verdicts of the properties involved are inconclusive\n",
			ms.slices_refused + st->kfull);
	if (st->kbusy)
		fprintf(r->text,
			"vigil: %" PRIu64 " kernel-tier events could not lock their slice in time; the verdicts of the properties involved are inconclusive\n",
			st->kbusy);
	if (st->capfaults)
		fprintf(r->text,
			"vigil: %" PRIu64 " reads of target memory (p->field, *p) faulted and read as 0\n",
			st->capfaults);
	if (st->forks || st->execs)
		fprintf(r->text,
			"vigil: the target forked %" PRIu64 " process%s and exec'd %" PRIu64 " program%s\n",
			st->forks, st->forks == 1 ? "" : "es", st->execs,
			st->execs == 1 ? "" : "s");
	if (st->target_exited) {
		if (st->exit_signal)
			fprintf(r->text, "vigil: target killed by signal %d (%s)\n",
				st->exit_signal, strsignal(st->exit_signal));
		else
			fprintf(r->text, "vigil: target exited with status %d\n",
				st->exit_code);
	}
	if (!r->json) {
		report_summary(r, "", -1);
		return;
	}
	fprintf(r->json,
		"{\"type\":\"stats\",\"events\":%" PRIu64
		",\"records\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"violations\":%" PRIu64 ",\"slices_created\":%" PRIu64
		",\"slices_freed\":%" PRIu64 ",\"slices_live\":%" PRIu64
		",\"slices_refused\":%" PRIu64
		",\"kernel_slices_refused\":%" PRIu64
		",\"kernel_lock_timeouts\":%" PRIu64
		",\"memory_read_faults\":%" PRIu64
		",\"forks\":%" PRIu64 ",\"execs\":%" PRIu64 ",\"probes\":[",
		st->events, st->records, st->lost, r->violations,
		ms.slices_created, ms.slices_freed, ms.slices_live,
		ms.slices_refused, st->kfull, st->kbusy, st->capfaults,
		st->forks, st->execs);
	for (int i = 0; st->hits && i < spec->nevents; i++) {
		fprintf(r->json, "%s{\"kind\":", i ? "," : "");
		vg_json_str(r->json, vg_event_kind_name(spec->events[i].kind));
		fputs(",\"name\":", r->json);
		vg_json_str(r->json, spec->events[i].name);
		fprintf(r->json, ",\"hits\":%" PRIu64 ",\"lost\":%" PRIu64 "}",
			st->hits[i], st->lost_per_event[i]);
	}
	fputc(']', r->json);
	if (st->target_exited)
		fprintf(r->json, ",\"exit_code\":%d,\"exit_signal\":%d",
			st->exit_code, st->exit_signal);
	if (r->blind[0]) {	/* what the machine kept vigil from seeing */
		fputs(",\"blind\":", r->json);
		vg_json_str(r->json, r->blind);
	}
	fputs("}\n", r->json);
	fflush(r->json);
	report_summary(r, "", -1);
}

#define VG_PROC_SAID 10	/* forks or execs said as they happen */

void vg_report_process(struct vg_report *r, int what, uint32_t pid,
		       uint32_t child, const char *path, bool same,
		       uint64_t nth)
{
	if (nth > VG_PROC_SAID)
		return;
	if (what == VG_PROC_FORK && same)
		fprintf(r->text, "vigil: pid %u forked pid %u: followed\n", pid,
			child);
	else if (what == VG_PROC_FORK)
		fprintf(r->text, "vigil: target pid %u forked pid %u: not followed, its calls are not monitored\n",
			pid, child);
	else if (same)
		fprintf(r->text, "vigil: target pid %u exec'd %s again: the probes still apply\n",
			pid, path);
	else
		fprintf(r->text, "vigil: target pid %u exec'd %s: the probes on the program it ran no longer fire (those in shared libraries it loads again still do)\n",
			pid, path);
	if (nth == VG_PROC_SAID)
		fprintf(r->text, "vigil: further forks and execs are only counted\n");
	if (r->json) {
		fprintf(r->json, "{\"type\":\"process\",\"what\":\"%s\",\"pid\":%u",
			what == VG_PROC_FORK ? "fork" : "exec", pid);
		if (what == VG_PROC_FORK)
			fprintf(r->json, ",\"child\":%u", child);
		else {
			fputs(",\"path\":", r->json);
			vg_json_str(r->json, path);
		}
		fputs("}\n", r->json);
	}
}

uint64_t vg_report_inconclusive(const struct vg_report *r)
{
	uint64_t n = 0;

	for (int i = 0; i < r->spec->nprops; i++)
		for (int s = 0; s < r->spec->props[i].nstates; s++)
			n += r->unsure[r->base[i] + s];
	return n;
}

void vg_report_summary(struct vg_report *r, const char *label)
{
	report_summary(r, label, -1);
}

void vg_report_final_prop(struct vg_report *r, struct vg_monitor *m,
			  uint32_t pid, int prop)
{
	report_final(r, m, pid, prop);
}

void vg_report_unload(struct vg_report *r, struct vg_monitor *m, int prop,
		      const char *label)
{
	int b = r->base[prop], n = r->spec->props[prop].nstates;

	report_final(r, m, 0, prop);
	report_summary(r, label, prop);
	/* the run's own summary at the end no longer counts it */
	memset(r->entered + b, 0, (size_t)n * sizeof(uint64_t));
	memset(r->ended + b, 0, (size_t)n * sizeof(uint64_t));
	memset(r->unsure + b, 0, (size_t)n * sizeof(uint64_t));
}
