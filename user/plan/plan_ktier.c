/* Which properties can run inside the probe, and their tables, as the
 * plan decides them (probe/ktier.c writes the tables into the loaded
 * object's maps).
 *
 * The BPF interpreter is deliberately small (bpf/kstep.bpf.h), so a property
 * is eligible only when everything it needs fits it: every event binds every
 * slice parameter (no joins: a join would need to scan slices in the probe),
 * at most VG_KMAX_PARAMS parameters and VG_KMAX_VARS integer variables, no
 * globals (shared state across slices would need a second lock), and code
 * within the interpreter's bounds; a timed one needs a kernel whose timer
 * can stop a thread (the caller says whether it can: no_ktimer). */
#include "plan.h"
#include "vigil_ktimer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool code_in_subset(const struct vg_property *p,
			   struct vg_code_ref r)
{
	for (uint32_t i = r.off; i < r.off + r.len; i++)
		if (p->code[i].op == VG_OP_LDGLOB ||
		    p->code[i].op == VG_OP_STGLOB)
			return false;
	return true;
}

/* mem_ok: its memory predicates aside (the in-process tier's agent has
 * an object map, and so have the BPF probes where that tier is off:
 * plan_memfast.c) */
static const char *ineligible(const struct vg_spec *spec, int prop,
			      bool no_ktimer, bool mem_ok, char *buf,
			      size_t len)
{
	const struct vg_property *p = &spec->props[prop];
	uint32_t all = (1u << p->nparams) - 1;
	int k, line = 0;

	/* the kernel tier answers VG_OP_MEM only with an object map of its
	 * own, the agent's or the probes' (plan_memfast.c decides); without
	 * one, the map the predicates ask is vigil's (user/objmap/) */
	if (!mem_ok && (k = vg_property_mem_pred(p, &line)) >= 0) {
		snprintf(buf, len, "line %d: uses %s(): the object map is in user space",
			 line, vg_mem_pred_name(k));
		return buf;
	}
	if (p->nparams > VG_KMAX_PARAMS)
		snprintf(buf, len, "it slices on %d parameters (the kernel tier takes %d)",
			 p->nparams, VG_KMAX_PARAMS);
	else if (p->nvars > VG_KMAX_VARS)
		snprintf(buf, len, "it has %d variables (the kernel tier takes %d)",
			 p->nvars, VG_KMAX_VARS);
	else if (p->nglobals)
		snprintf(buf, len, "global variable '%s' is shared across slices",
			 p->globals[0].name);
	else if (p->nstates > VG_KMAX_STATES)
		snprintf(buf, len, "it has %d states (the kernel tier takes %d)",
			 p->nstates, VG_KMAX_STATES);
	else if (p->timed && no_ktimer)
		snprintf(buf, len, "it has a timeout, and this kernel cannot stop a thread from a timer (bpf_send_signal_task, Linux 6.13)");
	else if (p->nbindings > VG_KMAX_BINDINGS)
		snprintf(buf, len, "it uses %d distinct events (the kernel tier takes %d)",
			 p->nbindings, VG_KMAX_BINDINGS);
	else
		buf[0] = 0;
	if (buf[0])
		return buf;
	for (int i = 0; i < p->nvars; i++)
		if (p->vars[i].type == VG_TYPE_STR) {
			snprintf(buf, len, "variable '%s' is a string",
				 p->vars[i].name);
			return buf;
		}
	for (int i = 0; i < p->nbindings; i++) {
		const struct vg_event *ev = &spec->events[p->bindings[i].event];

		if (ev->kind != VG_EV_BEFORE && ev->kind != VG_EV_AFTER) {
			snprintf(buf, len, "event %s%s%s is not a function call",
				 vg_event_kind_name(ev->kind),
				 ev->name[0] ? " " : "", ev->name);
			return buf;
		}
		/* its probe is the sleepable build, which has no kernel
		 * tier (bpf/vigil.bpf.h) */
		if (ev->nstrs) {
			snprintf(buf, len, "%s %s reads a C string (str)",
				 vg_event_kind_name(ev->kind), ev->name);
			return buf;
		}
		if (p->bindings[i].mask != all) {
			snprintf(buf, len, "%s %s binds only some slice parameters (a join)",
				 vg_event_kind_name(ev->kind), ev->name);
			return buf;
		}
	}
	for (int i = 0; i < p->ntrans; i++) {
		const struct vg_transition *t = &p->trans[i];
		int same = 0;

		if (t->guard.len > VG_KMAX_PROG || t->update.len > VG_KMAX_PROG) {
			snprintf(buf, len, "line %d: guard or update longer than %d instructions",
				 t->loc.line, VG_KMAX_PROG);
			return buf;
		}
		if (!code_in_subset(p, t->guard) ||
		    !code_in_subset(p, t->update)) {
			snprintf(buf, len, "line %d: uses a global variable",
				 t->loc.line);
			return buf;
		}
		for (int j = 0; j < i; j++)
			same += p->trans[j].from == t->from &&
				p->trans[j].event == t->event;
		if (same >= VG_KMAX_TRANS) {
			snprintf(buf, len, "line %d: more than %d transitions of state %s on one event",
				 t->loc.line, VG_KMAX_TRANS,
				 p->states[t->from].name);
			return buf;
		}
	}
	return NULL;
}

const char *vg_ktier_ineligible(const struct vg_spec *spec, int prop,
				bool no_ktimer, char *buf, size_t len)
{
	return ineligible(spec, prop, no_ktimer, false, buf, len);
}

bool vg_ktier_mem_only(const struct vg_spec *spec, int prop, bool no_ktimer)
{
	char why[256];
	int line;

	return vg_property_mem_pred(&spec->props[prop], &line) >= 0 &&
	       !ineligible(spec, prop, no_ktimer, true, why, sizeof(why));
}

bool vg_ktier_any_eligible(const struct vg_spec *spec, bool no_ktimer)
{
	char why[256];

	for (int i = 0; i < spec->nprops; i++)
		if (!vg_ktier_ineligible(spec, i, no_ktimer, why, sizeof(why)))
			return true;
	return false;
}

uint32_t vg_ktimer_states(const struct vg_property *p)
{
	uint32_t m = 0;

	for (int s = 0; s < p->nstates && s < 32; s++)
		if (p->states[s].timed)
			m |= 1u << s;
	return m;
}

static uint32_t state_mask(const struct vg_property *p, bool violation_only,
			   bool with_reaction)
{
	uint32_t m = 0;

	for (int s = 0; s < p->nstates; s++) {
		if (violation_only && p->states[s].kind == VG_STATE_VIOLATION)
			m |= 1u << s;
		if (with_reaction)
			for (int r = 0; r < p->nreactions; r++)
				if (p->reactions[r].state == s)
					m |= 1u << s;
	}
	return m;
}

static uint32_t ckpt_states(const struct vg_property *p)
{
	uint32_t m = 0;

	for (int s = 0; s < p->nstates && s < 32; s++)
		if (vg_property_state_has_action(p, s, true, VG_ACT_CHECKPOINT))
			m |= 1u << s;
	return m;
}

/* --- fast forms (see struct vg_kexpr) --------------------------------- */

static bool operand(const struct vg_insn *in, struct vg_kopnd *o)
{
	memset(o, 0, sizeof(*o));
	switch (in->op) {
	case VG_OP_PUSH:
		o->kind = VG_KO_IMM;
		o->imm = in->imm;
		return true;
	case VG_OP_FIELD:
		o->kind = VG_KO_FIELD;
		break;
	case VG_OP_LDVAR:
		o->kind = VG_KO_VAR;
		break;
	case VG_OP_PARAM:
		o->kind = VG_KO_PARAM;
		break;
	default:
		return false;
	}
	o->idx = in->idx;
	return true;
}

static bool is_binop(uint8_t op)
{
	return op >= VG_OP_ADD && op <= VG_OP_GEU;
}

/* `a` or `a OP b` at code[*pc]; advances *pc past it. */
static bool expr_at(const struct vg_insn *code, uint32_t end, uint32_t *pc,
		    struct vg_kexpr *x)
{
	uint32_t i = *pc;

	memset(x, 0, sizeof(*x));
	if (i >= end || !operand(&code[i], &x->a))
		return false;
	x->op = VG_OP_END;
	if (i + 2 < end && operand(&code[i + 1], &x->b) &&
	    is_binop(code[i + 2].op)) {
		x->op = code[i + 2].op;
		*pc = i + 3;
		return true;
	}
	*pc = i + 1;
	return true;
}

static bool fast_guard(const struct vg_property *p, struct vg_code_ref r,
		       struct vg_kexpr *x)
{
	uint32_t pc = r.off, end = r.off + r.len;

	return r.len && expr_at(p->code, end, &pc, x) && pc < end &&
	       p->code[pc].op == VG_OP_END;
}

static int fast_update(const struct vg_property *p, struct vg_code_ref r,
		       struct vg_kexpr *x)
{
	uint32_t pc = r.off, end = r.off + r.len;
	int n = 0;

	while (r.len && pc < end && p->code[pc].op != VG_OP_END) {
		if (n == VG_KFAST_STMTS || !expr_at(p->code, end, &pc, &x[n]) ||
		    pc >= end || p->code[pc].op != VG_OP_STVAR)
			return 0;
		x[n++].dst = p->code[pc++].idx;
	}
	return pc < end ? n : 0;
}

static int binding_of(const struct vg_property *p, int event)
{
	for (int b = 0; b < p->nbindings; b++)
		if (p->bindings[b].event == event)
			return b;
	return 0;	/* the checker gives every used event a binding */
}

/* Property prop as kernel property k: its row, its code from *code_base
 * on, its transitions grouped by (state, event) in source order */
static int plan_prop(struct vg_plan *plan, int prop, int k,
		     struct vg_err *e)
{
	const struct vg_spec *spec = plan->spec;
	const struct vg_property *p = &spec->props[prop];
	struct vg_plan_ktables *kt = &plan->kt;
	struct vg_kprop kp = {
		.nparams = p->nparams,
		.nvars = p->nvars,
		.violation_mask = state_mask(p, true, false),
		.stop_mask = plan->stop_masks[prop],
		.notify_mask = state_mask(p, false, true),
		.ckpt_mask = ckpt_states(p),
		.timed_mask = vg_ktimer_states(p),
		.deadline_var = p->timed ? (uint32_t)p->deadline_var : 0,
	};
	uint32_t base = kt->ncode;
	int tbase = 0;	/* transitions of the properties before this one */
	void *np;

	for (int i = 0; i < prop; i++)
		tbase += spec->props[i].ntrans;
	for (int i = 0; i < p->nvars; i++)
		kp.init_vars[i] = p->vars[i].init;
	for (int b = 0; b < p->nbindings; b++)
		if (p->bindings[b].creates)
			kp.create_mask |= 1u << b;
	kt->kprops[k] = kp;
	kt->code_base[k] = base;
	if (base + p->ncode > VG_KMAX_CODE)
		return vg_errf(e, "kernel tier: more than %d instructions of code in all",
			       VG_KMAX_CODE);
	np = realloc(kt->code, (base + p->ncode + 1) * sizeof(*kt->code));
	if (!np)
		return vg_errf(e, "out of memory");
	kt->code = np;
	if (p->ncode)	/* a property without guards or updates has none */
		memcpy(kt->code + base, p->code, p->ncode * sizeof(*kt->code));
	kt->ncode = base + p->ncode;

	for (int i = 0; i < p->ntrans; i++) {
		const struct vg_transition *t = &p->trans[i];
		struct vg_plan_ktrans *pk;
		struct vg_ktrans *x;
		bool first = true;

		for (int j = 0; j < i; j++)
			if (p->trans[j].from == t->from &&
			    p->trans[j].event == t->event)
				first = false;
		if (!first)
			continue;
		np = realloc(kt->trans, (kt->ntrans + 1) * sizeof(*kt->trans));
		if (!np)
			return vg_errf(e, "out of memory");
		kt->trans = np;
		pk = &kt->trans[kt->ntrans++];
		memset(pk, 0, sizeof(*pk));
		pk->index = VG_KTRANS_INDEX(k, t->from, binding_of(p, t->event));
		x = &pk->t;
		for (int j = i; j < p->ntrans; j++) {
			const struct vg_transition *u = &p->trans[j];

			if (u->from != t->from || u->event != t->event)
				continue;
			x->t[x->n].guard_off = base + u->guard.off;
			x->t[x->n].guard_len = u->guard.len;
			x->t[x->n].upd_off = base + u->update.off;
			x->t[x->n].upd_len = u->update.len;
			x->t[x->n].to = u->to;
			x->t[x->n].spec_index = (uint16_t)(tbase + j);
			x->t[x->n].guard_fast =
				fast_guard(p, u->guard, &x->t[x->n].guard);
			x->t[x->n].upd_fast =
				fast_update(p, u->update, x->t[x->n].upd);
			x->n++;
			/* a self-loop without update changes nothing, unless
			 * the state has a reaction that must see it */
			x->moves |= u->to != u->from || u->update.len ||
				    (kp.notify_mask >> u->from & 1) ||
				    p->states[u->to].timed;	/* restarts */
		}
	}
	return 0;
}

/* does the code at r read a slice's own values (its variables)? The
 * slice's parameters are the event's values in this tier (every binding
 * binds them all), so a guard that reads none asks the event alone */
static bool reads_slice(const struct vg_property *p, struct vg_code_ref r)
{
	for (uint32_t pc = r.off; pc < r.off + r.len; pc++)
		if (p->code[pc].op == VG_OP_LDVAR ||
		    p->code[pc].op == VG_OP_LDGLOB)
			return true;
	return false;
}

/* vg_ev_conf.kpre of binding b: 1 + the one state its transitions
 * leave, when each of them has a guard that asks the event alone; else
 * 0. When none of those guards holds, the event changes no slice of the
 * property, whatever state it is in (a slice in a violation state starts
 * again only through a transition of the initial state), so the step
 * need not look the slice up (inproc/kstep.c) */
static uint8_t pre_state(const struct vg_property *p, int b)
{
	int from = -1;

	for (int i = 0; i < p->ntrans; i++) {
		const struct vg_transition *u = &p->trans[i];

		if (binding_of(p, u->event) != b)
			continue;
		if ((from >= 0 && u->from != from) || !u->guard.len ||
		    reads_slice(p, u->guard))
			return 0;
		from = u->from;
	}
	return from >= 0 && from < VG_KMAX_STATES ? (uint8_t)(from + 1) : 0;
}

int vg_ktier_plan(struct vg_plan *plan, struct vg_err *e)
{
	const struct vg_spec *spec = plan->spec;
	int k = 0;

	for (int prop = 0; prop < spec->nprops; prop++) {
		const struct vg_property *p = &spec->props[prop];

		if (!plan->kernel[prop])
			continue;
		if (k == VG_KMAX_PROPS)
			return vg_errf(e, "kernel tier: more than %d properties; run some with --tier=user",
				       VG_KMAX_PROPS);
		if (plan_prop(plan, prop, k, e))
			return -1;
		for (int b = 0; b < p->nbindings; b++) {
			struct vg_ev_conf *c =
				&plan->events[p->bindings[b].event].conf;

			if (c->nkprops == VG_KMAX_EV_PROPS)
				return vg_errf(e, "kernel tier: more than %d properties on event %s",
					       VG_KMAX_EV_PROPS,
					       spec->events[p->bindings[b].event].name);
			if (p->timed)	/* one clock read (vigil_ktimer.h) */
				c->flags |= VG_EVF_KTIME;
			c->kprop[c->nkprops] = k;
			c->kbind[c->nkprops] = b;
			c->kpre[c->nkprops] = pre_state(p, b);
			for (int i = 0; i < VG_KMAX_PARAMS; i++)
				c->kslot[c->nkprops][i] =
					i < p->nparams ? p->bindings[b].slot[i] : 0;
			c->nkprops++;
		}
		plan->kt.kprop_map[k++] = prop;
	}
	plan->kt.nkprops = k;
	return 0;
}

void vg_ktier_fill(const struct vg_plan_ktables *kt, struct vg_kprop *kprops,
		   struct vg_ktrans *ktrans, struct vg_insn *kcode)
{
	for (int k = 0; k < kt->nkprops && k < VG_KMAX_PROPS; k++)
		kprops[k] = kt->kprops[k];
	for (uint32_t i = 0; i < kt->ncode && i < VG_KMAX_CODE; i++)
		kcode[i] = kt->code[i];
	/* the index is VG_KTRANS_INDEX's, masked to the table already */
	for (int i = 0; i < kt->ntrans; i++)
		ktrans[kt->trans[i].index] = kt->trans[i].t;
}
