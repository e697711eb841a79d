/* --view: the run's side of the live page (user/view/view.h), a feature
 * of the session (user/feature/feature.h). The server runs on its own
 * threads; everything that reads the monitor happens here, on the
 * session's thread, and only while a page is connected. Without --view
 * it waits, dormant, for `vigil view PID` (the control channel's view). */
#include "view_feature.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feature/feature.h"
#include "monitor/monitor.h"
#include "proc/proc.h"
#include "report/dot.h"
#include "report/evidence.h"
#include "report/report.h"
#include "spec/spec.h"
#include "util/clock.h"
#include "view/view.h"
#include "view/view_frame.h"

/* violations the page lists; later ones are counted, not kept */
#define VG_VIEW_VIOLATIONS 100
/* slices of the selected state listed */
#define VG_VIEW_SLICES 200
/* processes whose slices a frame shows: the target and followed ones */
#define VG_VIEW_MONITORS 256

struct page {
	const struct vg_run *run;
	bool asked;		/* --view: the page outlives the run */
	const char *addr;
	int port;
	struct vg_view *view;	/* NULL until started */
	uint64_t *fired;	/* user-tier transitions taken */
	char **viol;		/* the violations listed, as JSON */
	int nviol;
	uint64_t viol_more, seq, events, ns, t0;
	uint64_t mirror_ns;	/* the kernel table last read */
	/* the thread a reaction stopped: the last frame says so, and
	 * stays while it is stopped (gdb holds it in a live session) */
	pid_t stopped;
};

static int view_start(struct page *g, struct vg_err *e)
{
	const struct vg_spec *spec = vg_run_spec(g->run);
	struct vg_dot_marks marks = { .live = true };
	struct vg_view_opts vo = { .addr = g->addr, .port = g->port };
	char *svg;

	g->fired = calloc(vg_frame_ntrans(spec) + 1, sizeof(uint64_t));
	g->viol = calloc(VG_VIEW_VIOLATIONS, sizeof(char *));
	if (!g->fired || !g->viol)
		return vg_errf(e, "out of memory");
	if (!(svg = vg_dot_svg(spec, &marks, &vo.svg_len, e)))
		return -1;
	vo.svg = svg;
	g->view = vg_view_start(&vo, e);
	free(svg);
	if (!g->view)
		return -1;
	g->t0 = vg_now_ns(CLOCK_MONOTONIC);
	vg_run_count_transitions(g->run);
	fprintf(stderr, "vigil: live view at %s\n", vg_view_url(g->view));
	return 0;
}

/* A violation as the page lists it: the report's own words for the
 * event, its JSON members and the slice's evidence. */
static char *violation_json(const struct vg_spec *spec, struct vg_evidence *x,
			    const struct vg_slice_view *s, int from,
			    const struct vg_mon_event *ev)
{
	char *text = NULL, *members = NULL, *evid = NULL, *v = NULL;
	size_t n;
	FILE *f;

	if ((f = open_memstream(&text, &n))) {
		vg_event_text(spec, f, ev);
		fclose(f);
	}
	if ((f = open_memstream(&members, &n))) {
		vg_event_json(spec, f, ev);
		fclose(f);
	}
	if ((f = open_memstream(&evid, &n))) {
		vg_evidence_json(x, s, f);
		fclose(f);
	}
	if (text && members && evid)
		v = vg_frame_violation(spec, s, from, text, members, evid);
	free(text);
	free(members);
	free(evid);
	return v;
}

static void transition(void *state, const struct vg_run *run,
		       const struct vg_slice_view *s, int from,
		       const struct vg_mon_event *ev)
{
	struct page *g = state;
	const struct vg_spec *spec = vg_run_spec(g->run);
	const struct vg_property *p;

	/* (the page shows the properties the run started with) */
	if (!g->view || run != g->run)
		return;
	p = &spec->props[s->prop];
	if (s->trans >= 0)	/* the kernel tier counts its own */
		g->fired[vg_frame_tindex(spec, s->prop, s->trans)]++;
	if (p->states[s->state].kind != VG_STATE_VIOLATION ||
	    p->states[from].kind == VG_STATE_VIOLATION)
		return;
	if (g->nviol == VG_VIEW_VIOLATIONS) {
		g->viol_more++;
		return;
	}
	if ((g->viol[g->nviol] = violation_json(spec,
						vg_run_evidence(run, ev->pid),
						s, from, ev)))
		g->nviol++;
}

static void publish(struct page *g, const char *phase, const char *note,
		    uint64_t now)
{
	const struct vg_run *run = g->run;
	const struct vg_spec *spec = vg_run_spec(run);
	int ntr = vg_frame_ntrans(spec), sel_prop, sel_state;
	struct vg_monitor *mons[VG_VIEW_MONITORS];
	bool kernel[spec->nprops + 1];
	uint64_t fired[ntr + 1];
	struct vg_run_counts c;
	struct vg_frame_in in = {
		.spec = spec, .mons = mons, .kernel = kernel, .fired = fired,
		.phase = phase, .note = note, .sel_cap = VG_VIEW_SLICES,
		.violations = (const char *const *)g->viol,
		.nviolations = g->nviol, .seq = ++g->seq,
	};
	char *json;
	size_t len;

	in.nmons = vg_run_monitors(run, mons, VG_VIEW_MONITORS);
	in.t_ms = (now - g->t0) / 1000000;
	for (int pi = 0; pi < spec->nprops; pi++)
		kernel[pi] = vg_run_prop_kernel(run, pi);
	memcpy(fired, g->fired, ntr * sizeof(uint64_t));
	for (int pi = 0, t0 = 0; pi < spec->nprops;
	     t0 += spec->props[pi++].ntrans)
		for (int t = 0; kernel[pi] && t < spec->props[pi].ntrans; t++)
			fired[t0 + t] = vg_run_transition_hits(run, t0 + t);
	vg_run_counts(run, &c);
	in.events = c.events;
	in.lost = c.lost;
	if (g->ns && now > g->ns)
		in.rate = (double)(c.events - g->events) * 1e9 /
			  (double)(now - g->ns);
	g->events = c.events;
	g->ns = now;
	in.probes_on = c.probes_attached;
	in.probes_total = c.probes_planned;
	vg_view_selected(g->view, &sel_prop, &sel_state);
	in.sel_prop = sel_prop;
	in.sel_state = sel_state;
	/* The kernel tier reports every state change, so the monitor's
	 * mirror has its slices' states; their variables live in its table,
	 * which is read (all of it: megabytes) only for a list of slices the
	 * page asked for, at most once a second, and for the last frame. */
	if ((sel_prop >= 0 && sel_prop < spec->nprops && kernel[sel_prop] &&
	     now - g->mirror_ns >= 1000000000ull) ||
	    strcmp(phase, "running")) {
		vg_run_sync_kernel(run);
		g->mirror_ns = now;
	}
	if ((json = vg_frame_build(&in, &len)))
		vg_view_publish(g->view, json, len, now);
}

static void tick(void *state)
{
	struct page *g = state;
	uint64_t now;

	if (!g->view)
		return;
	now = vg_now_ns(CLOCK_MONOTONIC);
	if (!vg_view_due(g->view, now))
		return;
	if (vg_run_target_stopped(g->run))
		return;		/* the last frame said so; it stays */
	if (g->stopped) {
		char st = vg_proc_state(g->stopped);

		if (st == 'T' || st == 't')
			return;	/* as above, under gdb */
		g->stopped = 0;	/* it runs again */
	}
	publish(g, "running", NULL, now);
}

/* A reaction stopped the program: the page says so at once (under a
 * live gdb session the run goes on, and the frame stays until it runs
 * again: tick) */
static void stop(void *state, const struct vg_run *run, pid_t pid, pid_t tid)
{
	struct page *g = state;
	char note[256];

	if (!g->view || run != g->run)
		return;
	g->stopped = tid ? tid : pid;
	snprintf(note, sizeof(note),
		 "the program (pid %d) is stopped at the violation, thread %d",
		 (int)pid, (int)(tid ? tid : pid));
	publish(g, "stopped", note, vg_now_ns(CLOCK_MONOTONIC));
}

/* `vigil view PID`: the page's URL, its server started now if need be
 * (then its edge counts start now) */
static int ctl(void *state, const char *cmd, json_t *args, char **text,
	       json_t **data, struct vg_err *e)
{
	struct page *g = state;

	if (strcmp(cmd, "view"))
		return 0;
	if (!g->view && view_start(g, e))
		return -1;
	if (asprintf(text, "%s\n", vg_view_url(g->view)) < 0)
		*text = NULL;
	*data = json_pack("{s:s}", "url", vg_view_url(g->view));
	return 1;
}

/* The run is over, the probes still in: the last frame */
static void end(void *state, const struct vg_run_end *e)
{
	struct page *g = state;
	int pid = (int)vg_run_pid(g->run);
	char note[256];
	const char *phase;

	if (!g->view || e->failed)
		return;
	if (e->stopped) {
		phase = "stopped";
		snprintf(note, sizeof(note),
			 "the program (pid %d) is stopped at the violation; the picture is frozen there",
			 pid);
	} else if (e->exited) {
		phase = "exited";
		snprintf(note, sizeof(note),
			 "the program (pid %d) exited: these are the final verdicts",
			 pid);
	} else {
		phase = "detached";
		snprintf(note, sizeof(note),
			 "vigil stopped monitoring pid %d, which runs on", pid);
	}
	if (g->viol_more) {
		size_t n = strlen(note);

		snprintf(note + n, sizeof(note) - n,
			 " (%" PRIu64 " more violations are not listed)",
			 g->viol_more);
	}
	publish(g, phase, note, vg_now_ns(CLOCK_MONOTONIC));
}

/* The page keeps the end of a run that ended by itself (not one the
 * user interrupted, nor one gdb takes the terminal for), the probes gone
 * and the target as the run left it; only a page asked for on the
 * command line outlives the run: one `vigil view PID` opened must not
 * keep a scripted vigil waiting. */
static void released(void *state, const struct vg_run_end *e)
{
	struct page *g = state;

	if (g->view && g->asked && !e->failed && !e->gdb &&
	    (e->exited || e->stopped))
		vg_view_linger(g->view);
	vg_view_stop(g->view);
	for (int i = 0; i < g->nviol; i++)
		free(g->viol[i]);
	free(g->viol);
	free(g->fired);
	free(g);
}

static int start(struct vg_run *run, struct vg_plan *plan, void **state,
		 struct vg_err *e)
{
	const char *port = vg_run_option(run, "view-port");
	struct page *g = calloc(1, sizeof(*g));

	if (!(*state = g))
		return vg_errf(e, "out of memory");
	g->run = run;
	g->addr = vg_run_option(run, "view-addr");
	g->port = port ? atoi(port) : 0;
	g->asked = vg_run_option(run, "view") || g->addr || port;
	return g->asked ? view_start(g, e) : 0;
}

static const char *check_addr(const char *a)
{
	struct in_addr in;

	return inet_pton(AF_INET, a, &in) != 1
	       ? "is not a numeric IPv4 address" : NULL;
}

static const char *check_port(const char *p)
{
	char *end;
	long n = strtol(p, &end, 10);

	return *end || end == p || n < 0 || n > 65535
	       ? "is not a port number (0 for any free one)" : NULL;
}

#define ONE_PROCESS "the live page shows one process's slices (--metrics counts every watched process; vigil attach --view -p PID for one)"

static const struct vg_feature_opt opts[] = {
	{ "view", NULL, false,
	  "a live page of the run in a browser (docs/reference/live-view.md): the\n      automata with their slice counts, the violations with their\n      evidence; its URL is printed (127.0.0.1, a free port)",
	  NULL, ONE_PROCESS },
	{ "view-addr", "ADDR", false,
	  "the page's address (default 127.0.0.1; another one shows the\n      program's data to the network); implies --view", check_addr,
	  ONE_PROCESS },
	{ "view-port", "PORT", false,
	  "its port (default 0: any free one); implies --view", check_port,
	  ONE_PROCESS },
	{ NULL },
};

const struct vg_feature vg_view_feature = {
	.name = "view",
	.opts = opts,
	.start = start,
	.stop = stop,
	.transition = transition,
	.tick = tick,
	.ctl = ctl,
	.end = end,
	.released = released,
};
