/* Text and JSON-lines reports. */
#include "report.h"
#include "vigil_event.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report/evidence.h"
#include "report/memrange.h"
#include "report/report_internal.h"
#include "report/names.h"
#include "util/color.h"
#include "util/json.h"
#include "util/rundir.h"


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

void vg_rep_json_process(struct vg_report *r, FILE *out, uint32_t pid)
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

const char *vg_rep_verdict_of(const struct vg_property *p, int state,
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

void vg_rep_text_slice(struct vg_report *r, const struct vg_slice_view *s)
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
void vg_rep_json_verdict(struct vg_report *r, FILE *out,
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
	struct vg_memrange m;

	vg_rep_json_verdict(r, out, s, "violation");
	fputs(",\"from\":", out);
	vg_json_str(out, p->states[from].name);
	fputc(',', out);
	vg_event_json(r->spec, out, ev);
	if (vg_memrange_of(r->spec, s, &m)) {
		fputs(",\"range\":", out);
		vg_memrange_json(&m, out);
	}
	if (r->evidence) {
		fputs(",\"stack\":", out);
		vg_evidence_stack_json(r->evidence, ev, out);
		fputs(",\"evidence\":", out);
		vg_evidence_json(r->evidence, s, out);
	}
	vg_rep_json_process(r, out, ev->pid);
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

/* A report of several lines goes out in one write(2), so that what the
 * target prints meanwhile (on the same terminal or file, and vigil's
 * stderr is unbuffered) lands before or after it, never inside: between
 * begin and end, r->text is a memory stream. Without memory, the lines
 * go out as they come. */
static void block_begin(struct vg_report *r)
{
	FILE *m;

	if (r->block_out || !(m = open_memstream(&r->block, &r->block_len)))
		return;
	r->block_out = r->text;
	r->text = m;
}

static void block_end(struct vg_report *r)
{
	if (!r->block_out)
		return;
	fclose(r->text);
	r->text = r->block_out;
	r->block_out = NULL;
	if (r->block) {
		fwrite(r->block, 1, r->block_len, r->text);
		free(r->block);
		r->block = NULL;
	}
	fflush(r->text);
}

void vg_report_violation(struct vg_report *r, const struct vg_slice_view *s,
			 int from, const struct vg_mon_event *ev, bool stopped)
{
	const struct vg_property *p = &r->spec->props[s->prop];
	struct vg_memrange m;
	char range[512];

	r->violations++;
	r->errors++;
	/* a property about objects names its pointers as the objects
	 * they are in (text, evidence, JSON alike) */
	vg_names_objects(vg_property_mem_pred(p, NULL) >= 0);
	r->entered[r->base[s->prop] + s->state]++;
	block_begin(r);
	fprintf(r->text, "vigil: %sVIOLATION%s of %s", vg_color(VG_COLOR_RED),
		vg_color(VG_COLOR_END), p->name);
	if (p->description && *p->description)
		fprintf(r->text, " (\"%s\")", p->description);
	fprintf(r->text, "\n  slice  ");
	vg_rep_text_slice(r, s);
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
	if (vg_memrange_of(r->spec, s, &m)) {
		vg_memrange_text(&m, range, sizeof(range));
		fprintf(r->text, "  range  %s\n", range);
	}
	if (s->inconclusive)
		fprintf(r->text, "  note   this slice may have missed events (lost records, a refused slice or watchpoint, a function not probed on this machine): the violation may not be real\n");
	if (stopped)
		fprintf(r->text, "  target pid %u is %s\n", ev->pid,
			r->stop_note[0] ? r->stop_note
					: "stopped at this event");

	if (r->evidence)
		vg_evidence_text(r->evidence, s, r->text);
	block_end(r);
	if (r->json) {
		json_violation(r, r->json, s, from, ev, stopped);
		fflush(r->json);
	}
	/* the one gdb will see: the stop, or else the first */
	if (ev->pid && (stopped || r->violations == 1))
		violation_file(r, s, from, ev, stopped);
	r->stop_note[0] = 0;
	vg_names_objects(false);
}

/* a note for the next violation, NULL: none. The stop note is set and
 * cleared around every kernel-tier step: no snprintf for none */
static void set_note(char *buf, size_t len, const char *note)
{
	if (note)
		snprintf(buf, len, "%s", note);
	else
		buf[0] = 0;
}

void vg_report_stop_note(struct vg_report *r, const char *note)
{
	set_note(r->stop_note, sizeof(r->stop_note), note);
}

void vg_report_fault_note(struct vg_report *r, const char *note)
{
	set_note(r->fault_note, sizeof(r->fault_note), note);
}

void vg_report_backtrace(struct vg_report *r, const struct vg_slice_view *s,
			 const struct vg_mon_event *ev)
{
	const struct vg_property *p = &r->spec->props[s->prop];

	block_begin(r);
	fprintf(r->text, "vigil: %s: backtrace of tid %u at ", p->name, ev->tid);
	vg_event_text(r->spec, r->text, ev);
	fputc('\n', r->text);
	if (!r->evidence ||
	    !vg_evidence_stack_text(r->evidence, ev, r->text, "    "))
		fprintf(r->text, "    (no user stack was captured for this event)\n");
	block_end(r);
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
