/* The watchpoints of a live run (user/session/watchset.h).
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
 * created later inherit the breakpoints. */
#include "watchset.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "monitor/monitor.h"
#include "probe/probe.h"

#define MAX_WATCHES 64		/* slices' watches at once: each holds a
				 * register, or shares one */
#define MAX_PENDING 32
#define MAX_CONS 8		/* per-slice watch events one state consumes */
#define LOUD 5			/* messages of each kind before only counting */

/* How property p finds the address of per-slice watch event ev */
struct plan {
	bool on;
	int base;		/* slice parameter or variable index */
	bool base_var;
	enum { CNT_ONE, CNT_CONST, CNT_PARAM, CNT_VAR } count_kind;
	int64_t count;		/* CNT_CONST: the count; else the index */
	struct vg_wp_type ty;
	bool said_partial;
};

struct reg {
	int id;			/* the probe's breakpoint; -1: free */
	struct vg_wp wp;
	bool global;
	uint64_t last;		/* `old` of the next hit */
	int refs;
};

struct watch {
	bool used, manual;	/* manual: a `watch` reaction asked */
	struct vg_monitor *m;	/* the monitor of its slice */
	int prop, state, event;
	uint32_t mask;
	uint64_t params[VG_MAX_PARAMS];
	int reg[VG_WATCH_REGS], nreg;
	uint64_t seq;		/* arming order: eviction takes the oldest */
};

struct vg_watchset {
	const struct vg_spec *spec;
	struct vg_probe *probe;
	pid_t pid;
	enum vg_watch_policy policy;
	const uint32_t *stop_mask;	/* [nprops]: copied */
	struct plan *plan;		/* [nprops * nevents] */
	bool *prop_on;			/* [nprops]: has per-slice watches */
	int *state_off;			/* [nprops]: into cons / ncons */
	int (*cons)[MAX_CONS];		/* per state: events it consumes */
	int *ncons;
	struct reg reg[2 * VG_WATCH_REGS];
	struct watch w[MAX_WATCHES];
	uint64_t seq;
	struct {
		struct vg_monitor *m;
		int prop;
		uint32_t mask;
		uint64_t params[VG_MAX_PARAMS];
	} pend[MAX_PENDING];
	int npend;
	uint64_t armed, hits, late, refused, evicted, failed;
};

static struct plan *plan_of(struct vg_watchset *ws, int prop, int event)
{
	return &ws->plan[prop * ws->spec->nevents + event];
}

static bool per_slice(const struct vg_spec *spec, int event)
{
	return vg_event_is_watch(&spec->events[event]) &&
	       spec->events[event].wloc.per_slice;
}

/* Does a reaction on entering `to` of p ask for a watch? */
static bool state_watches(const struct vg_property *p, int to)
{
	return vg_property_state_has_action(p, to, true, VG_ACT_WATCH);
}

bool *vg_watchset_holds(const struct vg_spec *spec, const bool *kernel,
			bool *oom)
{
	bool *hold = NULL, any = false;

	*oom = false;
	for (int p = 0; p < spec->nprops; p++) {
		const struct vg_property *pr = &spec->props[p];

		if (kernel[p])
			continue;
		for (int t = 0; t < pr->ntrans; t++) {
			int to = pr->trans[t].to;
			bool arms = state_watches(pr, to);

			for (int u = 0; !arms && u < pr->ntrans; u++)
				arms = pr->trans[u].from == to &&
				       per_slice(spec, pr->trans[u].event);
			if (!arms)
				continue;
			if (!hold &&
			    !(hold = calloc(spec->nevents + 1, sizeof(bool)))) {
				*oom = true;
				return NULL;
			}
			hold[pr->trans[t].event] = any = true;
		}
	}
	return any ? hold : (free(hold), NULL);
}

/* the function event that gives parameter j of p its value: the C type
 * of the pointer */
static int typed_source(const struct vg_spec *spec, const struct vg_property *p,
			int j, int *slot)
{
	for (int b = 0; b < p->nbindings; b++) {
		const struct vg_event *ev = &spec->events[p->bindings[b].event];

		if ((ev->kind == VG_EV_BEFORE || ev->kind == VG_EV_AFTER) &&
		    p->bindings[b].slot[j] != VG_UNBOUND) {
			*slot = p->bindings[b].slot[j];
			return p->bindings[b].event;
		}
	}
	return -1;
}

static int plan_one(struct vg_watchset *ws, int prop, int event,
		    struct vg_err *e)
{
	const struct vg_property *p = &ws->spec->props[prop];
	const struct vg_event *ev = &ws->spec->events[event];
	const struct vg_watch_loc *w = &ev->wloc;
	struct plan *pl = plan_of(ws, prop, event);
	int src, slot = 0, idx;
	bool is_var;

	pl->on = true;
	pl->base = vg_watch_name(p, w->base, &pl->base_var);
	if (w->count[0] >= '0' && w->count[0] <= '9') {
		pl->count_kind = CNT_CONST;
		pl->count = strtoll(w->count, NULL, 10);
	} else if (w->count[0]) {
		idx = vg_watch_name(p, w->count, &is_var);
		pl->count_kind = is_var ? CNT_VAR : CNT_PARAM;
		pl->count = idx;
	}
	src = pl->base_var ? -1 : typed_source(ws->spec, p, pl->base, &slot);
	if (src < 0) {
		/* a variable, or a parameter no function gives: no C type,
		 * so bytes, and only *v @ n says how many */
		if (w->path[0] || !w->count[0])
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s:%d:%d: %s has no C type (%s): watch *%s @ n, n bytes",
					    ev->loc.file, ev->loc.line, ev->loc.col,
					    w->base, pl->base_var ? "a slice variable"
					    : "no function call gives it", w->base);
		pl->ty = (struct vg_wp_type){ .nsteps = 1, .elem = 1,
					      .void_target = true };
		return 0;
	}
	if (vg_probe_watch_type(ws->probe, ws->spec->events[src].name, slot,
				w->path, &pl->ty, e))
		return vg_errf_code(e, VG_EXIT_USAGE, "%s:%d:%d: watching %s: %.3900s",
				    ev->loc.file, ev->loc.line, ev->loc.col,
				    ev->name, e->msg);
	if (pl->ty.void_target && !w->count[0])
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s:%d:%d: %s points to void (or to a type DWARF does not give): say how many bytes, *%s @ n",
				    ev->loc.file, ev->loc.line, ev->loc.col,
				    w->base, w->base);
	return 0;
}

struct vg_watchset *vg_watchset_new(const struct vg_spec *spec,
				    const bool *kernel, struct vg_probe *probe,
				    pid_t pid, const uint32_t *stop_mask,
				    enum vg_watch_policy policy,
				    struct vg_err *e)
{
	struct vg_watchset *ws = calloc(1, sizeof(*ws));
	int nstates = 0, np = spec->nprops, ne = spec->nevents;
	uint32_t *sm;

	if (!ws)
		goto oom;
	ws->spec = spec;
	ws->probe = probe;
	ws->pid = pid;
	ws->policy = policy;
	for (size_t i = 0; i < sizeof(ws->reg) / sizeof(ws->reg[0]); i++)
		ws->reg[i].id = -1;
	for (int p = 0; p < np; p++)
		nstates += spec->props[p].nstates;
	ws->plan = calloc((size_t)np * ne + 1, sizeof(*ws->plan));
	ws->prop_on = calloc(np + 1, sizeof(bool));
	ws->state_off = calloc(np + 1, sizeof(int));
	ws->cons = calloc(nstates + 1, sizeof(*ws->cons));
	ws->ncons = calloc(nstates + 1, sizeof(int));
	ws->stop_mask = sm = calloc(np + 1, sizeof(uint32_t));
	if (!ws->plan || !ws->prop_on || !ws->state_off || !ws->cons ||
	    !ws->ncons || !sm)
		goto oom;
	memcpy(sm, stop_mask, np * sizeof(uint32_t));
	nstates = 0;
	for (int p = 0; p < np; p++) {
		const struct vg_property *pr = &spec->props[p];

		ws->state_off[p] = nstates;
		nstates += pr->nstates;
		if (kernel[p])
			continue;
		for (int s = 0; s < pr->nstates; s++)
			ws->prop_on[p] |= state_watches(pr, s);
		for (int t = 0; t < pr->ntrans; t++) {
			int ev = pr->trans[t].event, k;
			int *c = ws->cons[ws->state_off[p] + pr->trans[t].from];
			int *n = &ws->ncons[ws->state_off[p] + pr->trans[t].from];

			if (!per_slice(spec, ev))
				continue;
			ws->prop_on[p] = true;
			for (k = 0; k < *n && c[k] != ev; k++)
				;
			if (k == *n && *n == MAX_CONS) {
				vg_errf_code(e, VG_EXIT_USAGE, "%s:%d:%d: more than %d watch events in one state",
					     pr->trans[t].loc.file,
					     pr->trans[t].loc.line,
					     pr->trans[t].loc.col, MAX_CONS);
				goto fail;
			}
			if (k == *n)
				c[(*n)++] = ev;
			if (!plan_of(ws, p, ev)->on && plan_one(ws, p, ev, e))
				goto fail;
		}
	}
	return ws;
oom:
	vg_errf(e, "out of memory");
fail:
	vg_watchset_free(ws);
	return NULL;
}

void vg_watchset_free(struct vg_watchset *ws)
{
	if (!ws)
		return;
	for (size_t i = 0; i < sizeof(ws->reg) / sizeof(ws->reg[0]); i++)
		if (ws->reg[i].id >= 0)
			vg_probe_wp_del(ws->probe, ws->reg[i].id);
	free(ws->plan);
	free(ws->prop_on);
	free(ws->state_off);
	free(ws->cons);
	free(ws->ncons);
	free((void *)ws->stop_mask);
	free(ws);
}

/* len bytes of the target at addr; false when it cannot be read */
static bool peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len;
}

static int nregs_used(const struct vg_watchset *ws)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(ws->reg) / sizeof(ws->reg[0]); i++)
		n += ws->reg[i].id >= 0;
	return n;
}

/* Arm a breakpoint; its index in ws->reg, or -1 with e set. */
static int reg_arm(struct vg_watchset *ws, const struct vg_wp *wp,
		   bool global, struct vg_err *e)
{
	size_t i = 0;
	struct reg *r;
	uint64_t v = 0;

	while (ws->reg[i].id >= 0)
		i++;		/* never full: at most VG_WATCH_REGS in use */
	r = &ws->reg[i];
	r->id = vg_probe_wp_add(ws->probe, ws->pid, wp, e);
	if (r->id < 0)
		return -1;
	r->wp = *wp;
	r->global = global;
	r->refs = 0;
	/* `old` of the first hit: what is there now (little-endian) */
	if (peek(ws->pid, wp->addr, &v, wp->len))
		r->last = v;
	ws->armed++;
	return (int)i;
}

static void reg_put(struct vg_watchset *ws, int i)
{
	if (--ws->reg[i].refs > 0)
		return;
	vg_probe_wp_del(ws->probe, ws->reg[i].id);
	ws->reg[i].id = -1;
}

int vg_watchset_start(struct vg_watchset *ws, struct vg_err *e)
{
	int nglob = 0;

	for (int i = 0; i < ws->spec->nevents; i++) {
		const struct vg_event *ev = &ws->spec->events[i];
		struct vg_wp wp;
		int r;

		if (!vg_event_is_watch(ev) || ev->wloc.per_slice)
			continue;
		if (++nglob > VG_WATCH_REGS)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s:%d:%d: a %dth watched global, '%s': x86 has %d debug registers per thread",
					    ev->loc.file, ev->loc.line, ev->loc.col,
					    nglob, ev->name, VG_WATCH_REGS);
		if (vg_probe_watch_global(ws->probe, ws->pid, i, &wp, e) ||
		    (r = reg_arm(ws, &wp, true, e)) < 0)
			return -1;
		ws->reg[r].refs = 1;
	}
	return 0;
}

/* ---- a slice's watches ----------------------------------------------- */

static bool same_slice(const struct watch *w, struct vg_monitor *m,
		       const struct vg_slice_view *s)
{
	if (w->m != m || w->prop != s->prop || w->mask != s->mask)
		return false;
	for (int j = 0; j < VG_MAX_PARAMS; j++)
		if (s->mask >> j & 1 && w->params[j] != s->params[j])
			return false;
	return true;
}

static void say_slice(const struct vg_watchset *ws, char *buf, size_t len,
		      const struct vg_property *p, uint32_t mask,
		      const uint64_t *params)
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
	if (!ws)
		return;
	for (int i = 0; i < ws->npend; i++)
		vg_monitor_mark_slice_inconclusive(ws->pend[i].m,
						   ws->pend[i].prop,
						   ws->pend[i].mask,
						   ws->pend[i].params);
	ws->npend = 0;
}

static void drop(struct vg_watchset *ws, struct watch *w)
{
	for (int k = 0; k < w->nreg; k++)
		reg_put(ws, w->reg[k]);
	w->used = false;
}

/* The memory slice s needs for event ev of its property: [*addr, +*len).
 * False (why says) when it cannot be known. */
static bool where(struct vg_watchset *ws, const struct plan *pl,
		  const struct vg_slice_view *s, uint64_t *addr,
		  uint64_t *len, const char **why)
{
	uint64_t a, n = 1;

	if (pl->base_var)
		a = (uint64_t)s->vars[pl->base];
	else if (s->mask >> pl->base & 1)
		a = s->params[pl->base];
	else
		return *why = "its pointer is not bound", false;
	for (uint32_t i = 0; i + 1 < pl->ty.nsteps; i++)
		if (!a || !peek(ws->pid, a + pl->ty.off[i], &a, sizeof(a)))
			return *why = "a pointer on the way could not be read", false;
	if (!a)
		return *why = "the pointer is null", false;
	a += pl->ty.off[pl->ty.nsteps ? pl->ty.nsteps - 1 : 0];
	if (pl->count_kind == CNT_CONST)
		n = (uint64_t)pl->count;
	else if (pl->count_kind == CNT_VAR)
		n = (uint64_t)s->vars[pl->count];
	else if (pl->count_kind == CNT_PARAM)
		n = s->mask >> pl->count & 1 ? s->params[pl->count] : 0;
	if (!n || n > (1ull << 32))
		return *why = "the count is 0 or out of range", false;
	*addr = a;
	*len = n * pl->ty.elem;
	return true;
}

/* Aligned pieces of 8, 4, 2 or 1 bytes covering [a, a + len), at most
 * VG_WATCH_REGS; how many, and *covered the bytes they cover. */
static int pieces(uint64_t a, uint64_t len, uint64_t *at, uint8_t *sz,
		  uint64_t *covered)
{
	uint64_t end = a + len;
	int n = 0;

	while (a < end && n < VG_WATCH_REGS) {
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
	for (size_t i = 0; i < sizeof(ws->reg) / sizeof(ws->reg[0]); i++) {
		struct reg *r = &ws->reg[i];
		uint8_t f = r->wp.flags & ~VG_WPF_STOP;
		struct vg_err e;

		if (r->id < 0 || r->global)
			continue;
		for (int k = 0; k < MAX_WATCHES; k++)
			for (int j = 0; ws->w[k].used && j < ws->w[k].nreg; j++)
				if (ws->w[k].reg[j] == (int)i &&
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


/* the oldest watch other than keep, or NULL */
static struct watch *oldest(struct vg_watchset *ws, const struct watch *keep)
{
	struct watch *o = NULL;

	for (int k = 0; k < MAX_WATCHES; k++)
		if (ws->w[k].used && &ws->w[k] != keep &&
		    (!o || ws->w[k].seq < o->seq))
			o = &ws->w[k];
	return o;
}

/* Give slice s (of monitor m, in state) a watch on per-slice event ev:
 * arm what is not armed yet, within the budget and the policy. A slice
 * that goes unwatched becomes inconclusive, and vigil says why. */
static void acquire(struct vg_watchset *ws, struct vg_monitor *m,
		    const struct vg_slice_view *s, int ev, bool manual)
{
	const struct vg_property *p = &ws->spec->props[s->prop];
	struct plan *pl = plan_of(ws, s->prop, ev);
	const char *why = NULL;
	uint64_t addr, len, covered, at[VG_WATCH_REGS];
	uint8_t sz[VG_WATCH_REGS];
	int n, need = 0, have[VG_WATCH_REGS];
	struct watch *w = NULL;
	char who[256];
	struct vg_err e = { 0 };

	say_slice(ws, who, sizeof(who), p, s->mask, s->params);
	if (!where(ws, pl, s, &addr, &len, &why)) {
		if (ws->failed++ < LOUD)
			fprintf(stderr, "vigil: watchpoints: %s in state %s cannot watch %s: %s; its verdict is inconclusive\n",
				who, p->states[s->state].name,
				ws->spec->events[ev].name, why);
		pend_inconclusive(ws, m, s->prop, s->mask, s->params);
		return;
	}
	n = pieces(addr, len, at, sz, &covered);
	if (covered < len && !pl->said_partial) {
		pl->said_partial = true;
		fprintf(stderr, "vigil: watchpoints: %s: %llu bytes at 0x%llx for %s, of which the first %llu are watched (%d debug registers)\n",
			ws->spec->events[ev].name, (unsigned long long)len,
			(unsigned long long)addr, who,
			(unsigned long long)covered, VG_WATCH_REGS);
	}
	for (int k = 0; k < MAX_WATCHES && !w; k++)
		if (!ws->w[k].used)
			w = &ws->w[k];
	/* registers already armed on the same bytes for the same event are
	 * shared; other overlaps cannot be (one address, one event) */
	for (int i = 0; i < n; i++) {
		have[i] = -1;
		for (size_t r = 0; r < sizeof(ws->reg) / sizeof(ws->reg[0]); r++)
			if (ws->reg[r].id >= 0 && ws->reg[r].wp.addr == at[i]) {
				have[i] = (int)r;
				if (ws->reg[r].wp.len != sz[i] ||
				    ws->reg[r].wp.event != (uint32_t)ev)
					why = "another watch covers the same address differently";
			}
		need += have[i] < 0;
	}
	if (!w)
		why = "too many slices are watched at once";
	while (!why && need > VG_WATCH_REGS - nregs_used(ws) &&
	       ws->policy == VG_WATCH_EVICT) {
		struct watch *o = oldest(ws, NULL);
		char old[256];

		if (!o)
			break;
		say_slice(ws, old, sizeof(old), &ws->spec->props[o->prop],
			  o->mask, o->params);
		if (ws->evicted++ < LOUD)
			fprintf(stderr, "vigil: watchpoints: %s needs %d debug register%s for %s; --watch-policy=evict takes them from %s (%s), the oldest, whose verdict becomes inconclusive\n",
				who, need, need == 1 ? "" : "s",
				ws->spec->events[ev].name, old,
				ws->spec->events[o->event].name);
		pend_inconclusive(ws, o->m, o->prop, o->mask, o->params);
		drop(ws, o);
		/* what the evicted one shared may be gone now */
		need = 0;
		for (int i = 0; i < n; i++) {
			if (have[i] >= 0 && ws->reg[have[i]].id < 0)
				have[i] = -1;
			need += have[i] < 0;
		}
	}
	if (!why && need > VG_WATCH_REGS - nregs_used(ws)) {
		if (ws->refused++ < LOUD)
			fprintf(stderr, "vigil: watchpoints: %s needs %d debug register%s for %s and %d of %d are free; --watch-policy=refuse leaves it unwatched: its verdict is inconclusive\n",
				who, need, need == 1 ? "" : "s",
				ws->spec->events[ev].name,
				VG_WATCH_REGS - nregs_used(ws), VG_WATCH_REGS);
		pend_inconclusive(ws, m, s->prop, s->mask, s->params);
		return;
	}
	if (why) {
		if (ws->failed++ < LOUD)
			fprintf(stderr, "vigil: watchpoints: %s cannot watch %s: %s; its verdict is inconclusive\n",
				who, ws->spec->events[ev].name, why);
		pend_inconclusive(ws, m, s->prop, s->mask, s->params);
		return;
	}
	*w = (struct watch){ .used = true, .manual = manual, .m = m,
			     .prop = s->prop, .state = s->state, .event = ev,
			     .mask = s->mask, .seq = ++ws->seq };
	memcpy(w->params, s->params, sizeof(w->params));
	for (int i = 0; i < n; i++) {
		struct vg_wp wp = {
			.addr = at[i], .len = sz[i],
			.kind = ws->spec->events[ev].kind != VG_EV_WRITE,
			/* one whole element keeps its C type; other
			 * pieces are raw bytes */
			.conv = sz[i] == pl->ty.elem &&
				(at[i] - addr) % pl->ty.elem == 0
				? pl->ty.conv : VG_CONV_ZEXT,
			.event = (uint32_t)ev,
			.flags = ws->spec->events[ev].wloc.noutside
				 ? VG_WPF_OUTSIDE : 0,
		};
		int r = have[i] >= 0 ? have[i] : reg_arm(ws, &wp, false, &e);

		if (r < 0) {
			if (ws->failed++ < LOUD)
				fprintf(stderr, "vigil: watchpoints: %s cannot watch %s: %s%s; its verdict is inconclusive\n",
					who, ws->spec->events[ev].name, e.msg,
					errno == ENOSPC ? " (the program or a debugger holds some of the debug registers)" : "");
			drop(ws, w);
			pend_inconclusive(ws, m, s->prop, s->mask, s->params);
			return;
		}
		ws->reg[r].refs++;
		w->reg[w->nreg++] = r;
	}
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
				const struct vg_event *x = &ws->spec->events[ev];
				struct watch *w = NULL;

				if (!plan_of(ws, s->prop, ev)->on ||
				    strcmp(x->name, act->arg ? act->arg : ""))
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

static bool consumes(const struct vg_watchset *ws, int prop, int state,
		     int ev)
{
	int off = ws->state_off[prop] + state;

	for (int k = 0; k < ws->ncons[off]; k++)
		if (ws->cons[off][k] == ev)
			return true;
	return false;
}

void vg_watchset_transition(struct vg_watchset *ws, struct vg_monitor *m,
			    const struct vg_slice_view *s, int from, int to)
{
	int off;
	bool changed = false;

	if (!ws || !ws->prop_on[s->prop])
		return;
	off = ws->state_off[s->prop] + to;
	/* what the slice holds and no longer needs, or needs elsewhere
	 * (its variables changed the address or the count) */
	for (int k = 0; k < MAX_WATCHES; k++) {
		struct watch *w = &ws->w[k];
		uint64_t addr, len, covered, at[VG_WATCH_REGS];
		uint8_t sz[VG_WATCH_REGS];
		const char *why;
		bool same;

		if (!w->used || !same_slice(w, m, s))
			continue;
		changed |= w->state != s->state;
		w->state = s->state;
		if (w->manual)
			continue;
		same = consumes(ws, s->prop, to, w->event) &&
		       where(ws, plan_of(ws, s->prop, w->event), s, &addr,
			     &len, &why) &&
		       pieces(addr, len, at, sz, &covered) == w->nreg;
		for (int i = 0; same && i < w->nreg; i++)
			same = ws->reg[w->reg[i]].wp.addr == at[i] &&
			       ws->reg[w->reg[i]].wp.len == sz[i];
		if (!same) {
			drop(ws, w);
			changed = true;
		}
	}
	if (from != to)
		reactions(ws, m, s, from, false);
	reactions(ws, m, s, to, true);
	for (int k = 0; k < ws->ncons[off]; k++) {
		int ev = ws->cons[off][k];
		bool held = false;

		for (int i = 0; i < MAX_WATCHES && !held; i++)
			held = ws->w[i].used && !ws->w[i].manual &&
			       ws->w[i].event == ev && same_slice(&ws->w[i], m, s);
		if (!held) {
			acquire(ws, m, s, ev, false);
			changed = true;
		}
	}
	if (changed)
		update_flags(ws);
}

int vg_watchset_hit(struct vg_watchset *ws, struct vg_monitor *m,
		    struct vg_mon_event *ev, struct vg_err *e)
{
	struct { int prop; uint64_t params[VG_MAX_PARAMS]; struct vg_monitor *m; } to[MAX_WATCHES];
	struct reg *r = NULL;
	int n = 0;

	for (size_t i = 0; ws && i < sizeof(ws->reg) / sizeof(ws->reg[0]); i++)
		if (ws->reg[i].id >= 0 &&
		    ws->reg[i].wp.addr == ev->slot[VG_WSLOT_ADDR])
			r = &ws->reg[i];
	if (!r) {		/* a hit on its way while it was disarmed */
		if (ws)
			ws->late++;
		return 0;
	}
	ws->hits++;
	ev->slot[VG_WSLOT_OLD] = r->last;
	r->last = ev->slot[VG_WSLOT_VALUE];
	if (r->global)
		return vg_monitor_event(m, ev, e);
	/* the slices that armed it: collected first, since feeding one may
	 * move watches */
	for (int k = 0; k < MAX_WATCHES; k++)
		for (int j = 0; ws->w[k].used && j < ws->w[k].nreg; j++)
			if (&ws->reg[ws->w[k].reg[j]] == r) {
				to[n].prop = ws->w[k].prop;
				to[n].m = ws->w[k].m;
				memcpy(to[n].params, ws->w[k].params,
				       sizeof(to[n].params));
				n++;
				break;
			}
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < VG_MAX_PARAMS; j++)
			ev->slot[VG_WSLOT_PARAM0 + j] = to[i].params[j];
		if (vg_monitor_event_prop(to[i].m, to[i].prop, ev, e))
			return -1;
	}
	return 0;
}

void vg_watchset_finish(struct vg_watchset *ws, FILE *out)
{
	if (!ws || !ws->armed)
		return;
	fprintf(out, "vigil: watchpoints: %llu armed, %llu hits, %llu slices refused, %llu evicted, %llu could not be watched (--watch-policy=%s)\n",
		(unsigned long long)ws->armed, (unsigned long long)ws->hits,
		(unsigned long long)ws->refused,
		(unsigned long long)ws->evicted,
		(unsigned long long)ws->failed,
		ws->policy == VG_WATCH_EVICT ? "evict" : "refuse");
}
