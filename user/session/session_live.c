/* What a person watching a session sees while it runs: the status line
 * on the terminal (user/report/status.h), fed from the loop's wake-ups,
 * and the full monitor state on SIGUSR1. */
#include "session_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "follow/follow.h"
#include "monitor/monitor.h"
#include "probe/probe.h"
#include "report/dump.h"
#include "report/status.h"
#include "util/clock.h"

#define VG_DUMP_CAP 50		/* slices listed per state */

static void mirror_kslice(void *ctx, int prop, const uint64_t *key,
			  int state, const int64_t *vars)
{
	struct session *ss = ctx;
	const struct vg_property *p = &ss->spec->props[prop];
	uint64_t params[VG_MAX_PARAMS] = { key[0], key[1] };
	struct vg_err e;

	vg_monitor_set(ss->mon, prop, (1u << p->nparams) - 1, params, state,
		       vars, &e);
}

void vg_session_mirror_kslices(struct session *ss)
{
	/* the kernel tier's slice table is the truth about its slices: the
	 * monitor learns their states from the steps it reports, not the
	 * variables of the steps it keeps to itself */
	if (ss->o->watch_exe)	/* by process (session_watch.c) */
		vg_session_watch_mirror(ss);
	else
		vg_probe_foreach_kslice(ss->probe, mirror_kslice, ss);
}

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

static uint64_t live_of(struct session *ss, int prop)
{
	uint64_t n = vg_monitor_prop_live(ss->mon, prop);

	for (int i = 0; i < vg_follow_count(ss->procs); i++)	/* --follow-fork */
		n += vg_monitor_prop_live(vg_follow_at(ss->procs, i)->mon, prop);
	return n;
}

void vg_session_event_totals(const struct session *ss, uint64_t *events,
			     uint64_t *lost)
{
	*events = *lost = 0;
	for (int i = 0; i < ss->spec->nevents; i++) {
		uint64_t h, l;

		if (ss->spec->events[i].maps_sync)	/* vigil's own */
			continue;
		vg_probe_counts(ss->probe, i, &h, &l);
		*events += h;
		*lost += l;
	}
}

void vg_session_live_tick(struct session *ss)
{
	uint64_t now = vg_now_ns(CLOCK_MONOTONIC), events = 0, lost = 0;
	char text[512], num[32], tail[64];
	size_t len;
	int attached, total, room;

	if (!ss->status || !vg_status_due(ss->status, now))
		return;
	vg_session_event_totals(ss, &events, &lost);
	human(num, sizeof(num), ss->live_ns && now > ss->live_ns
		? (double)(events - ss->live_events) * 1e9 /
		  (double)(now - ss->live_ns)
		: 0);
	ss->live_events = events;
	ss->live_ns = now;
	vg_probe_links(ss->probe, &attached, &total);
	snprintf(tail, sizeof(tail), " lost %" PRIu64 " | probes %d/%d", lost,
		 attached, total);
	len = (size_t)snprintf(text, sizeof(text), "vigil: %s ev/s |", num);
	/* live slices per property while they fit the terminal's width with
	 * the tail; then the rest as one count */
	room = vg_status_width(ss->status) - (int)strlen(tail);
	for (int i = 0; i < ss->spec->nprops && len < sizeof(text); i++) {
		char item[160];
		int n;

		if (vg_monitor_prop_disabled(ss->mon, i))
			continue;	/* vigil unload */
		human(num, sizeof(num), (double)live_of(ss, i));
		n = snprintf(item, sizeof(item), " %s %s |",
			     ss->spec->props[i].name, num);
		/* the last one needs no room for a "+N more" after it */
		if ((int)len + n + (i + 1 < ss->spec->nprops ? 18 : 0) > room &&
		    i > 0) {
			uint64_t rest = 0;

			for (int j = i; j < ss->spec->nprops; j++)
				rest += live_of(ss, j);
			human(num, sizeof(num), (double)rest);
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						" +%d more %s |",
						ss->spec->nprops - i, num);
			break;
		}
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s",
					item);
	}
	if (len < sizeof(text))
		snprintf(text + len, sizeof(text) - len, "%s", tail);
	vg_status_show(ss->status, text, now);
}

void vg_session_dump(struct session *ss)
{
	vg_session_mirror_kslices(ss);
	fprintf(stderr, "vigil: the monitor of pid %d after %" PRIu64
		" records (SIGUSR1; first %d slices per state):\n",
		ss->pid, ss->events, VG_DUMP_CAP);
	if (vg_report_dump(ss->spec, ss->mon, stderr, VG_DUMP_CAP, 0))
		fprintf(stderr, "vigil: out of memory for the dump\n");
	for (int i = 0; i < vg_follow_count(ss->procs); i++) {
		const struct vg_kid *k = vg_follow_at(ss->procs, i);

		vg_report_dump(ss->spec, k->mon, stderr, VG_DUMP_CAP,
			       (uint32_t)k->pid);
	}
	fprintf(stderr, "vigil: end of the monitor state; monitoring goes on\n");
}
