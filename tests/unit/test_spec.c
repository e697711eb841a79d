/* The property language: what valid specs compile to, for its structure:
 * the two examples of DESIGN.md, events and their bindings, states,
 * reactions, several properties, `->` and keywords as names. Code is run
 * through spec_interp.h's interpreter. Expressions, types and statements
 * are in test_spec_expr.c; errors and lint in test_spec_errors.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "spec_load.h"
#include "spec_interp.h"

/* ---- the two examples of DESIGN.md ------------------------------------ */

static const char queue_bounds[] =
	"# specs/queue_bounds.vigil\n"
	"property queue_bounds \"a queue never takes more pushes than its capacity\"\n"
	"slice on q\n"
	"int n = 0, max = 0\n"
	"\n"
	"state init accepting {\n"
	"  after queue_new(size) returns q { max = size; } -> ready\n"
	"}\n"
	"state ready accepting {\n"
	"  before queue_push(q) when n < max { n = n + 1; } -> ready\n"
	"  before queue_push(q)                             -> overflow\n"
	"  before queue_pop(q)  when n > 0   { n = n - 1; } -> ready\n"
	"  before queue_pop(q)                              -> underflow\n"
	"}\n"
	"state overflow violation\n"
	"state underflow violation\n"
	"\n"
	"on enter ready:    checkpoint\n"
	"on enter overflow: stop, backtrace\n";

static const char unsafe_iter[] =
	"property unsafe_iter \"an iterator is not used after its collection changed\"\n"
	"slice on c, i\n"
	"event create(c, i)\n"
	"event update(c)\n"
	"event next(i)\n"
	"state init accepting {\n"
	"  create(c, i) -> live\n"
	"}\n"
	"state live accepting {\n"
	"  update(c) -> stale\n"
	"  next(i) -> live\n"
	"}\n"
	"state stale accepting {\n"
	"  update(c) -> stale\n"
	"  next(i) -> bad\n"
	"}\n"
	"state bad violation\n";

static void test_design_queue_bounds(void **state)
{
	struct vg_spec *s = load(queue_bounds);
	const struct vg_property *p = &s->props[0];
	int ev_new, ev_push, ev_pop;
	const struct vg_binding *b;

	assert_int_equal(s->nprops, 1);
	assert_string_equal(p->name, "queue_bounds");
	assert_string_equal(p->description,
			    "a queue never takes more pushes than its capacity");
	assert_int_equal(p->loc.line, 2);
	assert_int_equal(p->loc.col, 1);
	assert_string_equal(p->loc.file, "t.vigil");
	assert_int_equal(p->nparams, 1);
	assert_string_equal(p->params[0], "q");
	assert_int_equal(p->param_types[0], VG_TYPE_INT);
	assert_int_equal(p->nvars, 2);
	assert_string_equal(p->vars[1].name, "max");
	assert_int_equal(p->nglobals, 0);
	assert_int_equal(p->nstates, 4);
	assert_string_equal(p->states[0].name, "init");
	assert_int_equal(p->states[2].kind, VG_STATE_VIOLATION);
	assert_int_equal(vg_property_find_state(p, "underflow"), 3);
	assert_int_equal(vg_property_find_state(p, "nope"), -1);

	assert_int_equal(s->nevents, 3);
	ev_new = vg_spec_find_event(s, VG_EV_AFTER, "queue_new");
	ev_push = vg_spec_find_event(s, VG_EV_BEFORE, "queue_push");
	ev_pop = vg_spec_find_event(s, VG_EV_BEFORE, "queue_pop");
	assert_int_equal(ev_new, 0);
	assert_int_equal(ev_push, 1);
	assert_int_equal(ev_pop, 2);
	assert_int_equal(vg_spec_find_event(s, VG_EV_AFTER, "queue_push"), -1);
	assert_true(s->events[ev_new].uses_ret);
	assert_int_equal(s->events[ev_new].nfields, 1);
	assert_false(s->events[ev_push].uses_ret);
	assert_int_equal(s->events[ev_push].nfields, 1);
	assert_int_equal(s->events[ev_new].loc.line, 7);
	assert_int_equal(s->events[ev_new].loc.col, 3);

	assert_int_equal(p->nbindings, 3);
	b = vg_property_binding(p, ev_new);
	assert_non_null(b);
	assert_int_equal(b->slot[0], VG_SLOT_RET);
	assert_int_equal(b->mask, 1);
	b = vg_property_binding(p, ev_push);
	assert_int_equal(b->slot[0], 0);
	assert_int_equal(b->slot[1], VG_UNBOUND);
	assert_null(vg_property_binding(p, 99));

	assert_int_equal(p->ntrans, 5);
	/* first-match order: the guarded push comes before the unguarded */
	assert_int_equal(p->trans[1].event, ev_push);
	assert_int_equal(p->trans[1].to, 1);
	assert_int_equal(p->trans[2].event, ev_push);
	assert_int_equal(p->trans[2].to, 2);
	assert_int_equal(p->trans[2].guard.len, 0);
	assert_int_equal(p->trans[2].update.len, 0);
	assert_int_equal(p->trans[4].to, 3);
	assert_int_equal(p->trans[3].from, 1);
	assert_int_equal(p->trans[1].binding, p->trans[2].binding);
	assert_int_equal(p->trans[1].loc.line, 10);
	assert_int_equal(p->trans[1].loc.col, 3);

	/* max = size: size is position 0 of the after event */
	ASSERT_CODE(p, p->trans[0].update, { VG_OP_FIELD, 0, 0 },
		    { VG_OP_STVAR, 1, 0 }, { VG_OP_END, 0, 0 });
	ASSERT_CODE(p, p->trans[1].guard, { VG_OP_LDVAR, 0, 0 },
		    { VG_OP_LDVAR, 1, 0 }, { VG_OP_LTS, 0, 0 },
		    { VG_OP_END, 0, 0 });
	ASSERT_CODE(p, p->trans[1].update, { VG_OP_LDVAR, 0, 0 },
		    { VG_OP_PUSH, 0, 1 }, { VG_OP_ADD, 0, 0 },
		    { VG_OP_STVAR, 0, 0 }, { VG_OP_END, 0, 0 });

	assert_int_equal(p->nreactions, 2);
	assert_true(vg_property_state_has_action(p, 1, true, VG_ACT_CHECKPOINT));
	assert_true(vg_property_state_has_action(p, 2, true, VG_ACT_STOP));
	assert_true(vg_property_state_has_action(p, 2, true, VG_ACT_BACKTRACE));
	assert_false(vg_property_state_has_action(p, 2, false, VG_ACT_STOP));
	assert_false(vg_property_state_has_action(p, 3, true, VG_ACT_STOP));
	assert_int_equal(p->reactions[1].nactions, 2);
	assert_int_equal(p->reactions[1].actions[1].kind, VG_ACT_BACKTRACE);
	assert_null(p->reactions[1].actions[1].arg);
	assert_int_equal(vg_spec_lint(s, NULL), 0);
	vg_spec_free(s);
}

static void test_design_unsafe_iter(void **state)
{
	struct vg_spec *s = load(unsafe_iter);
	const struct vg_property *p = &s->props[0];
	int create = vg_spec_find_event(s, VG_EV_NAMED, "create");
	int update = vg_spec_find_event(s, VG_EV_NAMED, "update");
	int next = vg_spec_find_event(s, VG_EV_NAMED, "next");
	const struct vg_binding *b;

	assert_true(create >= 0 && update >= 0 && next >= 0);
	assert_int_equal(s->events[create].nfields, 2);
	assert_int_equal(s->events[update].nfields, 1);
	assert_int_equal(p->nparams, 2);
	b = vg_property_binding(p, create);
	assert_int_equal(b->slot[0], 0);
	assert_int_equal(b->slot[1], 1);
	assert_int_equal(b->mask, 3);
	b = vg_property_binding(p, update);
	assert_int_equal(b->slot[0], 0);
	assert_int_equal(b->slot[1], VG_UNBOUND);
	assert_int_equal(b->mask, 1);
	b = vg_property_binding(p, next);
	assert_int_equal(b->slot[0], VG_UNBOUND);
	assert_int_equal(b->slot[1], 0);
	assert_int_equal(b->mask, 2);
	assert_int_equal(p->ntrans, 5);
	assert_int_equal(p->trans[4].to, vg_property_find_state(p, "bad"));
	assert_string_equal(vg_event_kind_name(s->events[next].kind), "event");
	vg_spec_free(s);
}

/* ---- events ----------------------------------------------------------- */

static void test_event_forms(void **state)
{
	struct vg_spec *s = load(
		"property ev\n"
		"slice on ptr q\n"
		"global int hits\n"
		"state i { before f(a, _, c) -> s }\n"
		"state s {\n"
		"  before f(a, _, c) -> s\n"
		"  after g(_, b) returns r when r == b && ret == 0 -> s\n"
		"  write counter when value > 1 -> s\n"
		"  read q->count -> s\n"
		"  access *q -> s\n"
		"  write q->a.b { hits++; } -> s\n"
		"  change  a+b * c -> s\n"
		"  syscall openat(_, path, flags) -> s\n"
		"  exit(code) when code != 0 -> s\n"
		"  signal(sig) -> s\n"
		"  thread_start -> s\n"
		"  thread_exit -> s\n"
		"  before write(fd, buf, n) -> s\n"
		"  after h() -> s\n"
		"}\n");
	static const struct {
		enum vg_event_kind k;
		const char *name;
		int nfields;
		bool ret;
	} want[] = {
		{ VG_EV_BEFORE, "f", 3, false },
		{ VG_EV_AFTER, "g", 2, true },
		{ VG_EV_WRITE, "counter", 1, false },
		{ VG_EV_READ, "q->count", 0, false },
		{ VG_EV_ACCESS, "*q", 0, false },
		{ VG_EV_WRITE, "q->a.b", 0, false },
		{ VG_EV_CHANGE, "a + (b * c)", 0, false },
		{ VG_EV_SYSCALL, "openat", 3, false },
		{ VG_EV_EXIT, "", 1, false },
		{ VG_EV_SIGNAL, "", 1, false },
		{ VG_EV_THREAD_START, "", 0, false },
		{ VG_EV_THREAD_EXIT, "", 0, false },
		{ VG_EV_BEFORE, "write", 3, false },
		{ VG_EV_AFTER, "h", 0, false },
	};
	const struct vg_property *p = &s->props[0];

	assert_int_equal(s->nevents, 14);
	for (int i = 0; i < 14; i++) {
		assert_int_equal(s->events[i].kind, want[i].k);
		assert_string_equal(s->events[i].name, want[i].name);
		assert_int_equal(s->events[i].nfields, want[i].nfields);
		assert_int_equal(s->events[i].uses_ret, want[i].ret);
		assert_int_equal(p->trans[i + 1].event, i);
		assert_int_equal(vg_spec_find_event(s, want[i].k, want[i].name), i);
	}
	/* r == b && ret == 0: both r and ret are the return slot */
	ASSERT_CODE(p, p->trans[2].guard, { VG_OP_FIELD, VG_SLOT_RET, 0 },
		    { VG_OP_FIELD, 1, 0 }, { VG_OP_EQ, 0, 0 },
		    { VG_OP_JZ, 0, 6 }, { VG_OP_FIELD, VG_SLOT_RET, 0 },
		    { VG_OP_PUSH, 0, 0 }, { VG_OP_EQ, 0, 0 },
		    { VG_OP_JZ, 0, 2 }, { VG_OP_PUSH, 0, 1 },
		    { VG_OP_JMP, 0, 1 }, { VG_OP_PUSH, 0, 0 },
		    { VG_OP_END, 0, 0 });
	ASSERT_CODE(p, p->trans[3].guard, { VG_OP_FIELD, 0, 0 },
		    { VG_OP_PUSH, 0, 1 }, { VG_OP_GTS, 0, 0 },
		    { VG_OP_END, 0, 0 });
	ASSERT_CODE(p, p->trans[6].update, { VG_OP_LDGLOB, 0, 0 },
		    { VG_OP_PUSH, 0, 1 }, { VG_OP_ADD, 0, 0 },
		    { VG_OP_STGLOB, 0, 0 }, { VG_OP_END, 0, 0 });
	ASSERT_CODE(p, p->trans[9].guard, { VG_OP_FIELD, 0, 0 },
		    { VG_OP_PUSH, 0, 0 }, { VG_OP_NE, 0, 0 },
		    { VG_OP_END, 0, 0 });
	/* a global's watch binds nothing; a per-slice one binds every
	 * slice parameter, from the slots the watchpoint's owner fills */
	assert_int_equal(vg_property_binding(p, 2)->mask, 0);
	assert_int_equal(vg_property_binding(p, 2)->slot[0], VG_UNBOUND);
	assert_true(s->events[3].wloc.per_slice);
	assert_string_equal(s->events[3].wloc.base, "q");
	assert_string_equal(s->events[3].wloc.path, "count");
	assert_int_equal(vg_property_binding(p, 3)->mask, 1);
	assert_int_equal(vg_property_binding(p, 3)->slot[0], VG_WSLOT_PARAM0);
	assert_string_equal(s->events[5].wloc.path, "a.b");
	assert_false(s->events[2].wloc.per_slice);
	/* change a+b*c: three globals, EXPR over slots 0..2 */
	assert_int_equal(s->events[6].ncloc, 3);
	assert_string_equal(s->events[6].cloc[2].base, "c");
	{
		static const uint8_t want_ops[] = {
			VG_OP_FIELD, VG_OP_FIELD, VG_OP_FIELD, VG_OP_MUL,
			VG_OP_ADD, VG_OP_END,
		};

		assert_int_equal(s->events[6].nccode, 6);
		for (int i = 0; i < 6; i++)
			assert_int_equal(s->events[6].ccode[i].op, want_ops[i]);
		assert_int_equal(s->events[6].ccode[2].idx, 2);
	}
	assert_string_equal(vg_event_kind_name(VG_EV_THREAD_EXIT), "thread_exit");
	assert_string_equal(vg_event_kind_name(VG_EV_SYSCALL), "syscall");
	vg_spec_free(s);
}

static void test_events_shared(void **state)
{
	struct vg_spec *s = load(
		"property a\nslice on p\nstate s { before free(p) -> s }\n"
		"property b\nslice on x, p\n"
		"state s { before free(x) -> s\n after free(_, _, z) -> s }\n"
		"property c\nstate s { write  g -> s\n before free() -> s }\n");

	assert_int_equal(s->nprops, 3);
	assert_int_equal(s->nevents, 3);
	assert_int_equal(vg_spec_find_event(s, VG_EV_BEFORE, "free"), 0);
	assert_int_equal(s->events[0].nfields, 1);
	assert_int_equal(s->events[1].nfields, 3);
	assert_int_equal(s->events[0].loc.line, 3);
	/* each property binds the shared event its own way */
	assert_int_equal(vg_property_binding(&s->props[0], 0)->slot[0], 0);
	assert_int_equal(vg_property_binding(&s->props[1], 0)->slot[0], 0);
	assert_int_equal(vg_property_binding(&s->props[1], 0)->slot[1], VG_UNBOUND);
	assert_int_equal(vg_property_binding(&s->props[1], 0)->mask, 1);
	assert_int_equal(vg_property_binding(&s->props[2], 0)->mask, 0);
	assert_null(vg_property_binding(&s->props[0], 1));
	assert_int_equal(s->props[2].nbindings, 2);
	vg_spec_free(s);
}

/* A pattern name equal to a parameter binds it; in a guard it reads the
 * event slot, with the parameter's type. */
static void test_pattern_binds_params(void **state)
{
	struct vg_spec *s = load(
		"property p\nslice on ptr q, int k\nint n\n"
		"state s {\n"
		"  before f(k, q) when q < 4 && k < 4 -> s\n"
		"  before g(x) when q < x -> s\n"
		"}\n");
	const struct vg_property *p = &s->props[0];

	assert_int_equal(p->param_types[0], VG_TYPE_PTR);
	assert_int_equal(vg_property_binding(p, 0)->slot[0], 1);
	assert_int_equal(vg_property_binding(p, 0)->slot[1], 0);
	assert_int_equal(p->code[p->trans[0].guard.off].op, VG_OP_FIELD);
	assert_int_equal(p->code[p->trans[0].guard.off].idx, 1);
	assert_int_equal(p->code[p->trans[0].guard.off + 2].op, VG_OP_LTU);
	assert_int_equal(p->code[p->trans[0].guard.off + 6].op, VG_OP_LTS);
	/* not bound by g: the slice's own parameter */
	ASSERT_CODE(p, p->trans[1].guard, { VG_OP_PARAM, 0, 0 },
		    { VG_OP_FIELD, 0, 0 }, { VG_OP_LTU, 0, 0 },
		    { VG_OP_END, 0, 0 });
	vg_spec_free(s);
}

/* ---- structure -------------------------------------------------------- */

static void test_states_and_reactions(void **state)
{
	struct vg_spec *s = load(
		"property t # a comment\n"
		"slice on ptr q, ptr p\n"
		"state a { before f() -> b  before g() -> c }\n"
		"state b nonaccepting { before f() -> a  write q->count -> b  write *p -> b }\n"
		"state c accepting\n"
		"state d violation { }\n"
		"on enter b: log \"in {n} state\", watch q->count, unwatch *p, exec \"echo hi\", kill\n"
		"on leave b: gdb, restore, stop\n"
		"on enter d: checkpoint, backtrace\n");
	const struct vg_property *p = &s->props[0];
	const struct vg_reaction *r;

	assert_int_equal(p->nstates, 4);
	assert_int_equal(p->states[0].kind, VG_STATE_ACCEPTING);
	assert_int_equal(p->states[1].kind, VG_STATE_NONACCEPTING);
	assert_int_equal(p->states[2].kind, VG_STATE_ACCEPTING);
	assert_int_equal(p->states[3].kind, VG_STATE_VIOLATION);
	assert_string_equal(vg_state_kind_name(VG_STATE_NONACCEPTING), "nonaccepting");
	assert_string_equal(vg_state_kind_name(VG_STATE_VIOLATION), "violation");
	assert_string_equal(vg_state_kind_name(VG_STATE_ACCEPTING), "accepting");
	assert_int_equal(p->states[1].loc.line, 4);
	assert_int_equal(p->states[1].loc.col, 7);
	assert_int_equal(p->ntrans, 5);
	assert_int_equal(p->trans[0].to, 1);
	assert_int_equal(p->trans[1].to, 2);
	assert_int_equal(p->trans[2].from, 1);

	assert_int_equal(p->nreactions, 3);
	r = &p->reactions[0];
	assert_true(r->on_enter);
	assert_int_equal(r->state, 1);
	assert_int_equal(r->nactions, 5);
	assert_int_equal(r->actions[0].kind, VG_ACT_LOG);
	assert_string_equal(r->actions[0].arg, "in {n} state");
	assert_int_equal(r->actions[1].kind, VG_ACT_WATCH);
	assert_string_equal(r->actions[1].arg, "q->count");
	assert_int_equal(r->actions[2].kind, VG_ACT_UNWATCH);
	assert_string_equal(r->actions[2].arg, "*p");
	assert_int_equal(r->actions[3].kind, VG_ACT_EXEC);
	assert_string_equal(r->actions[3].arg, "echo hi");
	assert_int_equal(r->actions[4].kind, VG_ACT_KILL);
	assert_int_equal(r->actions[4].loc.line, 7);
	r = &p->reactions[1];
	assert_false(r->on_enter);
	assert_int_equal(r->actions[0].kind, VG_ACT_GDB);
	assert_int_equal(r->actions[1].kind, VG_ACT_RESTORE);
	assert_int_equal(r->actions[2].kind, VG_ACT_STOP);
	assert_true(vg_property_state_has_action(p, 1, false, VG_ACT_STOP));
	assert_false(vg_property_state_has_action(p, 1, true, VG_ACT_STOP));
	assert_true(vg_property_state_has_action(p, 3, true, VG_ACT_BACKTRACE));
	vg_spec_free(s);
}

static void test_several_properties_and_whitespace(void **state)
{
	/* one line, no newlines at all, and items in any order */
	struct vg_spec *s = load(
		"property one \"first\" state a { before f() -> a } int x "
		"property two slice on k state z { before f(k) when k > 0 { x = k } -> z } global int x "
		"property three state q");

	assert_int_equal(s->nprops, 3);
	assert_string_equal(s->props[0].name, "one");
	assert_string_equal(s->props[0].description, "first");
	assert_string_equal(s->props[1].description, "");
	assert_int_equal(s->props[0].nvars, 1);
	assert_int_equal(s->props[1].nglobals, 1);
	assert_int_equal(s->nevents, 1);
	assert_int_equal(s->props[2].ntrans, 0);
	/* the update of `two` stores into its global */
	const struct vg_property *p = &s->props[1];
	assert_int_equal(p->code[p->trans[0].update.off + 1].op, VG_OP_STGLOB);
	vg_spec_free(s);
}

/* `->` is both C's arrow and the transition arrow. */
static void test_arrow_disambiguation(void **state)
{
	struct vg_spec *s = load(
		"property t\nslice on ptr q\nbool ok\n"
		"state i { before f() -> s }\n"
		"state s {\n"
		"  before f() when ok -> s\n"
		"  write q->count -> s\n"
		"  write q->next->count when ok -> s\n"
		"  write q->next->count { ok = true; } -> s\n"
		"  change (q->a) -> s\n"
		"  read g ->s before g() -> s\n"
		"}\n");

	assert_int_equal(s->props[0].ntrans, 8);
	assert_int_equal(vg_spec_find_event(s, VG_EV_WRITE, "q->count"), 1);
	assert_int_equal(vg_spec_find_event(s, VG_EV_WRITE, "q->next->count"), 2);
	assert_int_equal(vg_spec_find_event(s, VG_EV_CHANGE, "q->a"), 3);
	assert_int_equal(vg_spec_find_event(s, VG_EV_READ, "g"), 4);
	vg_spec_free(s);
}

static void test_keyword_names(void **state)
{
	/* no reserved words: functions and events may be called anything */
	struct vg_spec *s = load(
		"property state\n"
		"event before(x)\nevent on(y)\n"
		"int when\n"
		"state state { before(x) -> state\n on(y) -> state\n"
		"  before read(fd) when when == 0 -> state\n"
		"  after property() returns slice -> state }\n");

	assert_string_equal(s->props[0].name, "state");
	assert_int_equal(vg_spec_find_event(s, VG_EV_NAMED, "before"), 0);
	assert_int_equal(vg_spec_find_event(s, VG_EV_NAMED, "on"), 1);
	assert_int_equal(vg_spec_find_event(s, VG_EV_BEFORE, "read"), 2);
	assert_int_equal(vg_spec_find_event(s, VG_EV_AFTER, "property"), 3);
	assert_true(s->events[3].uses_ret);
	vg_spec_free(s);
}

static void test_load_appends(void **state)
{
	struct vg_spec *s = load(queue_bounds);
	struct vg_err e = { 0 };

	assert_int_equal(vg_spec_load_string(s, "u.vigil", unsafe_iter, &e), 0);
	assert_int_equal(s->nprops, 2);
	assert_int_equal(s->nevents, 6);
	assert_string_equal(s->props[1].loc.file, "u.vigil");
	assert_string_equal(s->props[0].loc.file, "t.vigil");
	assert_int_equal(vg_spec_find_event(s, VG_EV_NAMED, "next"), 5);
	/* event indices of the first load are unchanged */
	assert_int_equal(vg_spec_find_event(s, VG_EV_BEFORE, "queue_pop"), 2);
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_design_queue_bounds),
		cmocka_unit_test(test_design_unsafe_iter),
		cmocka_unit_test(test_event_forms),
		cmocka_unit_test(test_events_shared),
		cmocka_unit_test(test_pattern_binds_params),
		cmocka_unit_test(test_states_and_reactions),
		cmocka_unit_test(test_several_properties_and_whitespace),
		cmocka_unit_test(test_arrow_disambiguation),
		cmocka_unit_test(test_keyword_names),
		cmocka_unit_test(test_load_appends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
