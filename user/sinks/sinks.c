/* --metrics and --journal: where operators look (user/sinks/sinks.h). The
 * metrics body is built here, on the session's thread, about once a
 * second (user/metrics/ serves it); verdicts and lifecycle messages go to
 * the operators' log (user/report/oplog.h). */
#include "sinks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "feature/feature.h"
#include "metrics/metrics.h"
#include "monitor/monitor.h"
#include "proc/procinfo.h"
#include "report/oplog.h"
#include "report/report.h"
#include "spec/spec.h"
#include "util/clock.h"

#define METRICS_PERIOD_NS 1000000000ull
#define MAX_PARTS 64		/* the run's property sets whose violations
				 * are counted: vigil load's units beyond
				 * this count as none */

struct sinks {
	const struct vg_run *run;
	struct vg_metrics *metrics;
	const char *metrics_file;	/* the agent's: the body written there */
	struct vg_oplog *log;
	/* violations per property of each part (vg_run_part): a part's
	 * counts are found by its run */
	struct {
		const struct vg_run *run;
		uint64_t *v;
		int n;
	} parts[MAX_PARTS];
	int nparts;
	uint64_t last_ns;
};

/* the counts of part r, grown to hold property prop; NULL when full */
static uint64_t *counts(struct sinks *k, const struct vg_run *r, int prop)
{
	int i = 0;

	while (i < k->nparts && k->parts[i].run != r)
		i++;
	if (i == k->nparts) {
		if (i == MAX_PARTS)
			return NULL;
		k->parts[k->nparts++].run = r;
	}
	if (prop >= k->parts[i].n) {	/* vigil load adds properties */
		uint64_t *v = realloc(k->parts[i].v, (prop + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + k->parts[i].n, 0,
		       (prop + 1 - k->parts[i].n) * sizeof(*v));
		k->parts[i].v = v;
		k->parts[i].n = prop + 1;
	}
	return k->parts[i].v;
}

static uint64_t violations(const struct sinks *k, const struct vg_run *r,
			   int prop)
{
	for (int i = 0; i < k->nparts; i++)
		if (k->parts[i].run == r)
			return prop < k->parts[i].n ? k->parts[i].v[prop] : 0;
	return 0;
}

static void transition(void *state, const struct vg_run *run,
		       const struct vg_slice_view *s, int from,
		       const struct vg_mon_event *ev)
{
	struct sinks *k = state;
	const struct vg_spec *spec = vg_run_spec(run);
	const struct vg_property *p = &spec->props[s->prop];
	char slice[512], pid[24], tid[24], nspid[24], *evt = NULL, *msg = NULL;
	struct vg_proc_where w = { 0 };
	struct vg_err we = { 0 };
	uint64_t *v;
	size_t n;
	FILE *f;

	if (p->states[s->state].kind != VG_STATE_VIOLATION ||
	    p->states[from].kind == VG_STATE_VIOLATION)
		return;
	if ((v = counts(k, run, s->prop)))
		v[s->prop]++;
	if (!k->log)
		return;
	vg_slice_text(spec, s, ", ", slice, sizeof(slice));
	if ((f = open_memstream(&evt, &n))) {
		vg_event_text(spec, f, ev);
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
		      "VIGIL_EXE", vg_run_exe(k->run),
		      "VIGIL_UNIT", vg_run_unit(k->run),
		      "VIGIL_STOPPED", vg_run_target_stopped(k->run) ? "1" : "0",
		      NULL);
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

/* One part's vigil_slices samples: its properties not unloaded. */
static void slice_samples(FILE *f, const struct vg_run *part, const char *u)
{
	const struct vg_spec *sp = vg_run_spec(part);
	uint64_t *count[sp->nprops + 1];
	struct census c = { sp, count };

	for (int i = 0; i < sp->nprops; i++)
		count[i] = vg_run_prop_unloaded(part, i) ? NULL
			   : calloc(sp->props[i].nstates, sizeof(uint64_t));
	vg_run_foreach_slice(part, count_slice, &c);
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
static char *metrics_body(struct sinks *k, size_t *len)
{
	const struct vg_run *run = k->run, *part;
	const char *u = vg_run_unit(run);
	struct vg_run_counts all = { 0 }, c;
	char *body = NULL;
	uint64_t rss;
	double cpu;
	FILE *f;

	if (!(f = open_memstream(&body, len)))
		return NULL;
	for (int p = 0; (part = vg_run_part(run, p)); p++) {
		vg_run_counts(part, &c);
		all.events += c.events;
		all.lost += c.lost;
		all.probes_attached += c.probes_attached;
		all.probes_planned += c.probes_planned;
		if (!p)
			all.processes = c.processes;
	}
	vg_metrics_family(f, "vigil_events_total", "counter",
			  "Events the probes saw.");
	vg_metrics_sample(f, "vigil_events_total", (double)all.events, "unit",
			  u, NULL);
	vg_metrics_family(f, "vigil_events_lost_total", "counter",
			  "Events lost (ring buffer full); verdicts of the properties concerned are inconclusive.");
	vg_metrics_sample(f, "vigil_events_lost_total", (double)all.lost,
			  "unit", u, NULL);
	vg_metrics_family(f, "vigil_slices", "gauge",
			  "Live slices per property and state (violation states keep theirs).");
	for (int p = 0; (part = vg_run_part(run, p)); p++)
		slice_samples(f, part, u);
	vg_metrics_family(f, "vigil_violations_total", "counter",
			  "Slices that entered a violation state.");
	for (int p = 0; (part = vg_run_part(run, p)); p++)
		for (int i = 0; i < vg_run_spec(part)->nprops; i++)
			if (!vg_run_prop_unloaded(part, i))
				vg_metrics_sample(f, "vigil_violations_total",
						  (double)violations(k, part, i),
						  "unit", u, "property",
						  vg_run_spec(part)->props[i].name,
						  NULL);
	vg_metrics_family(f, "vigil_probes", "gauge",
			  "Probes attached now, and planned in all.");
	vg_metrics_sample(f, "vigil_probes", all.probes_attached, "unit", u,
			  "status", "attached", NULL);
	vg_metrics_sample(f, "vigil_probes", all.probes_planned, "unit", u,
			  "status", "planned", NULL);
	vg_metrics_family(f, "vigil_monitored_processes", "gauge",
			  "Processes monitored now.");
	vg_metrics_sample(f, "vigil_monitored_processes", all.processes,
			  "unit", u, NULL);
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

static void publish(struct sinks *k)
{
	size_t len;
	char *body;

	if (!(body = metrics_body(k, &len)))
		return;
	if (k->metrics_file)
		write_file(k->metrics_file, body, len);
	if (k->metrics)
		vg_metrics_publish(k->metrics, body, len);
	else
		free(body);
}

static void tick(void *state)
{
	struct sinks *k = state;
	uint64_t now;

	if (!k->metrics && !k->metrics_file)
		return;
	now = vg_now_ns(CLOCK_MONOTONIC);
	if (now - k->last_ns < METRICS_PERIOD_NS)
		return;
	k->last_ns = now;
	publish(k);
}

static void checkpoint(void *state, pid_t of, const char *dir,
		       const char *reason, const char *what, const char *why)
{
	struct sinks *k = state;
	char pid[24], msg[8400];
	const char *u = vg_run_unit(k->run);

	if (!k->log)
		return;
	snprintf(pid, sizeof(pid), "%d", of);
	if (dir) {
		snprintf(msg, sizeof(msg), "pid %d: checkpoint %s (%s); open it with: vigil restore %s",
			 of, dir, reason, dir);
		vg_oplog_send(k->log, 5, msg, "VIGIL_EVENT", "checkpoint",
			      "VIGIL_CHECKPOINT", dir, "VIGIL_PID", pid,
			      "VIGIL_UNIT", u, NULL);
		return;
	}
	snprintf(msg, sizeof(msg), "pid %d: %s (%s): %s", of, what, reason,
		 why);
	vg_oplog_send(k->log, 4, msg, "VIGIL_EVENT", "checkpoint_failed",
		      "VIGIL_PID", pid, "VIGIL_UNIT", u, NULL);
}

static void part_end(void *state, const struct vg_run *part)
{
	struct sinks *k = state;

	for (int i = 0; i < k->nparts; i++)
		if (k->parts[i].run == part) {
			free(k->parts[i].v);
			k->parts[i] = k->parts[--k->nparts];
			return;
		}
}

static void end(void *state, const struct vg_run_end *e)
{
	struct sinks *k = state;
	char pid[24], msg[4400];
	int run_pid = (int)vg_run_pid(k->run);

	if (k->metrics || k->metrics_file)
		publish(k);	/* the end's figures, for a last scrape */
	if (k->log && e && e->how) {
		snprintf(pid, sizeof(pid), "%d", run_pid);
		snprintf(msg, sizeof(msg), "pid %d: %s", run_pid, e->how);
		vg_oplog_send(k->log, 5, msg, "VIGIL_EVENT", "end",
			      "VIGIL_PID", pid, "VIGIL_EXE", vg_run_exe(k->run),
			      "VIGIL_UNIT", vg_run_unit(k->run), NULL);
	}
	vg_metrics_stop(k->metrics);
	vg_oplog_close(k->log);
	for (int i = 0; i < k->nparts; i++)
		free(k->parts[i].v);
	free(k);
}

static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	const char *addr = vg_run_option(run, "metrics");
	const char *file = vg_run_option(run, "metrics-file");
	const char *journal = vg_run_option(run, "journal");
	const char *exe = vg_run_exe(run);
	char host[64], pid[24], msg[4400];
	struct sinks *k;
	int port;

	*state = NULL;
	if (!addr && !file && !journal)
		return 0;
	if (!(k = calloc(1, sizeof(*k))))
		return vg_errf(e, "out of memory");
	*state = k;	/* the end frees what is made */
	k->run = run;
	k->metrics_file = file;
	if (addr) {
		vg_metrics_parse_addr(addr, host, sizeof(host), &port);
		if (!(k->metrics = vg_metrics_start(host, port, e)))
			return -1;
		fprintf(stderr, "vigil: metrics at http://%s:%d/metrics\n",
			host, vg_metrics_port(k->metrics));
	}
	if (journal) {
		if (!(k->log = vg_oplog_open(*journal ? journal : NULL, 0, e)))
			return -1;
		if (!vg_run_quiet(run))
			fprintf(stderr, "vigil: verdicts go to %s\n",
				vg_oplog_where(k->log));
		snprintf(pid, sizeof(pid), "%d", (int)vg_run_pid(run));
		snprintf(msg, sizeof(msg), "monitoring pid %d (%s): %d properties",
			 (int)vg_run_pid(run), exe[0] ? exe : "?",
			 vg_run_spec(run)->nprops);
		vg_oplog_send(k->log, 6, msg, "VIGIL_EVENT", "start",
			      "VIGIL_PID", pid, "VIGIL_EXE", exe,
			      "VIGIL_UNIT", vg_run_unit(run), NULL);
	}
	return 0;
}

static const char *check_metrics(const char *arg)
{
	char host[64];
	int port;

	return vg_metrics_parse_addr(arg, host, sizeof(host), &port)
	       ? "is not ADDR:PORT (a numeric IPv4 address, e.g. 127.0.0.1:9477)"
	       : NULL;
}

static const struct vg_feature_opt opts[] = {
	{ "metrics", "ADDR:PORT", false,
	  "a Prometheus endpoint (docs/OPERATIONS.md): events, slices per\n      state, violations, probes, vigil's CPU and memory; ADDR numeric\n      (127.0.0.1:9477), port 0 for a free one",
	  check_metrics },
	{ "journal", "FILE", true,
	  "verdicts and start/end messages to journald with VIGIL_* fields;\n      where journald does not run, the same as JSON lines to FILE\n      (default standard output)" },
	/* the agent's, for the sessions it starts: not in --help */
	{ "metrics-file", "FILE", false, NULL },
	{ NULL },
};

const struct vg_feature vg_sinks_feature = {
	.name = "sinks",
	.opts = opts,
	.start = start,
	.transition = transition,
	.tick = tick,
	.checkpoint = checkpoint,
	.part_end = part_end,
	.end = end,
};
