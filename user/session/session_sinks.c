/* --metrics and --journal: the session's side of where operators look.
 * The metrics body is built here, on the session's thread, about once a
 * second (user/metrics/ serves it); verdicts and lifecycle messages go to
 * the operators' log (user/report/oplog.h). */
#include "session_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "act/scenario.h"
#include "live_load.h"
#include "metrics/metrics.h"
#include "monitor/monitor.h"
#include "proc/procinfo.h"
#include "report/oplog.h"
#include "report/report.h"
#include "util/clock.h"

#define METRICS_PERIOD_NS 1000000000ull

struct vg_sinks {
	struct vg_metrics *metrics;
	struct vg_oplog *log;
	uint64_t *violations;	/* [nviol] per property */
	int nviol;
	uint64_t last_ns;
	bool borrowed;		/* a loaded unit's: log is the session's */
};

static const char *unit_of(const struct session *ss)
{
	return ss->o->unit ? ss->o->unit : "";
}

int vg_session_sinks_open(struct session *ss, struct vg_err *e)
{
	const struct vg_session_opts *o = ss->o;
	char pid[24], msg[4400];

	if (!o->metrics_addr && !o->metrics_file && !o->journal)
		return 0;
	if (!(ss->sinks = calloc(1, sizeof(*ss->sinks))))
		return vg_errf(e, "out of memory");
	if (o->metrics_addr) {
		ss->sinks->metrics = vg_metrics_start(o->metrics_addr,
						      o->metrics_port, e);
		if (!ss->sinks->metrics)
			return -1;
		fprintf(stderr, "vigil: metrics at http://%s:%d/metrics\n",
			o->metrics_addr, vg_metrics_port(ss->sinks->metrics));
	}
	if (o->journal) {
		if (!(ss->sinks->log = vg_oplog_open(o->journal_path, 0, e)))
			return -1;
		if (!o->quiet)
			fprintf(stderr, "vigil: verdicts go to %s\n",
				vg_oplog_where(ss->sinks->log));
		snprintf(pid, sizeof(pid), "%d", ss->pid);
		snprintf(msg, sizeof(msg), "monitoring pid %d (%s): %d properties",
			 ss->pid, ss->exe[0] ? ss->exe : "?", ss->spec->nprops);
		vg_oplog_send(ss->sinks->log, 6, msg, "VIGIL_EVENT", "start",
			      "VIGIL_PID", pid, "VIGIL_EXE", ss->exe,
			      "VIGIL_UNIT", unit_of(ss), NULL);
	}
	return 0;
}

int vg_session_sinks_share(struct session *ss, struct session *unit,
			   struct vg_err *e)
{
	if (!ss->sinks)
		return 0;
	if (!(unit->sinks = calloc(1, sizeof(*unit->sinks))))
		return vg_errf(e, "out of memory");
	unit->sinks->log = ss->sinks->log;
	unit->sinks->borrowed = true;
	return 0;
}

static void slice_text(const struct session *ss, const struct vg_slice_view *s,
		       char *buf, size_t len)
{
	const struct vg_property *p = &ss->spec->props[s->prop];
	size_t n = 0;
	char v[128];

	buf[0] = 0;
	for (int i = 0; i < p->nparams && n < len; i++) {
		if (!(s->mask >> i & 1))
			continue;
		vg_format_value(ss->spec, p->param_types[i], s->params[i], v,
				sizeof(v));
		n += snprintf(buf + n, len - n, "%s%s=%s", n ? ", " : "",
			      p->params[i], v);
	}
}

void vg_session_sinks_transition(struct session *ss,
				 const struct vg_slice_view *s, int from,
				 const struct vg_mon_event *ev)
{
	const struct vg_property *p = &ss->spec->props[s->prop];
	struct vg_sinks *k = ss->sinks;
	char slice[512], pid[24], tid[24], nspid[24], *evt = NULL, *msg = NULL;
	struct vg_proc_where w = { 0 };
	struct vg_err we = { 0 };
	size_t n;
	FILE *f;

	if (!k || p->states[s->state].kind != VG_STATE_VIOLATION ||
	    p->states[from].kind == VG_STATE_VIOLATION)
		return;
	if (s->prop >= k->nviol) {	/* vigil load adds properties */
		uint64_t *v = realloc(k->violations,
				      (s->prop + 1) * sizeof(*v));

		if (!v)
			return;
		memset(v + k->nviol, 0, (s->prop + 1 - k->nviol) * sizeof(*v));
		k->violations = v;
		k->nviol = s->prop + 1;
	}
	k->violations[s->prop]++;
	if (!k->log)
		return;
	slice_text(ss, s, slice, sizeof(slice));
	if ((f = open_memstream(&evt, &n))) {
		vg_event_text(ss->spec, f, ev);
		fclose(f);
	}
	snprintf(pid, sizeof(pid), "%u", ev->pid);
	snprintf(tid, sizeof(tid), "%u", ev->tid);
	/* in a container: its pid there and its cgroup (read now: a
	 * process that has exited since has none) */
	if (vg_proc_where((pid_t)ev->pid, &w, &we))
		w.ns_pid = (pid_t)ev->pid;
	snprintf(nspid, sizeof(nspid), "%d", (int)w.ns_pid);
	if (asprintf(&msg, "%s: violation: slice (%s) entered %s from %s at %s in pid %u",
		     p->name, slice, p->states[s->state].name,
		     p->states[from].name, evt ? evt : "?", ev->pid) < 0)
		msg = NULL;
	vg_oplog_send(k->log, 4, msg ? msg : p->name, "VIGIL_EVENT", "violation",
		      "VIGIL_PROPERTY", p->name, "VIGIL_SLICE", slice,
		      "VIGIL_STATE", p->states[s->state].name,
		      "VIGIL_FROM_STATE", p->states[from].name,
		      "VIGIL_AT", evt ? evt : "", "VIGIL_PID", pid,
		      "VIGIL_TID", tid, "VIGIL_NSPID", nspid,
		      "VIGIL_CONTAINER", w.cgroup,
		      "VIGIL_EXE", ss->exe, "VIGIL_UNIT", unit_of(ss),
		      "VIGIL_STOPPED",
		      vg_scenario_target_stopped(ss->sc) ? "1" : "0", NULL);
	free(msg);
	free(evt);
}

struct census {
	const struct vg_spec *spec;
	uint64_t **count;	/* [prop][state] */
};

static void count_slice(void *ctx, const struct vg_slice_view *s)
{
	struct census *c = ctx;

	if (s->prop < c->spec->nprops && c->count[s->prop])
		c->count[s->prop][s->state]++;
}

/* The session's own properties, then each loaded unit's (vigil load;
 * the agent's reload puts a changed spec's there): s from 0, NULL past
 * the last. */
static struct session *part(struct session *ss, int k)
{
	return k ? vg_load_unit(ss, k - 1) : ss;
}

/* One part's vigil_slices samples: its properties not unloaded. */
static void slice_samples(FILE *f, struct session *s, const char *u)
{
	const struct vg_spec *sp = s->spec;
	uint64_t *count[sp->nprops + 1];
	struct census c = { sp, count };

	for (int i = 0; i < sp->nprops; i++)
		count[i] = vg_monitor_prop_disabled(s->mon, i) ? NULL
			   : calloc(sp->props[i].nstates, sizeof(uint64_t));
	if (!s->o->watch_exe)	/* vigil watch: only its processes' */
		vg_monitor_foreach(s->mon, count_slice, &c);
	for (int i = 0; i < s->nkids; i++)
		if (!s->kids[i].gone)
			vg_monitor_foreach(s->kids[i].mon, count_slice, &c);
	for (int i = 0; i < sp->nprops; i++)
		for (int st = 0; count[i] && st < sp->props[i].nstates; st++)
			vg_metrics_sample(f, "vigil_slices", (double)count[i][st],
					  "unit", u, "property",
					  sp->props[i].name, "state",
					  sp->props[i].states[st].name, NULL);
	for (int i = 0; i < sp->nprops; i++)
		free(count[i]);
}

/* The exposition body: what docs/OPERATIONS.md lists. */
static char *metrics_body(struct session *ss, size_t *len)
{
	uint64_t events = 0, lost = 0, rss;
	const char *u = unit_of(ss);
	int on = 0, total = 0, procs = 0;
	struct session *s;
	char *body = NULL;
	double cpu;
	FILE *f;

	if (!(f = open_memstream(&body, len)))
		return NULL;
	for (int k = 0; (s = part(ss, k)); k++) {
		uint64_t ev, lo;
		int a, t;

		vg_session_event_totals(s, &ev, &lo);
		events += ev;
		lost += lo;
		vg_probe_links(s->probe, &a, &t);
		on += a;
		total += t;
	}
	vg_metrics_family(f, "vigil_events_total", "counter",
			  "Events the probes saw.");
	vg_metrics_sample(f, "vigil_events_total", (double)events, "unit", u,
			  NULL);
	vg_metrics_family(f, "vigil_events_lost_total", "counter",
			  "Events lost (ring buffer full); verdicts of the properties concerned are inconclusive.");
	vg_metrics_sample(f, "vigil_events_lost_total", (double)lost, "unit",
			  u, NULL);
	vg_metrics_family(f, "vigil_slices", "gauge",
			  "Live slices per property and state (violation states keep theirs).");
	for (int k = 0; (s = part(ss, k)); k++)
		slice_samples(f, s, u);
	vg_metrics_family(f, "vigil_violations_total", "counter",
			  "Slices that entered a violation state.");
	for (int k = 0; (s = part(ss, k)); k++)
		for (int i = 0; s->sinks && i < s->spec->nprops; i++)
			if (!vg_monitor_prop_disabled(s->mon, i))
				vg_metrics_sample(f, "vigil_violations_total",
						  i < s->sinks->nviol ? (double)s->sinks->violations[i] : 0,
						  "unit", u, "property",
						  s->spec->props[i].name, NULL);
	vg_metrics_family(f, "vigil_probes", "gauge",
			  "Probes attached now, and planned in all.");
	vg_metrics_sample(f, "vigil_probes", on, "unit", u, "status",
			  "attached", NULL);
	vg_metrics_sample(f, "vigil_probes", total, "unit", u, "status",
			  "planned", NULL);
	procs = !ss->o->watch_exe && !ss->target_exited;
	for (int i = 0; i < ss->nkids; i++)
		procs += !ss->kids[i].gone;
	vg_metrics_family(f, "vigil_monitored_processes", "gauge",
			  "Processes monitored now.");
	vg_metrics_sample(f, "vigil_monitored_processes", procs, "unit", u,
			  NULL);
	vg_metrics_self(&cpu, &rss);
	vg_metrics_family(f, "vigil_cpu_seconds_total", "counter",
			  "CPU time of vigil itself (user and system).");
	vg_metrics_sample(f, "vigil_cpu_seconds_total", cpu, "unit", u, NULL);
	vg_metrics_family(f, "vigil_resident_memory_bytes", "gauge",
			  "Resident memory of vigil itself.");
	vg_metrics_sample(f, "vigil_resident_memory_bytes", (double)rss,
			  "unit", u, NULL);
	if (fclose(f)) {
		free(body);
		return NULL;
	}
	return body;
}

/* The agent reads it while we write: a new file renamed over the old. */
static void write_file(const char *path, const char *body, size_t len)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "we")))
		return;
	if (fwrite(body, 1, len, f) != len) {
		fclose(f);
		unlink(tmp);
		return;
	}
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

static void publish(struct session *ss)
{
	size_t len;
	char *body;

	if (!(body = metrics_body(ss, &len)))
		return;
	if (ss->o->metrics_file)
		write_file(ss->o->metrics_file, body, len);
	if (ss->sinks->metrics)
		vg_metrics_publish(ss->sinks->metrics, body, len);
	else
		free(body);
}

void vg_session_sinks_tick(struct session *ss)
{
	uint64_t now;

	if (!ss->sinks || (!ss->sinks->metrics && !ss->o->metrics_file))
		return;
	now = vg_now_ns(CLOCK_MONOTONIC);
	if (now - ss->sinks->last_ns < METRICS_PERIOD_NS)
		return;
	ss->sinks->last_ns = now;
	publish(ss);
}

void vg_session_sinks_checkpoint(struct session *ss, pid_t of,
				 const char *dir, const char *reason)
{
	char pid[24], msg[8400];

	if (!ss->sinks || !ss->sinks->log)
		return;
	snprintf(pid, sizeof(pid), "%d", of);
	snprintf(msg, sizeof(msg), "pid %d: checkpoint %s (%s); open it with: vigil restore %s",
		 of, dir, reason, dir);
	vg_oplog_send(ss->sinks->log, 5, msg, "VIGIL_EVENT", "checkpoint",
		      "VIGIL_CHECKPOINT", dir, "VIGIL_PID", pid,
		      "VIGIL_UNIT", unit_of(ss), NULL);
}

void vg_session_sinks_checkpoint_failed(struct session *ss, pid_t of,
					const char *what, const char *reason,
					const char *why)
{
	char pid[24], msg[8400];

	if (!ss->sinks || !ss->sinks->log)
		return;
	snprintf(pid, sizeof(pid), "%d", of);
	snprintf(msg, sizeof(msg), "pid %d: %s (%s): %s", of, what, reason,
		 why);
	vg_oplog_send(ss->sinks->log, 4, msg, "VIGIL_EVENT", "checkpoint_failed",
		      "VIGIL_PID", pid, "VIGIL_UNIT", unit_of(ss), NULL);
}

void vg_session_sinks_close(struct session *ss, const char *how)
{
	struct vg_sinks *k = ss->sinks;
	char pid[24], msg[4400];

	if (!k)
		return;
	if (!k->borrowed && (k->metrics || ss->o->metrics_file))
		publish(ss);	/* the end's figures, for a last scrape */
	if (k->log && how) {
		snprintf(pid, sizeof(pid), "%d", ss->pid);
		snprintf(msg, sizeof(msg), "pid %d: %s", ss->pid, how);
		vg_oplog_send(k->log, 5, msg, "VIGIL_EVENT", "end",
			      "VIGIL_PID", pid, "VIGIL_EXE", ss->exe,
			      "VIGIL_UNIT", unit_of(ss), NULL);
	}
	vg_metrics_stop(k->metrics);
	if (!k->borrowed)
		vg_oplog_close(k->log);
	free(k->violations);
	free(k);
	ss->sinks = NULL;
}
