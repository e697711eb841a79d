#include "check.h"

#include <stdio.h>
#include <stdlib.h>

#include "monitor/monitor.h"
#include "report/dot.h"
#include "report/report.h"
#include "trace/trace.h"

#define CHECK_BATCH 256

struct check {
	const struct vg_spec *spec;
	struct vg_report *report;
	bool violated;
};

/* Offline there is no process to stop or kill: violations are reported
 * and `log` reactions printed; the other actions are live-only. */
static void on_transition(void *ctx, const struct vg_slice_view *s, int from,
			  int to, const struct vg_mon_event *ev)
{
	struct check *c = ctx;
	const struct vg_property *p = &c->spec->props[s->prop];

	if (p->states[to].kind == VG_STATE_VIOLATION && from != to) {
		c->violated = true;
		vg_report_violation(c->report, s, from, ev, false);
	}
	for (int r = 0; r < p->nreactions; r++) {
		const struct vg_reaction *re = &p->reactions[r];

		if (!(re->on_enter ? re->state == to : re->state == from))
			continue;
		for (int a = 0; a < re->nactions; a++)
			if (re->actions[a].kind == VG_ACT_LOG)
				vg_report_log(c->report, s, ev,
					      re->actions[a].arg);
	}
}

/* A trace whose lines name events the spec does not use is fine (they are
 * skipped), and said so on stderr; one in which no line names any is a
 * mistake (the wrong file, or a spec of function events given a CSV):
 * an error, exit status 2. */
static int skipped_lines(const struct vg_spec *spec, const struct vg_trace *t,
			 const char *path, uint64_t events, struct vg_err *e)
{
	uint64_t n = vg_trace_skipped(t), line;
	const char *first = vg_trace_first_skipped(t, &line);
	bool declares = false;
	char where[128] = "";

	if (!n)
		return 0;
	if (first)
		snprintf(where, sizeof(where), " (line %llu: '%s')",
			 (unsigned long long)line, first);
	if (events) {
		fprintf(stderr, "vigil: trace: %llu %s named no event of the spec, skipped%s\n",
			(unsigned long long)n,
			vg_trace_is_csv(t) ? (n == 1 ? "line" : "lines")
					   : (n == 1 ? "record" : "records"),
			where);
		return 0;
	}
	if (!vg_trace_is_csv(t))
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s: none of its %llu records is an event the spec uses, expected a recording of a run of these properties",
				    path, (unsigned long long)n);
	for (int i = 0; i < spec->nevents; i++)
		declares |= spec->events[i].kind == VG_EV_NAMED;
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "%s: none of its %llu lines names an event of the spec%s, expected 'name,value,...' lines with a name the spec declares (`event name(...)`)%s",
			    path, (unsigned long long)n, where,
			    declares ? "" : "; the spec declares none: a spec of function calls checks a recording (vigil run --record FILE)");
}

int vg_check_trace(struct vg_spec *spec, const char *trace_path,
		   const char *json_path, struct vg_err *e)
{
	struct check c = { .spec = spec };
	struct vg_monitor_hooks hooks = { .ctx = &c,
					  .transition = on_transition };
	struct vg_monitor_opts mo = { 0 };
	struct vg_run_stats st = { 0 };
	struct vg_monitor *m = NULL;
	struct vg_trace *t = NULL;
	struct vg_mon_event *batch = malloc(CHECK_BATCH * sizeof(*batch));
	int rc = -1, r = 0;

	if (!batch) {
		vg_errf(e, "out of memory");
		return -1;
	}
	st.hits = calloc(spec->nevents + 1, sizeof(uint64_t));
	st.lost_per_event = calloc(spec->nevents + 1, sizeof(uint64_t));
	if (!st.hits || !st.lost_per_event) {
		vg_errf(e, "out of memory");
		goto out;
	}
	c.report = vg_report_new(spec, stderr, json_path, e);
	if (!c.report)
		goto out;
	m = vg_monitor_new(spec, &mo, &hooks, e);
	if (!m)
		goto out;
	t = vg_trace_open(spec, trace_path, e);
	if (!t)
		goto out;
	/* in batches: the monitor overlaps the cache misses of the slices
	 * of a batch (vg_monitor_events), several times faster on big runs */
	for (;;) {
		size_t n = 0;

		while (n < CHECK_BATCH && (r = vg_trace_next(t, &batch[n], e)) == 1) {
			st.hits[batch[n].event]++;
			n++;
		}
		st.events += n;
		st.records += n;
		if (n && vg_monitor_events(m, batch, n, e))
			goto out;
		if (r != 1)
			break;
	}
	if (r < 0 || skipped_lines(spec, t, trace_path, st.events, e))
		goto out;
	vg_report_final(c.report, m, 0);
	vg_report_stats(c.report, m, &st);
	/* a verdict at the end is an error as a violation is */
	rc = c.violated || vg_report_errors(c.report) ? VG_EXIT_VIOLATION
						     : VG_EXIT_OK;
out:
	vg_trace_close(t);
	vg_monitor_free(m);
	vg_report_free(c.report);
	free(batch);
	free(st.hits);
	free(st.lost_per_event);
	return rc;
}

struct marks {
	const struct vg_spec *spec;
	uint8_t *reached;
	uint64_t *ended;
};

static void mark_transition(void *ctx, const struct vg_slice_view *s,
			    int from, int to, const struct vg_mon_event *ev)
{
	struct marks *mk = ctx;

	mk->reached[vg_dot_index(mk->spec, s->prop, to)] = 1;
}

static void mark_end(void *ctx, const struct vg_slice_view *s)
{
	struct marks *mk = ctx;

	mk->ended[vg_dot_index(mk->spec, s->prop, s->state)]++;
}

int vg_check_marks(struct vg_spec *spec, const char *trace_path,
		   uint8_t *reached, uint64_t *ended, struct vg_err *e)
{
	struct marks mk = { spec, reached, ended };
	struct vg_monitor_hooks hooks = { .ctx = &mk,
					  .transition = mark_transition };
	struct vg_monitor_opts mo = { 0 };
	struct vg_monitor *m;
	struct vg_trace *t;
	struct vg_mon_event ev;
	int r;

	m = vg_monitor_new(spec, &mo, &hooks, e);
	if (!m)
		return -1;
	t = vg_trace_open(spec, trace_path, e);
	if (!t) {
		vg_monitor_free(m);
		return -1;
	}
	for (int i = 0; i < spec->nprops; i++)
		reached[vg_dot_index(spec, i, 0)] = 1;
	while ((r = vg_trace_next(t, &ev, e)) == 1)
		if (vg_monitor_event(m, &ev, e)) {
			r = -1;
			break;
		}
	if (r == 0)
		vg_monitor_foreach(m, mark_end, &mk);
	vg_trace_close(t);
	vg_monitor_free(m);
	return r;
}
