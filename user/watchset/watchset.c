/* The watchpoints of a live run (user/watchset/watchset.h).
 *
 * A "register" is one hardware breakpoint (an address, a length, a kind),
 * armed in every thread of the target; x86 gives each thread four, so the
 * whole run has four. A slice's "watch" is one per-slice watch event of
 * its property and the registers that cover the event's memory for that
 * slice (`*p @ 24` takes three: 8 + 8 + 8 bytes, aligned). Slices that
 * need the same address with the same event share its register.
 *
 * Arming never misses the first write after the transition that asks for
 * it: the event that caused the transition was flagged VG_EVF_HOLD, so its
 * probe stopped the target before the thread ran on, and the session
 * resumes it only after this file has armed the registers (the record
 * carries VG_RF_ARMSTOP). The target being stopped, no thread can be
 * created between the listing of its threads and the arming, and threads
 * created later inherit the breakpoints. A hit is turned into events in
 * watchset_hit.c. */
#include "watchset_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "monitor/monitor.h"

#define LOUD 5			/* messages of each kind before only counting */

static int nregs_used(const struct vg_watchset *ws)
{
	int n = 0;

	for (int i = 0; i < MAX_REGS; i++)
		n += ws->reg[i].id >= 0;
	return n;
}

/* The bits of a location as its C type makes them (bpf/vigil.bpf.h's
 * convert, for the value read when a breakpoint is armed) */
static uint64_t convert(uint64_t v, uint8_t conv, uint8_t size)
{
	unsigned sh = size >= 1 && size < 8 ? 64 - 8 * size : 0;

	if (conv == VG_CONV_SEXT)
		return (uint64_t)((int64_t)(v << sh) >> sh);
	if (conv == VG_CONV_ZEXT)
		return (v << sh) >> sh;
	if (conv == VG_CONV_BOOL)
		return (v & 0xff) != 0;
	return v;
}

/* Arm a breakpoint; its index in ws->reg, or -1 with e set. */
static int reg_arm(struct vg_watchset *ws, const struct vg_wp *wp,
		   struct vg_err *e)
{
	int i = 0;
	struct reg *r;
	uint64_t v = 0;

	while (ws->reg[i].id >= 0)
		i++;		/* never full: at most VG_WATCH_REGS in use */
	r = &ws->reg[i];
	/* the address first: a hit finds its watch armed, not released
	 * (bpf/released.bpf.h) */
	vg_probe_armed_addr(ws->probe, wp->addr, true);
	r->id = vg_probe_wp_add(ws->probe, ws->pid, wp, e);
	if (r->id < 0) {
		vg_probe_armed_addr(ws->probe, wp->addr, false);
		return -1;
	}
	r->wp = *wp;
	r->refs = 0;
	/* `old` of the first hit: what is there now (little-endian) */
	r->last = vg_ws_peek(ws->pid, wp->addr, &v, wp->len)
		  ? convert(v, wp->conv, wp->len) : 0;
	ws->armed++;
	return i;
}

static void reg_put(struct vg_watchset *ws, int i)
{
	if (--ws->reg[i].refs > 0)
		return;
	vg_probe_wp_del(ws->probe, ws->reg[i].id);
	vg_probe_armed_addr(ws->probe, ws->reg[i].wp.addr, false);
	ws->reg[i].id = -1;
}

static void drop(struct vg_watchset *ws, struct watch *w)
{
	for (int k = 0; k < w->nreg; k++)
		reg_put(ws, w->reg[k]);
	w->used = false;
	ws->drops++;
}

static struct watch *free_watch(struct vg_watchset *ws)
{
	for (int k = 0; k < MAX_WATCHES; k++)
		if (!ws->w[k].used)
			return &ws->w[k];
	return NULL;
}

/* EXPR of a change over the locations' last values */
int64_t vg_ws_change_value(const struct vg_event *ev, const int64_t *cval)
{
	uint64_t slot[VG_NSLOTS] = { 0 };

	for (int k = 0; k < ev->ncloc; k++)
		slot[k] = (uint64_t)cval[k];
	return vg_vm_run(ev->ccode, slot, NULL, NULL, 0, 0);
}

/* what a change starts from: its locations' values when armed */
static void change_start(struct vg_watchset *ws, struct watch *w)
{
	const struct vg_event *ev = &ws->spec->events[w->event];

	if (ev->kind != VG_EV_CHANGE)
		return;
	for (int k = 0; k < w->nreg; k++)
		w->cval[k] = (int64_t)ws->reg[w->reg[k]].last;
	w->clast = vg_ws_change_value(ev, w->cval);
}

/* the plan's watchpoint of location k of global watch event `event` */
static const struct vg_plan_gwatch *gwatch_of(const struct vg_watchset *ws,
					      int event, int k)
{
	for (int i = 0; i < ws->ngwatch; i++)
		if (ws->gwatch[i].event == event && ws->gwatch[i].loc == k)
			return &ws->gwatch[i];
	return NULL;
}

int vg_watchset_start(struct vg_watchset *ws, struct vg_err *e)
{
	if (ws->no_regs)	/* nothing would fire */
		return 0;
	for (int i = 0; i < ws->spec->nevents; i++) {
		const struct vg_event *ev = &ws->spec->events[i];
		bool change = ev->kind == VG_EV_CHANGE;
		struct watch *w;

		if (!vg_event_watches(ev) || ev->wloc.per_slice)
			continue;
		if (!(w = free_watch(ws)))
			return vg_errf(e, "too many watches");
		*w = (struct watch){ .used = true, .global = true,
				     .prop = -1, .event = i };
		for (int k = 0; k < (change ? ev->ncloc : 1); k++) {
			const struct vg_plan_gwatch *g = gwatch_of(ws, i, k);
			struct vg_wp wp;
			int r;

			if (!g) {
				drop(ws, w);
				return vg_errf(e, "no watchpoint planned for %s",
					       ev->name);
			}
			if (nregs_used(ws) == VG_WATCH_REGS) {
				drop(ws, w);
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "%s:%d:%d: '%s' needs a %dth debug register for the spec's globals: x86 has %d debug registers per thread",
						    ev->loc.file, ev->loc.line,
						    ev->loc.col, ev->name,
						    VG_WATCH_REGS + 1, VG_WATCH_REGS);
			}
			if (vg_probe_watch_global(ws->probe, ws->pid, g, &wp, e) ||
			    (r = reg_arm(ws, &wp, e)) < 0) {
				drop(ws, w);
				return -1;
			}
			ws->reg[r].refs = 1;
			w->reg[w->nreg++] = r;
		}
		change_start(ws, w);
	}
	return 0;
}

/* ---- a slice's watches ----------------------------------------------- */

static bool same_slice(const struct watch *w, struct vg_monitor *m,
		       const struct vg_slice_view *s)
{
	if (w->global || w->m != m || w->prop != s->prop || w->mask != s->mask)
		return false;
	for (int j = 0; j < VG_MAX_PARAMS; j++)
		if (s->mask >> j & 1 && w->params[j] != s->params[j])
			return false;
	return true;
}

static void say_slice(char *buf, size_t len, const struct vg_property *p,
		      uint32_t mask, const uint64_t *params)
{
	size_t n = (size_t)snprintf(buf, len, "%s(", p->name);

	for (int j = 0; j < p->nparams && n < len; j++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s%" PRIx64,
				      j ? ", " : "", p->params[j],
				      mask >> j & 1 ? "0x" : "", mask >> j & 1
				      ? params[j] : 0);
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

static void pend_inconclusive(struct vg_watchset *ws, struct vg_monitor *m,
			      int prop, uint32_t mask, const uint64_t *params)
{
	if (ws->npend == MAX_PENDING)
		return;		/* settled after every event: cannot fill */
	ws->pend[ws->npend].m = m;
	ws->pend[ws->npend].prop = prop;
	ws->pend[ws->npend].mask = mask;
	memcpy(ws->pend[ws->npend].params, params,
	       sizeof(ws->pend[0].params));
	ws->npend++;
}

void vg_watchset_settle(struct vg_watchset *ws, struct vg_monitor *m)
{
	bool futile;

	if (!ws)
		return;
	for (int i = 0; i < ws->npend; i++)
		vg_monitor_mark_slice_inconclusive(ws->pend[i].m,
						   ws->pend[i].prop,
						   ws->pend[i].mask,
						   ws->pend[i].params);
	ws->npend = 0;
	ws->arm_late = false;
	/* every register taken and refuse: a hold would arm nothing */
	futile = ws->policy == VG_WATCH_REFUSE &&
		 nregs_used(ws) == VG_WATCH_REGS;
	if (futile || futile != ws->futile) {
		ws->futile = futile;
		vg_probe_holds_futile(ws->probe,
				      futile ? ws->nreleased : UINT64_MAX,
				      futile ? ws->nreleased_inproc : UINT64_MAX);
	}
}

void vg_watchset_set_stale(struct vg_watchset *ws)
{
	if (ws)
		ws->stale = true;
}

void vg_watchset_note(struct vg_watchset *ws, int event, uint16_t flags)
{
	if (!ws || event < 0 || event >= ws->spec->nevents)
		return;
	/* each tier counts its own releases, and its holds read that */
	if (flags & VG_RF_INPROC)
		ws->nreleased_inproc += !!(flags & VG_RF_RELEASE);
	else
		ws->nreleased += !!(flags & VG_RF_RELEASE);
	ws->step_hit = flags & VG_RF_STEPHIT;
	ws->novalue = flags & VG_RF_NOVALUE;
	if (!ws->holds)
		return;
	ws->arm_late = ws->holds[event] && !(flags & VG_RF_ARMSTOP);
	ws->unheld += ws->arm_late;
}

/* Aligned pieces of 8, 4, 2 or 1 bytes covering [a, a + len), at most
 * max; how many, and *covered the bytes they cover. */
static int pieces(uint64_t a, uint64_t len, uint64_t *at, uint8_t *sz,
		  int max, uint64_t *covered)
{
	uint64_t end = a + len;
	int n = 0;

	while (a < end && n < max) {
		uint8_t l = 8;

		while (l > 1 && (a % l || a + l > end))
			l /= 2;
		at[n] = a;
		sz[n++] = l;
		a += l;
	}
	*covered = len - (end - a);
	return n;
}

/* The breakpoints slice s needs for event ev: one location cut in
 * aligned pieces (`*p @ 24`: three), or a change's locations, one each.
 * Returns how many, or -1 (why says). */
static int needs(struct vg_watchset *ws, const struct vg_slice_view *s,
		 int ev, struct vg_wp *wp, const char **why, bool *partial)
{
	struct plan *pl = vg_ws_plan(ws, s->prop, ev);
	const struct vg_event *e = &ws->spec->events[ev];
	uint64_t addr, len, covered, at[VG_WATCH_REGS];
	uint8_t sz[VG_WATCH_REGS];
	int n = 0;

	for (int k = 0; k < pl->nloc; k++) {
		struct loc_plan *l = &pl->loc[k];
		int got;

		if (!vg_ws_where(ws, l, s, &addr, &len, why))
			return -1;
		got = pieces(addr, len, at, sz, e->kind == VG_EV_CHANGE ? 1
			     : VG_WATCH_REGS, &covered);
		if (covered < len && e->kind == VG_EV_CHANGE)
			return *why = "change reads a location that does not fit one debug register (1, 2, 4 or 8 aligned bytes)", -1;
		if (covered < len && partial)
			*partial = true;
		if (covered < len && !l->said_partial) {
			l->said_partial = true;
			fprintf(stderr, "vigil: watchpoints: %s: %llu bytes at 0x%llx, of which the first %llu are watched (%d debug registers); said once\n",
				e->name, (unsigned long long)len,
				(unsigned long long)addr,
				(unsigned long long)covered, VG_WATCH_REGS);
		}
		for (int i = 0; i < got; i++, n++)
			wp[n] = (struct vg_wp){
				.addr = at[i], .len = sz[i],
				.kind = e->kind == VG_EV_READ ||
					e->kind == VG_EV_ACCESS,
				/* a whole element keeps its C type; other
				 * pieces are raw bytes */
				.conv = sz[i] == l->ty.elem &&
					(at[i] - addr) % l->ty.elem == 0
					? l->ty.conv : VG_CONV_ZEXT,
				.event = (uint32_t)ev,
				.base = addr,
			};
	}
	return n;
}

/* could a hit of ev in state `state` of prop stop the target? */
static bool stops(const struct vg_watchset *ws, int prop, int state, int ev)
{
	const struct vg_property *p = &ws->spec->props[prop];

	for (int t = 0; t < p->ntrans; t++)
		if (p->trans[t].from == state && p->trans[t].event == ev &&
		    ws->stop_mask[prop] >> p->trans[t].to & 1)
			return true;
	return false;
}

/* A hit that may stop the target stops the writing thread in the probe,
 * at the faulting instruction; the others do not stop it. */
static void update_flags(struct vg_watchset *ws)
{
	for (int i = 0; i < MAX_REGS; i++) {
		struct reg *r = &ws->reg[i];
		uint8_t f = r->wp.flags & ~VG_WPF_STOP;
		struct vg_err e;

		if (r->id < 0)
			continue;
		for (int k = 0; k < MAX_WATCHES; k++)
			for (int j = 0; ws->w[k].used && !ws->w[k].global &&
			     j < ws->w[k].nreg; j++)
				if (ws->w[k].reg[j] == i &&
				    stops(ws, ws->w[k].prop, ws->w[k].state,
					  ws->w[k].event))
					f |= VG_WPF_STOP;
		if (f != r->wp.flags) {
			r->wp.flags = f;
			if (vg_probe_wp_set(ws->probe, r->id, &r->wp, &e))
				fprintf(stderr, "vigil: watchpoints: %s\n", e.msg);
		}
	}
}

/* the oldest slice's watch, or NULL */
static struct watch *oldest(struct vg_watchset *ws)
{
	struct watch *o = NULL;

	for (int k = 0; k < MAX_WATCHES; k++)
		if (ws->w[k].used && !ws->w[k].global &&
		    (!o || ws->w[k].seq < o->seq))
			o = &ws->w[k];
	return o;
}

/* the oldest watch a violation keeps (watchset_repeat.c), or NULL */
static struct watch *oldest_repeat(struct vg_watchset *ws)
{
	struct watch *o = NULL;

	for (int k = 0; k < MAX_WATCHES; k++)
		if (ws->w[k].used && !ws->w[k].global &&
		    vg_ws_repeat_state(ws, ws->w[k].prop, ws->w[k].state) &&
		    (!o || ws->w[k].seq < o->seq))
			o = &ws->w[k];
	return o;
}

/* which of the n breakpoints wp[] are armed already (have[i] >= 0), and
 * how many are not; why is set when one conflicts with an armed one */
static int count_new(struct vg_watchset *ws, const struct vg_wp *wp, int n,
		     int *have, const char **why)
{
	int need = 0;

	for (int i = 0; i < n; i++) {
		have[i] = -1;
		for (int r = 0; r < MAX_REGS; r++)
			if (ws->reg[r].id >= 0 && ws->reg[r].wp.addr == wp[i].addr) {
				have[i] = r;
				if (ws->reg[r].wp.len != wp[i].len ||
				    ws->reg[r].wp.event != wp[i].event)
					*why = "another watch covers the same address differently";
			}
		need += have[i] < 0;
	}
	return need;
}

static uint64_t bytes_of(const struct vg_wp *wp, int n)
{
	uint64_t b = 0;

	for (int i = 0; i < n; i++)
		b += wp[i].len;
	return b;
}

/* acquire's name of its slice for a message (in who[256]), formatted
 * once and only when said: most refusals are counted, not said (LOUD) */
static const char *who_of(char *who, const struct vg_property *p,
			  const struct vg_slice_view *s)
{
	if (!who[0])
		say_slice(who, 256, p, s->mask, s->params);
	return who;
}

/* Give slice s (of monitor m) a watch on per-slice event ev: arm what is
 * not armed yet, within the budget and the policy. A slice that goes
 * unwatched becomes inconclusive, and vigil says why. */
static void acquire(struct vg_watchset *ws, struct vg_monitor *m,
		    const struct vg_slice_view *s, int ev, bool manual)
{
	const struct vg_property *p = &ws->spec->props[s->prop];
	const char *name = ws->spec->events[ev].name, *why = NULL;
	struct vg_wp wp[VG_WATCH_REGS];
	int n, need, have[VG_WATCH_REGS];
	struct watch *w;
	char who[256] = "";	/* the slice's name, made when said */
	struct vg_err e = { 0 };
	bool partial = false;

	if (ws->no_regs) {
		ws->failed++;	/* said once, at the start */
		pend_inconclusive(ws, m, s->prop, s->mask, s->params);
		return;
	}
	n = needs(ws, s, ev, wp, &why, &partial);
	if (n >= 0 && !free_watch(ws) && oldest_repeat(ws))
		drop(ws, oldest_repeat(ws));
	w = n < 0 ? NULL : free_watch(ws);
	if (n >= 0 && !w)
		why = "too many slices are watched at once";
	need = why ? 0 : count_new(ws, wp, n, have, &why);
	/* a violation's block, kept for its later accesses
	 * (watchset_repeat.c), gives its registers up first, whatever the
	 * policy: its error is reported already */
	while (!why && need > VG_WATCH_REGS - nregs_used(ws)) {
		struct watch *o = oldest_repeat(ws);

		if (!o)
			break;
		drop(ws, o);
		need = count_new(ws, wp, n, have, &why);
	}
	while (!why && need > VG_WATCH_REGS - nregs_used(ws) &&
	       ws->policy == VG_WATCH_EVICT) {
		struct watch *o = oldest(ws);
		char old[256];

		if (!o)
			break;
		say_slice(old, sizeof(old), &ws->spec->props[o->prop],
			  o->mask, o->params);
		if (ws->evicted++ < LOUD)
			fprintf(stderr, "vigil: watchpoints: %s needs %d debug register%s for %s; --watch-policy=evict takes them from %s (%s), the oldest, whose verdict becomes inconclusive\n",
				who_of(who, p, s), need, need == 1 ? "" : "s", name, old,
				ws->spec->events[o->event].name);
		pend_inconclusive(ws, o->m, o->prop, o->mask, o->params);
		drop(ws, o);
		/* what the evicted one shared may be gone now */
		need = count_new(ws, wp, n, have, &why);
	}
	/* refuse, with some registers free but too few: the first pieces,
	 * as many as fit (a block past 32 bytes is watched so too). The
	 * verdict is inconclusive all the same, but the first bytes of a
	 * freed block, where a stale use most often lands, are seen; and
	 * the registers fill, so that the next frees do not each stop the
	 * program for a hold that arms nothing (vg_watchset_settle's
	 * futile: it was ~6 holds per register freed, allocs_bench) */
	if (!why && n > 1 && need > VG_WATCH_REGS - nregs_used(ws) &&
	    nregs_used(ws) < VG_WATCH_REGS) {
		int free_regs = VG_WATCH_REGS - nregs_used(ws), want = need;

		while (!why && n > 1 && need > free_regs)
			need = count_new(ws, wp, --n, have, &why);
		partial = true;
		if (!why && ws->cut++ < LOUD)
			fprintf(stderr, "vigil: watchpoints: %s needs %d debug registers for %s and %d of %d are free; --watch-policy=refuse watches its first %llu bytes: its verdict is inconclusive\n",
				who_of(who, p, s), want, name, free_regs,
				VG_WATCH_REGS, (unsigned long long)bytes_of(wp, n));
	}
	if (!why && need > VG_WATCH_REGS - nregs_used(ws)) {
		if (ws->refused++ < LOUD)
			fprintf(stderr, "vigil: watchpoints: %s needs %d debug register%s for %s and %d of %d are free; --watch-policy=refuse leaves it unwatched: its verdict is inconclusive\n",
				who_of(who, p, s), need, need == 1 ? "" : "s", name,
				VG_WATCH_REGS - nregs_used(ws), VG_WATCH_REGS);
		pend_inconclusive(ws, m, s->prop, s->mask, s->params);
		return;
	}
	if (why) {
		if (ws->failed++ < LOUD)
			fprintf(stderr, "vigil: watchpoints: %s in state %s cannot watch %s: %s; its verdict is inconclusive\n",
				who_of(who, p, s), p->states[s->state].name, name, why);
		pend_inconclusive(ws, m, s->prop, s->mask, s->params);
		return;
	}
	*w = (struct watch){ .used = true, .manual = manual, .m = m,
			     .prop = s->prop, .state = s->state, .event = ev,
			     .mask = s->mask, .seq = ++ws->seq };
	memcpy(w->params, s->params, sizeof(w->params));
	for (int i = 0; i < n; i++) {
		int r = have[i] >= 0 ? have[i] : reg_arm(ws, &wp[i], &e);

		if (r < 0) {
			if (ws->failed++ < LOUD)
				fprintf(stderr, "vigil: watchpoints: %s cannot watch %s: %s%s; its verdict is inconclusive\n",
					who_of(who, p, s), name, e.msg, errno == ENOSPC
					? " (the program or a debugger holds some of the debug registers)" : "");
			drop(ws, w);
			pend_inconclusive(ws, m, s->prop, s->mask, s->params);
			return;
		}
		ws->reg[r].refs++;
		w->reg[w->nreg++] = r;
	}
	/* watched in part (a block past the 32 bytes of four registers): an
	 * access past them goes unseen, so the verdict cannot be accepting;
	 * armed late (the probe did not hold the thread, a hold having been
	 * futile when it ran): an access before the arming went unseen */
	if (partial || ws->arm_late)
		pend_inconclusive(ws, m, s->prop, s->mask, s->params);
	change_start(ws, w);
}

/* `on enter S: watch EXPR` / `unwatch EXPR`, and on leave: the events of
 * the property watching EXPR, for this slice, by hand */
static void reactions(struct vg_watchset *ws, struct vg_monitor *m,
		      const struct vg_slice_view *s, int state, bool enter)
{
	const struct vg_property *p = &ws->spec->props[s->prop];

	for (int r = 0; r < p->nreactions; r++) {
		const struct vg_reaction *re = &p->reactions[r];

		if (re->state != state || re->on_enter != enter)
			continue;
		for (int a = 0; a < re->nactions; a++) {
			const struct vg_action *act = &re->actions[a];
			bool on = act->kind == VG_ACT_WATCH;

			if (!on && act->kind != VG_ACT_UNWATCH)
				continue;
			for (int ev = 0; ev < ws->spec->nevents; ev++) {
				struct watch *w = NULL;

				if (!vg_ws_plan(ws, s->prop, ev)->on ||
				    strcmp(ws->spec->events[ev].name,
					   act->arg ? act->arg : ""))
					continue;
				for (int k = 0; k < MAX_WATCHES && !w; k++)
					if (ws->w[k].used && ws->w[k].manual &&
					    ws->w[k].event == ev &&
					    same_slice(&ws->w[k], m, s))
						w = &ws->w[k];
				if (on && !w)
					acquire(ws, m, s, ev, true);
				else if (!on && w)
					drop(ws, w);
			}
		}
	}
}

/* Memory slice s now holds (an allocation handed it out) is no freed
 * block any more, whatever address the freed block had (glibc merges
 * free chunks and hands them out at other addresses): the registers
 * another slice of the property holds on any of it for the same event go
 * (the rule the calls' ranges follow, watchset_ranges.c). A freed block's
 * slice becomes inconclusive (what comes later to the bytes it had is the
 * new block's); a violation's (watchset_repeat.c) reports no more. */
static void release_overlaps(struct vg_watchset *ws, struct vg_monitor *m,
			     const struct vg_slice_view *s)
{
	const int *evs;
	int nev = vg_ws_slice_events(ws, s->prop, &evs);

	/* (a violation hands nothing out) */
	if (ws->spec->props[s->prop].states[s->state].kind ==
	    VG_STATE_VIOLATION)
		return;
	for (int i = 0; i < nev; i++) {
		int ev = evs[i];
		struct plan *pl = vg_ws_plan(ws, s->prop, ev);
		uint64_t addr, len;
		const char *why;

		if (vg_ws_consumes(ws, s->prop, s->state, ev) ||
		    (!s->vars && pl->loc[0].base_var) ||
		    !vg_ws_where(ws, &pl->loc[0], s, &addr, &len, &why) ||
		    len > UINT64_MAX - addr)
			continue;
		for (int k = 0; k < MAX_WATCHES; k++) {
			struct watch *w = &ws->w[k];
			bool hit = false;

			if (!w->used || w->global || w->manual || w->m != m ||
			    w->prop != s->prop || w->event != ev ||
			    same_slice(w, m, s))
				continue;
			for (int j = 0; j < w->nreg && !hit; j++) {
				const struct vg_wp *wp = &ws->reg[w->reg[j]].wp;

				hit = wp->addr < addr + len &&
				      wp->addr + wp->len > addr;
			}
			if (!hit)
				continue;
			if (vg_ws_repeat_state(ws, w->prop, w->state))
				vg_ws_repeat_forget(ws, m, w->prop, w->mask,
						    w->params);
			else
				pend_inconclusive(ws, m, w->prop, w->mask,
						  w->params);
			drop(ws, w);
		}
	}
}

/* does w still cover what slice s needs for its event? */
static bool still_right(struct vg_watchset *ws, const struct watch *w,
			const struct vg_slice_view *s)
{
	struct vg_wp wp[VG_WATCH_REGS];
	const char *why;
	int n;

	if (!vg_ws_consumes(ws, s->prop, s->state, w->event) ||
	    (n = needs(ws, s, w->event, wp, &why, NULL)) != w->nreg)
		return false;
	for (int i = 0; i < n; i++)
		if (ws->reg[w->reg[i]].wp.addr != wp[i].addr ||
		    ws->reg[w->reg[i]].wp.len != wp[i].len)
			return false;
	return true;
}

void vg_watchset_transition(struct vg_watchset *ws, struct vg_monitor *m,
			    const struct vg_slice_view *s, int from, int to)
{
	bool changed = false;
	int off;

	/* (a repeated violation's report: nothing moves) */
	if (!ws || !ws->prop_on[s->prop] || ws->repeating)
		return;
	vg_ws_ranges_transition(ws, m, s, to);
	vg_ws_repeat_transition(ws, m, s, from, to);
	release_overlaps(ws, m, s);
	off = ws->state_off[s->prop] + to;
	/* what the slice holds and no longer needs, or needs elsewhere (its
	 * variables changed the address or the count) */
	for (int k = 0; k < MAX_WATCHES; k++) {
		struct watch *w = &ws->w[k];

		if (!w->used || !same_slice(w, m, s))
			continue;
		changed |= w->state != s->state;
		w->state = s->state;
		if (!w->manual && !still_right(ws, w, s)) {
			drop(ws, w);
			changed = true;
		}
	}
	if (from != to)
		reactions(ws, m, s, from, false);
	reactions(ws, m, s, to, true);
	/* a violation keeps what it holds, and takes nothing more */
	for (int k = 0; !vg_ws_repeat_state(ws, s->prop, to) &&
			k < ws->ncons[off]; k++) {
		int ev = ws->cons[off][k];
		bool held = false;

		for (int i = 0; i < MAX_WATCHES && !held; i++)
			held = ws->w[i].used && !ws->w[i].manual &&
			       ws->w[i].event == ev && same_slice(&ws->w[i], m, s);
		if (!held) {
			uint64_t seq = ws->seq, drops = ws->drops;

			/* a slice refused (every register taken) changes no
			 * register's flags */
			acquire(ws, m, s, ev, false);
			changed |= ws->seq != seq || ws->drops != drops;
		}
	}
	if (changed)
		update_flags(ws);
}

void vg_watchset_finish(struct vg_watchset *ws, FILE *out)
{
	if (ws && ws->no_regs) {
		fprintf(out, "vigil: watchpoints: 0 armed: this machine's debug registers do not fire");
		if (ws->failed)
			fprintf(out, "; %llu watch%s not armed",
				(unsigned long long)ws->failed,
				ws->failed == 1 ? "" : "es");
		fputc('\n', out);
		return;
	}
	if (!ws || !ws->armed)
		return;
	fprintf(out, "vigil: watchpoints: %llu armed, %llu hits",
		(unsigned long long)ws->armed, (unsigned long long)ws->hits);
	if (ws->seq || ws->refused || ws->failed)	/* some slice's */
		fprintf(out, ", %llu slices refused, %llu watched in part, %llu evicted, %llu could not be watched (--watch-policy=%s)",
			(unsigned long long)ws->refused,
			(unsigned long long)ws->cut,
			(unsigned long long)ws->evicted,
			(unsigned long long)ws->failed,
			ws->policy == VG_WATCH_EVICT ? "evict" : "refuse");
	if (ws->unheld)
		fprintf(out, ", %llu holds skipped (every register taken)",
			(unsigned long long)ws->unheld);
	if (ws->step_hits)
		fprintf(out, ", %llu hits at a probe's single step not trusted (their slices are inconclusive)",
			(unsigned long long)ws->step_hits);
	if (ws->novalue_hits)
		fprintf(out, ", %llu hits on blocks handed out again, their values not read (their slices are inconclusive)",
			(unsigned long long)ws->novalue_hits);
	if (ws->repeats)
		fprintf(out, ", %llu violations again from new places",
			(unsigned long long)ws->repeats);
	fputc('\n', out);
	vg_ws_quiet_finish(ws, out);
}
