/* Accesses after a violation, reported per code location
 * (user/watchset/watchset.h, vg_watchset_set_repeat).
 *
 * A slice that reaches a violation through one of its per-slice watch
 * events (an access to a freed block) is a finished instance: the
 * monitor's tombstone absorbs every later event of it. memcheck reports
 * each distinct place that touches a freed block (an error per kind and
 * call stack), and a run that goes on past the violation (its state not
 * in the stop mask: --on-violation=continue) can too. Such a violation
 * state consumes the watch event that led there (watchset_plan.c), so the
 * block stays watched, by the registers it held and by the calls, until
 * the allocator hands it out again (the slice's next life), and a hit on
 * it comes here instead of to the monitor: an access from a call stack
 * not yet reported for the block is reported as the same violation
 * again, through the session's transition hook (report, reactions,
 * sinks), with the variables the slice had when it got there. The same
 * stack again is not reported twice (memcheck counts it once). The
 * monitor's semantics are unchanged: this is a report of the watchset.
 * At most MAX_REPEATS blocks and MAX_KEYS locations per block are kept;
 * past that nothing more is reported (never something false). A register
 * a tombstone holds is given up first when a live freed block needs one
 * (watchset.c, acquire). */
#include "watchset_internal.h"

#include <stdlib.h>
#include <string.h>

#include "callacc.h"
#include "monitor/monitor.h"

#define MAX_REPEATS 256
#define MAX_KEYS 16

struct rep {
	bool used;
	bool inconclusive;
	struct vg_monitor *m;
	int prop, from, state;
	uint32_t mask;
	uint64_t params[VG_MAX_PARAMS];
	int64_t vars[VG_KMAX_VARS];
	uint64_t keys[MAX_KEYS];
	int nkeys;
};

struct vg_ws_repeats {
	struct rep r[MAX_REPEATS];
};

void vg_watchset_set_repeat(struct vg_watchset *ws, vg_ws_repeat_fn fn,
			    void *ctx)
{
	if (!ws)
		return;
	ws->on_repeat = fn;
	ws->repeat_ctx = ctx;
}

static bool same(const struct rep *r, struct vg_monitor *m, int prop,
		 uint32_t mask, const uint64_t *params)
{
	if (!r->used || r->m != m || r->prop != prop || r->mask != mask)
		return false;
	for (int j = 0; j < VG_MAX_PARAMS; j++)
		if (mask >> j & 1 && r->params[j] != params[j])
			return false;
	return true;
}

static struct rep *find(struct vg_watchset *ws, struct vg_monitor *m,
			int prop, uint32_t mask, const uint64_t *params)
{
	for (int i = 0; ws->reps && i < MAX_REPEATS; i++)
		if (same(&ws->reps->r[i], m, prop, mask, params))
			return &ws->reps->r[i];
	return NULL;
}

bool vg_ws_repeat_state(const struct vg_watchset *ws, int prop, int state)
{
	const struct vg_property *p = &ws->spec->props[prop];

	return p->states[state].kind == VG_STATE_VIOLATION &&
	       ws->ncons[ws->state_off[prop] + state] > 0;
}

uint64_t vg_ws_repeat_key(const struct vg_spec *spec,
			  const struct vg_mon_event *ev)
{
	/* the user stack's id (the kernel keeps one id per distinct
	 * stack); a call without one: the call and its caller */
	uint64_t k = ev->slot[VG_SLOT_STACK];

	if (spec->events[ev->event].access_for)
		k = k * 1000003u ^ ev->slot[VG_SLOT_CALLER] * 31u ^
		    (uint64_t)ev->event << 48;
	return k;
}

void vg_ws_repeat_transition(struct vg_watchset *ws, struct vg_monitor *m,
			     const struct vg_slice_view *s, int from, int to)
{
	const struct vg_property *p = &ws->spec->props[s->prop];
	struct rep *r = find(ws, m, s->prop, s->mask, s->params);

	if (r)		/* the block's next life, or a new violation */
		r->used = false;
	if (!vg_ws_repeat_state(ws, s->prop, to) || !s->vars ||
	    (!ws->reps && !(ws->reps = calloc(1, sizeof(*ws->reps)))))
		return;
	for (int i = 0; i < MAX_REPEATS && !r; i++)
		if (!ws->reps->r[i].used)
			r = &ws->reps->r[i];
	if (!r)
		return;		/* full: no more repeats of this block */
	*r = (struct rep){ .used = true, .inconclusive = s->inconclusive,
			   .m = m, .prop = s->prop, .from = from, .state = to,
			   .mask = s->mask };
	memcpy(r->params, s->params, sizeof(r->params));
	for (int v = 0; v < p->nvars && v < VG_KMAX_VARS; v++)
		r->vars[v] = s->vars[v];
	/* the access that got it there is reported */
	if (ws->have_key)
		r->keys[r->nkeys++] = ws->cur_key;
}

bool vg_ws_repeat_hit(struct vg_watchset *ws, struct vg_monitor *m, int prop,
		      uint32_t mask, const uint64_t *params,
		      const struct vg_mon_event *ev, uint64_t key)
{
	struct rep *r = find(ws, m, prop, mask, params);
	struct vg_slice_view v;

	if (!r)
		return false;
	for (int i = 0; i < r->nkeys; i++)
		if (r->keys[i] == key)
			return true;	/* this place again: reported */
	if (r->nkeys == MAX_KEYS || !ws->on_repeat)
		return true;
	r->keys[r->nkeys++] = key;
	ws->repeats++;
	v = (struct vg_slice_view){
		.prop = r->prop, .mask = r->mask, .params = r->params,
		.state = r->state, .vars = r->vars,
		.inconclusive = r->inconclusive, .trans = -1,
	};
	ws->repeating = true;
	ws->on_repeat(ws->repeat_ctx, &v, r->from, r->state, ev);
	ws->repeating = false;
	return true;
}

void vg_ws_repeat_forget(struct vg_watchset *ws, struct vg_monitor *m,
			 int prop, uint32_t mask, const uint64_t *params)
{
	struct rep *r = find(ws, m, prop, mask, params);

	if (r)
		r->used = false;
}

void vg_ws_repeats_free(struct vg_watchset *ws)
{
	free(ws->reps);
	ws->reps = NULL;
}
