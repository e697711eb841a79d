/* Builds compiled specs (struct vg_spec) by hand for the monitor tests and
 * benchmark, so that they do not depend on the parser. Fixed capacities:
 * these are small test specs. Everything is freed by mb_free. */
#ifndef VIGIL_TEST_MONITOR_BUILDER_H
#define VIGIL_TEST_MONITOR_BUILDER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor.h"

#define MB_MAX 64
#define MB_CODE 1024

#define INS(o, i, m) ((struct vg_insn){ .op = (o), .idx = (i), .imm = (m) })
#define I_END INS(VG_OP_END, 0, 0)
#define I_PUSH(v) INS(VG_OP_PUSH, 0, (v))
#define I_FIELD(i) INS(VG_OP_FIELD, (i), 0)
#define I_PARAM(i) INS(VG_OP_PARAM, (i), 0)
#define I_LDV(i) INS(VG_OP_LDVAR, (i), 0)
#define I_STV(i) INS(VG_OP_STVAR, (i), 0)
#define I_LDG(i) INS(VG_OP_LDGLOB, (i), 0)
#define I_STG(i) INS(VG_OP_STGLOB, (i), 0)
#define I_OP(o) INS((o), 0, 0)

struct mb {
	struct vg_spec spec;
	struct vg_property *p;		/* the property being built */
};

static inline void mb_init(struct mb *b)
{
	memset(b, 0, sizeof(*b));
	b->spec.events = calloc(MB_MAX, sizeof(struct vg_event));
	b->spec.props = calloc(MB_MAX, sizeof(struct vg_property));
}

static inline int mb_event(struct mb *b, const char *name, int nfields)
{
	struct vg_event *ev = &b->spec.events[b->spec.nevents];

	ev->kind = VG_EV_NAMED;
	ev->name = (char *)name;
	ev->nfields = nfields;
	return b->spec.nevents++;
}

/* Start a property; params are the names of its slice parameters. */
static inline int mb_prop(struct mb *b, const char *name, int nparams, ...)
{
	struct vg_property *p = &b->spec.props[b->spec.nprops];
	va_list ap;

	p->name = (char *)name;
	p->description = (char *)"";
	p->nparams = nparams;
	va_start(ap, nparams);
	for (int i = 0; i < nparams; i++) {
		p->params[i] = va_arg(ap, char *);
		p->param_types[i] = VG_TYPE_INT;
	}
	va_end(ap);
	p->vars = calloc(MB_MAX, sizeof(struct vg_var));
	p->globals = calloc(MB_MAX, sizeof(struct vg_var));
	p->states = calloc(MB_MAX, sizeof(struct vg_state));
	p->trans = calloc(MB_MAX, sizeof(struct vg_transition));
	p->bindings = calloc(MB_MAX, sizeof(struct vg_binding));
	p->code = calloc(MB_CODE, sizeof(struct vg_insn));
	b->p = p;
	return b->spec.nprops++;
}

static inline int mb_var(struct mb *b, const char *name, int64_t init)
{
	struct vg_var *v = &b->p->vars[b->p->nvars];

	v->name = (char *)name;
	v->type = VG_TYPE_INT;
	v->init = init;
	return b->p->nvars++;
}

static inline int mb_global(struct mb *b, const char *name, int64_t init)
{
	struct vg_var *v = &b->p->globals[b->p->nglobals];

	v->name = (char *)name;
	v->type = VG_TYPE_INT;
	v->init = init;
	return b->p->nglobals++;
}

static inline int mb_state(struct mb *b, const char *name,
			   enum vg_state_kind kind)
{
	struct vg_state *s = &b->p->states[b->p->nstates];

	s->name = (char *)name;
	s->kind = kind;
	return b->p->nstates++;
}

/* How event binds the parameters: one slot per parameter, VG_UNBOUND for
 * none (pass exactly nparams values). */
static inline void mb_bind(struct mb *b, int event, ...)
{
	struct vg_binding *bd = &b->p->bindings[b->p->nbindings++];
	va_list ap;

	bd->event = event;
	memset(bd->slot, VG_UNBOUND, sizeof(bd->slot));
	va_start(ap, event);
	for (int i = 0; i < b->p->nparams; i++) {
		bd->slot[i] = (uint8_t)va_arg(ap, int);
		if (bd->slot[i] != VG_UNBOUND)
			bd->mask |= 1u << i;
	}
	va_end(ap);
}

/* The event creates what it binds (an allocator's return, a `creation`
 * event): it may start a binding's next life over a tombstone. After its
 * mb_bind. */
static inline void mb_creates(struct mb *b, int event)
{
	for (int i = 0; i < b->p->nbindings; i++)
		if (b->p->bindings[i].event == event)
			b->p->bindings[i].creates = true;
}

static inline struct vg_code_ref mb_code(struct mb *b,
					 const struct vg_insn *code, int n)
{
	struct vg_code_ref r = { (uint32_t)b->p->ncode, (uint32_t)n };

	memcpy(&b->p->code[b->p->ncode], code, n * sizeof(*code));
	b->p->ncode += n;
	return r;
}

/* A transition; guard/update are arrays ending with I_END (or NULL). */
static inline int mb_trans_code(struct mb *b, int from, int event, int to,
				const struct vg_insn *guard, int nguard,
				const struct vg_insn *update, int nupdate)
{
	struct vg_transition *t = &b->p->trans[b->p->ntrans];

	t->from = from;
	t->to = to;
	t->event = event;
	t->binding = -1;
	for (int i = 0; i < b->p->nbindings; i++)
		if (b->p->bindings[i].event == event)
			t->binding = i;
	if (guard)
		t->guard = mb_code(b, guard, nguard);
	if (update)
		t->update = mb_code(b, update, nupdate);
	return b->p->ntrans++;
}

#define MB_N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define mb_trans(b, from, ev, to) mb_trans_code(b, from, ev, to, NULL, 0, NULL, 0)
#define mb_trans_g(b, from, ev, to, g) \
	mb_trans_code(b, from, ev, to, g, MB_N(g), NULL, 0)
#define mb_trans_u(b, from, ev, to, u) \
	mb_trans_code(b, from, ev, to, NULL, 0, u, MB_N(u))
#define mb_trans_gu(b, from, ev, to, g, u) \
	mb_trans_code(b, from, ev, to, g, MB_N(g), u, MB_N(u))

static inline void mb_free(struct mb *b)
{
	for (int i = 0; i < b->spec.nprops; i++) {
		struct vg_property *p = &b->spec.props[i];

		free(p->vars);
		free(p->globals);
		free(p->states);
		free(p->trans);
		free(p->bindings);
		free(p->code);
	}
	free(b->spec.props);
	free(b->spec.events);
	memset(b, 0, sizeof(*b));
}

/* An event with fields v[0..n-1]; MB_EV(e, a, b) / MB_EV0(e). */
static inline struct vg_mon_event mb_ev_a(int event, const uint64_t *v, int n)
{
	struct vg_mon_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.event = event;
	ev.tid = 1;
	for (int i = 0; i < n; i++)
		ev.slot[i] = v[i];
	return ev;
}

#define MB_EV(e, ...)                                                      \
	mb_ev_a(e, (const uint64_t[]){ __VA_ARGS__ },                      \
		MB_N(((const uint64_t[]){ __VA_ARGS__ })))
#define MB_EV0(e) mb_ev_a(e, NULL, 0)

#endif
