/* State timeouts (`state s within 200ms else -> late`, docs/LANGUAGE.md,
 * Time): a binary min-heap of deadlines beside the slice store.
 *
 * A slice that enters a timed state gets its deadline in the property's
 * hidden variable "(deadline)" and one heap entry naming it (property,
 * bound parameters, state, deadline). Leaving the state sets the variable
 * to 0 and leaves the entry where it is: an entry fires only if its slice
 * still exists, is in that state and holds that very deadline, so
 * cancelling costs nothing and re-entering (a new deadline) makes the old
 * entry stale. Stale entries go when their deadline passes; the heap thus
 * holds at most the timed-state entries of the last `limit` of time.
 *
 * Time is the events' clock: vg_monitor_event first fires every deadline
 * at or before the event's time (an event at the deadline itself comes
 * after the timeout), and the live session fires those before "now" when
 * no event comes (vg_monitor_expire). A timeout is an event like any other
 * for the hook, of the spec's "timeout" event, at time_ns = the deadline,
 * so a replay of a recording computes the same as the live run did. Ties
 * between deadlines go by arming order, which a replay repeats too. */
#include "monitor_internal.h"

#include <stdlib.h>

static bool before(const struct vg_timer *a, const struct vg_timer *b)
{
	return a->deadline < b->deadline ||
	       (a->deadline == b->deadline && a->order < b->order);
}

static void sift_down(struct vg_timers *tm, size_t i);

/* Is the entry still what its slice waits for? */
static bool valid(struct vg_monitor *m, const struct vg_timer *t,
		  struct vg_rec **rp, uint32_t *refp)
{
	struct prop_rt *pr = &m->pr[t->prop];
	struct vg_mstore *ms = &pr->st.ms[t->mask];
	struct vg_rec *r;
	uint32_t ref;

	if (!pr->evaluate || !ms->nlive)
		return false;
	ref = vg_store_find(ms, t->params, vg_store_hash(t->mask, t->params));
	if (ref == VG_REF_NONE || (ref & VG_REF_TOMB))
		return false;
	r = vg_store_rec(ms, ref);
	if (r->state != t->state ||
	    (uint64_t)vg_rec_vars(ms, r)[pr->p->deadline_var] != t->deadline)
		return false;
	if (rp)
		*rp = r;
	if (refp)
		*refp = ref;
	return true;
}

/* Mostly stale entries (slices that left their timed state long before
 * the deadline: every lock released in time): drop them and heapify, so
 * the heap follows the slices that wait rather than the event rate. */
static void compact(struct vg_monitor *m)
{
	struct vg_timers *tm = &m->tm;
	size_t k = 0;

	for (size_t i = 0; i < tm->n; i++)
		if (valid(m, &tm->h[i], NULL, NULL))
			tm->h[k++] = tm->h[i];
	tm->n = k;
	for (size_t i = k / 2; i-- > 0;)
		sift_down(tm, i);
	tm->compactions++;
}

static int push(struct vg_monitor *m, const struct vg_timer *t)
{
	struct vg_timers *tm = &m->tm;
	size_t i;

	/* a full heap is compacted, and grows only if that freed less than
	 * half of it: at least cap/2 pushes between two compactions */
	if (tm->n == tm->cap) {
		size_t n = tm->cap ? 2 * tm->cap : 64;
		struct vg_timer *h;

		if (tm->n >= 4096)
			compact(m);
		if (tm->n == 0 || tm->n > tm->cap / 2) {
			h = realloc(tm->h, n * sizeof(*h));
			if (!h)
				return -1;
			tm->h = h;
			tm->cap = n;
		}
	}
	i = tm->n++;
	tm->h[i] = *t;
	tm->h[i].order = tm->order++;
	while (i && before(&tm->h[i], &tm->h[(i - 1) / 2])) {
		struct vg_timer x = tm->h[i];

		tm->h[i] = tm->h[(i - 1) / 2];
		tm->h[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
	return 0;
}

static void pop(struct vg_timers *tm)
{
	tm->h[0] = tm->h[--tm->n];
	sift_down(tm, 0);
}

static void sift_down(struct vg_timers *tm, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		struct vg_timer x;

		if (l < tm->n && before(&tm->h[l], &tm->h[s]))
			s = l;
		if (r < tm->n && before(&tm->h[r], &tm->h[s]))
			s = r;
		if (s == i)
			return;
		x = tm->h[i];
		tm->h[i] = tm->h[s];
		tm->h[s] = x;
		i = s;
	}
}

void vg_timers_free(struct vg_monitor *m)
{
	free(m->tm.h);
	m->tm.h = NULL;
	m->tm.n = m->tm.cap = 0;
}

static void arm(struct vg_monitor *m, struct prop_rt *pr, uint32_t mask,
		const uint64_t *params, int state, uint64_t deadline,
		const struct vg_mon_event *ev)
{
	struct vg_timer t = {
		.deadline = deadline, .mask = mask,
		.prop = (uint16_t)(pr - m->pr), .state = (uint16_t)state,
	};

	for (int i = 0; i < pr->k; i++)
		t.params[i] = mask & (1u << i) ? params[i] : 0;
	if (ev) {
		t.entered = ev->time_ns;
		t.pid = ev->pid;
		t.tid = ev->tid;
		t.seq = ev->seq;
		t.stack = ev->slot[VG_SLOT_STACK];
		t.caller = ev->slot[VG_SLOT_CALLER];
	}
	if (push(m, &t))
		pr->inconclusive = true;	/* out of memory: may miss it */
}

void vg_timer_enter(struct vg_monitor *m, struct prop_rt *pr, uint32_t mask,
		    const uint64_t *params, int to, int64_t *vars,
		    const struct vg_mon_event *ev)
{
	const struct vg_property *p = pr->p;
	const struct vg_state *st = &p->states[to];
	struct vg_vm_ctx x;
	uint64_t deadline;

	if (!st->timed) {
		vars[p->deadline_var] = 0;
		return;
	}
	x = (struct vg_vm_ctx){
		.code = p->code + st->deadline.off, .len = st->deadline.len,
		.slot = ev->slot, .params = params, .vars = vars,
		.nvars = pr->nvars, .globals = pr->globals,
		.nglobals = pr->nglobals, .tid = ev->tid,
		.time_ns = ev->time_ns,
	};
	deadline = (uint64_t)vg_vm_exec(&x);
	/* a timeout into a state whose deadline has passed already (a
	 * clock's bound, not reset on the way) would fire forever */
	if (!deadline || (m->firing && deadline <= ev->time_ns)) {
		vars[p->deadline_var] = 0;
		return;
	}
	vars[p->deadline_var] = (int64_t)deadline;
	arm(m, pr, mask, params, to, deadline, ev);
}

void vg_timer_copy(struct vg_monitor *m, struct prop_rt *pr, uint32_t mask,
		   const uint64_t *params, int state, const int64_t *vars)
{
	if (pr->p->timed && pr->p->states[state].timed &&
	    vars[pr->p->deadline_var])
		arm(m, pr, mask, params, state,
		    (uint64_t)vars[pr->p->deadline_var], NULL);
}

uint64_t vg_monitor_next_deadline(const struct vg_monitor *m)
{
	return m->tm.n ? m->tm.h[0].deadline : UINT64_MAX;
}

/* One entry whose deadline came: the slice takes its timeout if it is
 * still waiting for this one. */
static int fire(struct vg_monitor *m, const struct vg_timer *t, uint64_t now,
		struct vg_err *e)
{
	struct prop_rt *pr = &m->pr[t->prop];
	const struct vg_property *p = pr->p;
	struct vg_mstore *ms = &pr->st.ms[t->mask];
	const struct vg_state *st = &p->states[t->state];
	struct vg_mon_event ev = {
		.event = p->timeout_event, .pid = t->pid, .tid = t->tid,
		.time_ns = t->deadline, .seq = t->seq,
	};
	struct vg_vm_ctx x;
	struct vg_rec *r;
	uint32_t ref;
	int64_t *vars;
	int to;

	if (!valid(m, t, &r, &ref))
		return 0;	/* left, or entered again since */
	vars = vg_rec_vars(ms, r);
	ev.slot[VG_TSLOT_ENTERED] = t->entered;
	ev.slot[VG_TSLOT_LIMIT] = t->entered ? t->deadline - t->entered : 0;
	ev.slot[VG_TSLOT_FIRED] = now;
	ev.slot[VG_TSLOT_STATE] = t->state;
	ev.slot[VG_SLOT_STACK] = t->stack;
	ev.slot[VG_SLOT_CALLER] = t->caller;
	if (st->timeout_update.len) {
		x = (struct vg_vm_ctx){
			.code = p->code + st->timeout_update.off,
			.len = st->timeout_update.len, .slot = ev.slot,
			.params = t->params, .vars = vars, .nvars = pr->nvars,
			.globals = pr->globals, .nglobals = pr->nglobals,
			.tid = t->tid, .time_ns = t->deadline,
		};
		vg_vm_exec(&x);
	}
	to = st->timeout_to;
	r->state = (uint16_t)to;
	m->s.timeouts++;
	m->firing = true;
	vg_timer_enter(m, pr, t->mask, t->params, to, vars, &ev);
	m->firing = false;
	vg_mon_call_hook(m, t->prop, t->mask, t->params, to, -1, vars,
			 r->flags & VG_SF_INCONC, t->state, &ev);
	if (pr->viol[to] || (to == 0 && vg_vars_initial(pr, vars))) {
		if (vg_mon_fin_push(m, t->mask, ref, e))
			return -1;
		return vg_mon_finalise(m, pr, e);
	}
	return 0;
}

int vg_monitor_expire(struct vg_monitor *m, uint64_t now, struct vg_err *e)
{
	int fired = 0;

	while (m->tm.n && m->tm.h[0].deadline <= now) {
		struct vg_timer t = m->tm.h[0];
		uint64_t before_tr = m->s.transitions;

		pop(&m->tm);
		if (fire(m, &t, now, e))
			return -1;
		fired += m->s.transitions != before_tr;
	}
	return fired;
}
