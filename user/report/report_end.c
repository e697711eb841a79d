/* The run's end in the reports (user/report/report.h): one verdict per
 * live slice, the stats, the ERROR SUMMARY by kind, as memcheck ends. */
#include "report_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/evidence.h"
#include "util/json.h"

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
	const char *v = vg_rep_verdict_of(p, s->state, s->inconclusive);
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
			vg_rep_text_slice(r, s);
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
	vg_rep_json_verdict(r, r->json, s, v);
	if (lk.kind) {
		fputs(",\"leak\":", r->json);
		vg_json_str(r->json, lk.kind);
	}
	if (f->pid) {	/* whose (--follow-fork, vigil watch) */
		fprintf(r->json, ",\"pid\":%u", f->pid);
		vg_rep_json_process(r, r->json, f->pid);
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
	/* a --json run writes a line per slice here, some fifteen stdio
	 * calls each: the stream's lock taken once for them all, not once
	 * a call (the lock is recursive: the calls then only check it) */
	if (r->json)
		flockfile(r->json);
	vg_monitor_foreach(m, final_one, &f);
	if (r->json)
		funlockfile(r->json);
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
		uint64_t unk = vg_monitor_mem_unknown(m, i);

		if (!unk || (only >= 0 && i != only) ||
		    (only < 0 && vg_monitor_prop_disabled(m, i)))
			continue;
		if (pid)
			snprintf(who, sizeof(who), "pid %u: ", pid);
		fprintf(r->text, "vigil: %s%s: %" PRIu64 " event%s not checked: a memory predicate was unknown (memory the object map does not know: a stack, a mapping of the program's own, a block past --max-objects)\n",
			who, r->spec->props[i].name, unk,
			unk == 1 ? "" : "s");
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
/* what a summary counts, of property only (or all, -1): errors (entered
 * during the run, ended at exit) and inconclusive slices */
static void count(const struct vg_report *r, int only, uint64_t *total,
		  uint64_t *unsure)
{
	*total = *unsure = 0;
	for (int i = 0; i < r->spec->nprops; i++)
		for (int s = 0; (only < 0 || i == only) &&
				s < r->spec->props[i].nstates; s++) {
			*total += r->entered[r->base[i] + s] +
				  r->ended[r->base[i] + s];
			*unsure += r->unsure[r->base[i] + s];
		}
}

static void report_summary(struct vg_report *r, const char *label, int only)
{
	const struct vg_spec *spec = r->spec;
	uint64_t total, unsure;
	bool first = true;

	count(r, only, &total, &unsure);
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
		if (spec->events[i].maps_sync)	/* vigil's own probe */
			continue;
		else if (spec->events[i].kind == VG_EV_TIMEOUT)	/* no probe */
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
	for (int i = 0, n = 0; st->hits && i < spec->nevents; i++) {
		if (spec->events[i].maps_sync)	/* vigil's own probe */
			continue;
		fprintf(r->json, "%s{\"kind\":", n++ ? "," : "");
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

uint64_t vg_report_inconclusive(const struct vg_report *r)
{
	uint64_t total, unsure;

	count(r, -1, &total, &unsure);
	return unsure;
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
