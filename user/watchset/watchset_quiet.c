/* The watches on freed blocks keep quiet where the program tells a memory
 * checker to (valgrind's client requests; user/watchset/errquiet.h holds
 * the state and memcheck's semantics). A spec that watches freed blocks
 * (a per-slice `access`/`read`/`write *p`, specs/lib/use_after_free.vigil)
 * gets the client-request event (vg_watchset_creq_prepare), probed at
 * each request's xchg (plan/plan_creq.c, bpf/vigil/creq.bpf.c, without a
 * hold); the requests reach the watchset in the order the program made
 * them, before the accesses that follow them, through the same ring. An
 * access the program silenced -- by a thread whose error reporting is
 * off, or to bytes in an ignored range or made addressable -- is no
 * event: no violation, no stop, no repeat. The state is made at the
 * first request: a program that makes none pays nothing here. */
#include "watchset_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errquiet.h"
#include "monitor/monitor.h"

/* does the spec watch blocks per slice (freed blocks) */
static bool watches_blocks(const struct vg_spec *spec)
{
	for (int i = 0; i < spec->nevents; i++) {
		const struct vg_event *w = &spec->events[i];

		if (vg_event_watches_slice(w) &&
		    w->kind != VG_EV_CHANGE && !w->access_for)
			return true;
	}
	return false;
}

int vg_watchset_creq_prepare(struct vg_spec *spec, struct vg_err *e)
{
	struct vg_event *evs, *ev;

	if (!watches_blocks(spec))
		return 0;
	/* --leak-check's event, if it is there: one probe per request */
	for (int i = 0; i < spec->nevents; i++)
		if (spec->events[i].client_request) {
			spec->events[i].creq_for |= VG_CREQ_FOR_ERRS;
			return 0;
		}
	if (spec->nevents + 1 > VG_MAX_EVENTS) {
		fprintf(stderr, "vigil: no room for the event of valgrind's client requests (the spec has %d events, at most %d): VALGRIND_DISABLE_ERROR_REPORTING and the like are not honoured\n",
			spec->nevents, VG_MAX_EVENTS);
		return 0;
	}
	evs = realloc(spec->events, (size_t)(spec->nevents + 1) * sizeof(*evs));
	if (!evs)
		return vg_errf(e, "out of memory");
	spec->events = evs;
	ev = &spec->events[spec->nevents];
	*ev = (struct vg_event){
		.kind = VG_EV_BEFORE,
		.nfields = 6,
		.used = 0x3f,
		.client_request = true,
		.creq_for = VG_CREQ_FOR_ERRS,
	};
	if (!(ev->name = strdup(VG_CREQ_EVENT)))
		return vg_errf(e, "out of memory");
	spec->nevents++;
	return 0;
}

/* an address space: its monitor's (the main process, each followed
 * child) */
static uint64_t space_of(const struct vg_monitor *m)
{
	return (uint64_t)(uintptr_t)m;
}

void vg_watchset_creq(struct vg_watchset *ws, const struct vg_monitor *m,
		      const struct vg_mon_event *ev)
{
	if (!ws || !ws->spec->events[ev->event].client_request)
		return;
	if (!ws->quiet && !(ws->quiet = vg_errquiet_new()))
		return;
	vg_errquiet_request(ws->quiet, space_of(m), ev->tid, ev->slot);
}

bool vg_ws_quiet_hit(struct vg_watchset *ws, const struct vg_monitor *m,
		     const struct vg_mon_event *ev, uint64_t lo, uint64_t hi)
{
	if (!ws->quiet)
		return false;
	if (vg_errquiet_thread_off(ws->quiet, ev->tid) ||
	    vg_errquiet_any_quiet(ws->quiet, space_of(m), lo, hi)) {
		vg_errquiet_count(ws->quiet);
		return true;
	}
	return false;
}

bool vg_ws_quiet_call(struct vg_watchset *ws, const struct vg_monitor *m,
		      const struct vg_mon_event *ev, uint64_t lo, uint64_t hi,
		      uint64_t *at)
{
	if (!ws->quiet)
		return false;
	if (vg_errquiet_thread_off(ws->quiet, ev->tid) ||
	    !vg_errquiet_first_loud(ws->quiet, space_of(m), lo, hi, at)) {
		vg_errquiet_count(ws->quiet);
		return true;
	}
	return false;
}

void vg_ws_quiet_freed(struct vg_watchset *ws, const struct vg_monitor *m,
		       uint64_t lo, uint64_t hi)
{
	if (ws->quiet)
		vg_errquiet_freed(ws->quiet, space_of(m), lo, hi);
}

void vg_ws_quiet_finish(struct vg_watchset *ws, FILE *out)
{
	int t, r;

	if (!ws->quiet)
		return;
	t = vg_errquiet_threads_off(ws->quiet);
	r = vg_errquiet_ignored_ranges(ws->quiet);
	if (vg_errquiet_silenced(ws->quiet))
		fprintf(out, "vigil: %llu accesses to freed blocks not reported: the program asked (valgrind's client requests)\n",
			(unsigned long long)vg_errquiet_silenced(ws->quiet));
	/* as memcheck warns at exit */
	if (t)
		fprintf(out, "vigil: warning: %d threads ended with error reporting disabled (VALGRIND_DISABLE_ERROR_REPORTING without its ENABLE)\n",
			t);
	if (r)
		fprintf(out, "vigil: warning: %d address ranges still ignored at the end (VALGRIND_DISABLE_ADDR_ERROR_REPORTING_IN_RANGE)\n",
			r);
}

void vg_ws_quiet_free(struct vg_watchset *ws)
{
	vg_errquiet_free(ws->quiet);
	ws->quiet = NULL;
}
