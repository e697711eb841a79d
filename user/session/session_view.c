/* --view: the session's side of the live page (user/view/). The server
 * runs on its own threads; everything that reads the monitor happens
 * here, on the session's thread, and only while a page is connected. */
#include "session_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "act/scenario.h"
#include "monitor/monitor.h"
#include "report/dot.h"
#include "report/evidence.h"
#include "report/report.h"
#include "util/clock.h"
#include "view/view.h"
#include "view/view_frame.h"

/* violations the page lists; later ones are counted, not kept */
#define VG_VIEW_VIOLATIONS 100
/* slices of the selected state listed */
#define VG_VIEW_SLICES 200

static int view_start(struct session *ss, struct vg_err *e)
{
	struct vg_dot_marks marks = { .live = true };
	struct vg_view_opts vo = {
		.addr = ss->o->view_addr,
		.port = ss->o->view_port,
	};
	char *svg;

	ss->view_fired = calloc(vg_frame_ntrans(ss->spec) + 1,
				sizeof(uint64_t));
	ss->view_viol = calloc(VG_VIEW_VIOLATIONS, sizeof(char *));
	if (!ss->view_fired || !ss->view_viol)
		return vg_errf(e, "out of memory");
	if (!(svg = vg_dot_svg(ss->spec, &marks, &vo.svg_len, e)))
		return -1;
	vo.svg = svg;
	ss->view = vg_view_start(&vo, e);
	free(svg);
	if (!ss->view)
		return -1;
	ss->view_t0 = vg_now_ns(CLOCK_MONOTONIC);
	vg_probe_count_trans(ss->probe);
	fprintf(stderr, "vigil: live view at %s\n", vg_view_url(ss->view));
	return 0;
}

int vg_session_view_open(struct session *ss, struct vg_err *e)
{
	return ss->o->view ? view_start(ss, e) : 0;
}

const char *vg_session_view_url(struct session *ss, struct vg_err *e)
{
	if (!ss->view && view_start(ss, e))
		return NULL;
	return vg_view_url(ss->view);
}

/* A violation as the page lists it: the report's own words for the
 * event, its JSON members and the slice's evidence. */
static char *violation_json(struct session *ss, struct vg_evidence *x,
			    const struct vg_slice_view *s, int from,
			    const struct vg_mon_event *ev)
{
	char *text = NULL, *members = NULL, *evid = NULL, *v = NULL;
	size_t n;
	FILE *f;

	if ((f = open_memstream(&text, &n))) {
		vg_event_text(ss->spec, f, ev);
		fclose(f);
	}
	if ((f = open_memstream(&members, &n))) {
		vg_event_json(ss->spec, f, ev);
		fclose(f);
	}
	if ((f = open_memstream(&evid, &n))) {
		vg_evidence_json(x, s, f);
		fclose(f);
	}
	if (text && members && evid)
		v = vg_frame_violation(ss->spec, s, from, text, members, evid);
	free(text);
	free(members);
	free(evid);
	return v;
}

void vg_session_view_transition(struct session *ss, struct vg_evidence *x,
				const struct vg_slice_view *s, int from,
				const struct vg_mon_event *ev)
{
	const struct vg_property *p;

	if (!ss->view)
		return;
	p = &ss->spec->props[s->prop];
	if (s->trans >= 0)	/* the kernel tier counts its own */
		ss->view_fired[vg_frame_tindex(ss->spec, s->prop, s->trans)]++;
	if (p->states[s->state].kind != VG_STATE_VIOLATION ||
	    p->states[from].kind == VG_STATE_VIOLATION)
		return;
	if (ss->nview_viol == VG_VIEW_VIOLATIONS) {
		ss->view_viol_more++;
		return;
	}
	if ((ss->view_viol[ss->nview_viol] = violation_json(ss, x, s, from, ev)))
		ss->nview_viol++;
}

static void publish(struct session *ss, const char *phase, const char *note,
		    uint64_t now)
{
	int ntr = vg_frame_ntrans(ss->spec), sel_prop, sel_state;
	struct vg_monitor *mons[ss->nkids + 1];
	uint64_t fired[ntr + 1], events = 0, lost = 0;
	struct vg_frame_in in = {
		.spec = ss->spec, .mons = mons, .nmons = 1 + ss->nkids,
		.kernel = ss->kernel, .fired = fired, .phase = phase,
		.note = note, .sel_cap = VG_VIEW_SLICES,
		.violations = (const char *const *)ss->view_viol,
		.nviolations = ss->nview_viol, .seq = ++ss->view_seq,
	};
	char *json;
	size_t len;

	in.t_ms = (now - ss->view_t0) / 1000000;
	mons[0] = ss->mon;
	for (int i = 0; i < ss->nkids; i++)
		mons[1 + i] = ss->kids[i].mon;
	memcpy(fired, ss->view_fired, ntr * sizeof(uint64_t));
	for (int pi = 0, t0 = 0; pi < ss->spec->nprops;
	     t0 += ss->spec->props[pi++].ntrans)
		for (int t = 0; ss->kernel[pi] && t < ss->spec->props[pi].ntrans;
		     t++)
			fired[t0 + t] = vg_probe_trans_hits(ss->probe, t0 + t);
	vg_session_event_totals(ss, &events, &lost);
	in.events = events;
	in.lost = lost;
	if (ss->view_ns && now > ss->view_ns)
		in.rate = (double)(events - ss->view_events) * 1e9 /
			  (double)(now - ss->view_ns);
	ss->view_events = events;
	ss->view_ns = now;
	vg_probe_links(ss->probe, &in.probes_on, &in.probes_total);
	vg_view_selected(ss->view, &sel_prop, &sel_state);
	in.sel_prop = sel_prop;
	in.sel_state = sel_state;
	/* The kernel tier reports every state change, so the monitor's
	 * mirror has its slices' states; their variables live in its table,
	 * which is read (all of it: megabytes) only for a list of slices the
	 * page asked for, at most once a second, and for the last frame. */
	if ((sel_prop >= 0 && sel_prop < ss->spec->nprops &&
	     ss->kernel[sel_prop] &&
	     now - ss->view_mirror_ns >= 1000000000ull) ||
	    strcmp(phase, "running")) {
		vg_session_mirror_kslices(ss);
		ss->view_mirror_ns = now;
	}
	if ((json = vg_frame_build(&in, &len)))
		vg_view_publish(ss->view, json, len, now);
}

void vg_session_view_tick(struct session *ss)
{
	uint64_t now;

	if (!ss->view)
		return;
	now = vg_now_ns(CLOCK_MONOTONIC);
	if (!vg_view_due(ss->view, now))
		return;
	if (vg_scenario_target_stopped(ss->sc))
		return;		/* the last frame said so; it stays */
	publish(ss, "running", NULL, now);
}

void vg_session_view_final(struct session *ss)
{
	char note[256];
	const char *phase;

	if (!ss->view)
		return;
	if (vg_scenario_target_stopped(ss->sc)) {
		phase = "stopped";
		snprintf(note, sizeof(note),
			 "the program (pid %d) is stopped at the violation; the picture is frozen there",
			 ss->pid);
	} else if (ss->target_exited) {
		phase = "exited";
		snprintf(note, sizeof(note),
			 "the program (pid %d) exited: these are the final verdicts",
			 ss->pid);
	} else {
		phase = "detached";
		snprintf(note, sizeof(note),
			 "vigil stopped monitoring pid %d, which runs on", ss->pid);
	}
	if (ss->view_viol_more) {
		size_t n = strlen(note);

		snprintf(note + n, sizeof(note) - n,
			 " (%" PRIu64 " more violations are not listed)",
			 ss->view_viol_more);
	}
	publish(ss, phase, note, vg_now_ns(CLOCK_MONOTONIC));
}

void vg_session_view_close(struct session *ss, bool linger)
{
	/* only a page asked for on the command line outlives the run: one
	 * `vigil view PID` opened must not keep a scripted vigil waiting */
	if (ss->view && linger && ss->o->view)
		vg_view_linger(ss->view);
	vg_view_stop(ss->view);
	ss->view = NULL;
	for (int i = 0; i < ss->nview_viol; i++)
		free(ss->view_viol[i]);
	free(ss->view_viol);
	free(ss->view_fired);
}
