/* The status line's figures (status.h), a feature of the session
 * (user/feature/feature.h): read through vg_run_* on the loop's ticks and
 * drawn on the terminal by term.c. */
#include "status.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feature/feature.h"
#include "monitor/monitor.h"
#include "spec/spec.h"
#include "term.h"
#include "util/clock.h"

struct line {
	const struct vg_run *run;
	struct vg_status *term;
	/* the probes' event count and the time at the last redraw */
	uint64_t events, ns;
};

/* 950, 12.3k, 4.5M: a status line has no room for digits */
static void human(char *buf, size_t len, double v)
{
	if (v < 1e4)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.1fG", v / 1e9);
}

struct live {
	int prop;
	uint64_t n;
};

static void add_live(void *ctx, pid_t pid, struct vg_monitor *m)
{
	struct live *l = ctx;

	(void)pid;

	l->n += vg_monitor_prop_live(m, l->prop);
}

/* property prop's live slices: the target's and, --follow-fork, each
 * followed process's */
static uint64_t live_of(const struct vg_run *run, int prop)
{
	struct live l = { prop, 0 };

	vg_run_foreach_monitor(run, add_live, &l);
	return l.n;
}

static void tick(void *state)
{
	struct line *g = state;
	const struct vg_run *run = g->run;
	const struct vg_spec *spec = vg_run_spec(run);
	uint64_t now = vg_now_ns(CLOCK_MONOTONIC);
	char text[512], num[32], tail[64];
	struct vg_run_counts c;
	size_t len;
	int room;

	if (!vg_status_due(g->term, now))
		return;
	vg_run_counts(run, &c);
	human(num, sizeof(num), g->ns && now > g->ns
		? (double)(c.events - g->events) * 1e9 / (double)(now - g->ns)
		: 0);
	g->events = c.events;
	g->ns = now;
	snprintf(tail, sizeof(tail), " lost %" PRIu64 " | probes %d/%d",
		 c.lost, c.probes_attached, c.probes_planned);
	len = (size_t)snprintf(text, sizeof(text), "vigil: %s ev/s |", num);
	/* live slices per property while they fit the terminal's width with
	 * the tail; then the rest as one count */
	room = vg_status_width(g->term) - (int)strlen(tail);
	for (int i = 0; i < spec->nprops && len < sizeof(text); i++) {
		char item[160];
		int n;

		if (vg_run_prop_unloaded(run, i))
			continue;	/* vigil unload */
		human(num, sizeof(num), (double)live_of(run, i));
		n = snprintf(item, sizeof(item), " %s %s |",
			     spec->props[i].name, num);
		/* the last one needs no room for a "+N more" after it */
		if ((int)len + n + (i + 1 < spec->nprops ? 18 : 0) > room &&
		    i > 0) {
			uint64_t rest = 0;

			for (int j = i; j < spec->nprops; j++)
				rest += live_of(run, j);
			human(num, sizeof(num), (double)rest);
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						" +%d more %s |",
						spec->nprops - i, num);
			break;
		}
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s",
					item);
	}
	if (len < sizeof(text))
		snprintf(text + len, sizeof(text) - len, "%s", tail);
	vg_status_show(g->term, text, now);
}

/* the terminal is gdb's now: no status line drawn over it (the stream
 * stays: the reports write through it) */
static void gdb_terminal(void *state)
{
	struct line *g = state;

	vg_status_hide(g->term);
}

/* the last call of the run: stderr is the terminal's again */
static void released(void *state, const struct vg_run_end *e)
{
	struct line *g = state;

	vg_status_free(g->term);
	free(g);
}

/* First of all: every module that keeps stderr (the reports, the probes'
 * warnings) must keep the stream that clears the status line; without
 * one, vigil runs as it would off a terminal. */
static int prepare(struct vg_run *run, struct vg_spec *spec, void **state,
		   struct vg_err *e)
{
	struct line *g;
	struct vg_err se;

	*state = NULL;
	if (!vg_run_live(run))
		return 0;
	if (!(g = calloc(1, sizeof(*g))))
		vg_errf(&se, "out of memory");
	else if (!(g->term = vg_status_new(&se))) {
		free(g);
		g = NULL;
	}
	if (!g) {
		fprintf(stderr, "vigil: no live view: %s\n", se.msg);
		return 0;
	}
	g->run = run;
	*state = g;
	return 0;
}

const struct vg_feature vg_status_feature = {
	.name = "status",
	.prepare = prepare,
	.tick = tick,
	.gdb_terminal = gdb_terminal,
	.released = released,
};
