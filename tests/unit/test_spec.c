/* The property language: what valid specs compile to. Every construct of
 * docs/LANGUAGE.md appears here; the exact bytecode is checked where the
 * contract (include/vigil_code.h) leaves a choice, and everything else is
 * run through a small interpreter written from that contract, independent
 * of the compiler's own constant evaluator. Errors and lint are in
 * test_spec_errors.c. */
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

/* ---- an interpreter from the contract --------------------------------- */

struct env {
	int64_t slot[VG_NSLOTS];
	int64_t param[VG_MAX_PARAMS];
	int64_t var[16], glob[16];
	int64_t tid, time;
};

static int64_t run(const struct vg_property *p, struct vg_code_ref r,
		   struct env *env)
{
	int64_t st[VG_STACK_MAX];
	int sp = 0;

	if (!r.len)
		return 1;
	assert_int_equal(p->code[r.off + r.len - 1].op, VG_OP_END);
	for (uint32_t pc = r.off; pc < r.off + r.len; pc++) {
		const struct vg_insn *i = &p->code[pc];
		int64_t a, b;
		uint64_t ua, ub;

		assert_true(sp >= 0 && sp <= VG_STACK_MAX);
		switch (i->op) {
		case VG_OP_END: return sp ? st[sp - 1] : 0;
		case VG_OP_PUSH: st[sp++] = i->imm; continue;
		case VG_OP_FIELD: st[sp++] = env->slot[i->idx]; continue;
		case VG_OP_PARAM: st[sp++] = env->param[i->idx]; continue;
		case VG_OP_LDVAR: st[sp++] = env->var[i->idx]; continue;
		case VG_OP_LDGLOB: st[sp++] = env->glob[i->idx]; continue;
		case VG_OP_STVAR: env->var[i->idx] = st[--sp]; continue;
		case VG_OP_STGLOB: env->glob[i->idx] = st[--sp]; continue;
		case VG_OP_TID: st[sp++] = env->tid; continue;
		case VG_OP_TIME: st[sp++] = env->time; continue;
		case VG_OP_DUP: st[sp] = st[sp - 1]; sp++; continue;
		case VG_OP_POP: sp--; continue;
		case VG_OP_NEG: st[sp - 1] = (int64_t)(0 - (uint64_t)st[sp - 1]); continue;
		case VG_OP_NOT: st[sp - 1] = !st[sp - 1]; continue;
		case VG_OP_BNOT: st[sp - 1] = ~st[sp - 1]; continue;
		case VG_OP_JMP: assert_true(i->imm >= 0); pc += i->imm; continue;
		case VG_OP_JZ: assert_true(i->imm >= 0); if (!st[--sp]) pc += i->imm; continue;
		case VG_OP_JNZ: assert_true(i->imm >= 0); if (st[--sp]) pc += i->imm; continue;
		}
		b = st[--sp];
		a = st[--sp];
		ua = (uint64_t)a;
		ub = (uint64_t)b;
		switch (i->op) {
		case VG_OP_ADD: a = (int64_t)(ua + ub); break;
		case VG_OP_SUB: a = (int64_t)(ua - ub); break;
		case VG_OP_MUL: a = (int64_t)(ua * ub); break;
		case VG_OP_DIVS: a = b == 0 ? 0 : (a == INT64_MIN && b == -1) ? a : a / b; break;
		case VG_OP_DIVU: a = b == 0 ? 0 : (int64_t)(ua / ub); break;
		case VG_OP_MODS: a = b == 0 ? a : b == -1 ? 0 : a % b; break;
		case VG_OP_MODU: a = b == 0 ? a : (int64_t)(ua % ub); break;
		case VG_OP_AND: a &= b; break;
		case VG_OP_OR: a |= b; break;
		case VG_OP_XOR: a ^= b; break;
		case VG_OP_SHL: a = (int64_t)(ua << (ub & 63)); break;
		case VG_OP_SHRS: a = a >> (ub & 63); break;
		case VG_OP_SHRU: a = (int64_t)(ua >> (ub & 63)); break;
		case VG_OP_EQ: a = a == b; break;
		case VG_OP_NE: a = a != b; break;
		case VG_OP_LTS: a = a < b; break;
		case VG_OP_LES: a = a <= b; break;
		case VG_OP_GTS: a = a > b; break;
		case VG_OP_GES: a = a >= b; break;
		case VG_OP_LTU: a = ua < ub; break;
		case VG_OP_LEU: a = ua <= ub; break;
		case VG_OP_GTU: a = ua > ub; break;
		case VG_OP_GEU: a = ua >= ub; break;
		default: fail_msg("bad opcode %d", i->op);
		}
		st[sp++] = a;
	}
	fail_msg("ran off the end");
	return 0;
}

/* Compile `when EXPR` in a property with a few variables and run it with
 * event fields x = fx and y = fy. */
static int64_t eval(const char *expr, int64_t fx, int64_t fy)
{
	char text[1024];
	struct vg_spec *s;
	struct env env = { .slot = { fx, fy } };
	int64_t v;

	snprintf(text, sizeof(text),
		 "property t\nint a = -7, b = 2\nuint u = 1\nptr p = 0x10\n"
		 "string str = \"s\"\n"
		 "state s { before f(x, y) when %s -> s }\n", expr);
	s = load(text);
	for (int i = 0; i < s->props[0].nvars; i++)
		env.var[i] = s->props[0].vars[i].init;
	v = run(&s->props[0], s->props[0].trans[0].guard, &env);
	vg_spec_free(s);
	return v;
}

struct op {
	enum vg_opcode op;
	int idx;
	int64_t imm;
};

static void assert_code(const struct vg_property *p, struct vg_code_ref r,
			const struct op *want, int n)
{
	assert_int_equal(r.len, n);
	for (int i = 0; i < n; i++) {
		const struct vg_insn *in = &p->code[r.off + i];

		if (in->op != want[i].op || in->idx != want[i].idx ||
		    in->imm != want[i].imm)
			fail_msg("insn %d: got op %d idx %d imm %lld, want op %d idx %d imm %lld",
				 i, in->op, in->idx, (long long)in->imm,
				 want[i].op, want[i].idx, (long long)want[i].imm);
	}
}
#define ASSERT_CODE(p, r, ...)                                                 \
	do {                                                                   \
		const struct op w_[] = { __VA_ARGS__ };                        \
		assert_code((p), (r), w_, (int)(sizeof(w_) / sizeof(w_[0])));  \
	} while (0)

/* The first opcode of the guard that is not a load. */
static enum vg_opcode guard_op(const char *expr)
{
	char text[512];
	struct vg_spec *s;
	enum vg_opcode op = VG_OP_END;

	snprintf(text, sizeof(text),
		 "property t\nint a\nuint u\nptr p\nbool t\n"
		 "state s { before f(x) when %s -> s }\n", expr);
	s = load(text);
	const struct vg_property *pr = &s->props[0];
	for (uint32_t i = 0; i < pr->trans[0].guard.len; i++) {
		op = pr->code[pr->trans[0].guard.off + i].op;
		if (op != VG_OP_LDVAR && op != VG_OP_PUSH && op != VG_OP_FIELD)
			break;
	}
	vg_spec_free(s);
	return op;
}

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

/* ---- types, variables, statements ------------------------------------- */

static void test_types_and_inits(void **state)
{
	struct vg_spec *s = load(
		"property t\n"
		"slice on int a, int64 b, uint c, ptr d\n"
		"int i = 1 + 2 * 3, j\n"
		"int64 k = -9223372036854775808\n"
		"uint u = -1, v = 0xffffffffffffffff\n"
		"uint64 w = 7 / 0\n"
		"bool t = 3 > 2, f = false\n"
		"ptr p = null, q = 0x1000 + 8\n"
		"string s = \"hi\", e\n"
		"global string gs = \"hi\"\n"
		"global int ch = 'A' + '\\n'\n"
		"int tern = 1 ? 2 : 3, sh = -16 >> 2\n"
		"state x\n");
	const struct vg_property *p = &s->props[0];
	static const struct {
		const char *name;
		enum vg_type t;
	} want[] = {
		{ "i", VG_TYPE_INT }, { "j", VG_TYPE_INT }, { "k", VG_TYPE_INT },
		{ "u", VG_TYPE_UINT }, { "v", VG_TYPE_UINT },
		{ "w", VG_TYPE_UINT }, { "t", VG_TYPE_BOOL },
		{ "f", VG_TYPE_BOOL }, { "p", VG_TYPE_PTR }, { "q", VG_TYPE_PTR },
		{ "s", VG_TYPE_STR }, { "e", VG_TYPE_STR },
		{ "tern", VG_TYPE_INT }, { "sh", VG_TYPE_INT },
	};

	assert_int_equal(p->param_types[1], VG_TYPE_INT);
	assert_int_equal(p->param_types[2], VG_TYPE_UINT);
	assert_int_equal(p->param_types[3], VG_TYPE_PTR);
	assert_int_equal(p->nvars, 14);
	for (int i = 0; i < 14; i++) {
		assert_string_equal(p->vars[i].name, want[i].name);
		assert_int_equal(p->vars[i].type, want[i].t);
	}
	assert_int_equal(p->vars[0].init, 7);
	assert_int_equal(p->vars[1].init, 0);
	assert_int_equal(p->vars[2].init, INT64_MIN);
	assert_int_equal((uint64_t)p->vars[3].init, UINT64_MAX);
	assert_int_equal((uint64_t)p->vars[4].init, UINT64_MAX);
	assert_int_equal(p->vars[5].init, 0);	/* x / 0 == 0 */
	assert_int_equal(p->vars[6].init, 1);
	assert_int_equal(p->vars[7].init, 0);
	assert_int_equal(p->vars[9].init, 0x1008);
	assert_string_equal(vg_spec_string(s, (uint64_t)p->vars[10].init), "hi");
	/* an unset string is "" */
	assert_string_equal(vg_spec_string(s, (uint64_t)p->vars[11].init), "");
	assert_int_equal(p->vars[12].init, 2);
	assert_int_equal(p->vars[13].init, -4);
	assert_int_equal(p->nglobals, 2);
	assert_int_equal(p->globals[0].init, p->vars[10].init);
	assert_int_equal(p->globals[1].init, 'A' + 10);
	/* initializers leave no code behind */
	assert_int_equal(p->ncode, 0);
	assert_int_equal(p->ntrans, 0);
	vg_spec_free(s);
}

static void test_statements(void **state)
{
	struct vg_spec *s = load(
		"property t\nint a\nuint u\nglobal int g\nstring str\n"
		"state s {\n"
		"  before f(x) {\n"
		"    a = x; a += 1; a -= 2; a *= 3; a /= 4; a %= 5;\n"
		"    a &= 6; a |= 7; a ^= 8; a <<= 9; a >>= 10; a++; a--;\n"
		"    u /= 2; u %= 3; u >>= 1; g = a; g++;\n"
		"    str = \"x\"; str = x\n"
		"  } -> s\n"
		"  before h() { } -> s\n"
		"}\n");
	const struct vg_property *p = &s->props[0];
	uint64_t xid = vg_spec_intern(s, "x");

	ASSERT_CODE(p, p->trans[0].update,
		    { VG_OP_FIELD, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_ADD, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 2 }, { VG_OP_SUB, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 3 }, { VG_OP_MUL, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 4 }, { VG_OP_DIVS, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 5 }, { VG_OP_MODS, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 6 }, { VG_OP_AND, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 7 }, { VG_OP_OR, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 8 }, { VG_OP_XOR, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 9 }, { VG_OP_SHL, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 10 }, { VG_OP_SHRS, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_ADD, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_SUB, 0, 0 }, { VG_OP_STVAR, 0, 0 },
		    { VG_OP_LDVAR, 1, 0 }, { VG_OP_PUSH, 0, 2 }, { VG_OP_DIVU, 0, 0 }, { VG_OP_STVAR, 1, 0 },
		    { VG_OP_LDVAR, 1, 0 }, { VG_OP_PUSH, 0, 3 }, { VG_OP_MODU, 0, 0 }, { VG_OP_STVAR, 1, 0 },
		    { VG_OP_LDVAR, 1, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_SHRU, 0, 0 }, { VG_OP_STVAR, 1, 0 },
		    { VG_OP_LDVAR, 0, 0 }, { VG_OP_STGLOB, 0, 0 },
		    { VG_OP_LDGLOB, 0, 0 }, { VG_OP_PUSH, 0, 1 }, { VG_OP_ADD, 0, 0 }, { VG_OP_STGLOB, 0, 0 },
		    { VG_OP_PUSH, 0, (int64_t)xid }, { VG_OP_STVAR, 2, 0 },
		    { VG_OP_FIELD, 0, 0 }, { VG_OP_STVAR, 2, 0 },
		    { VG_OP_END, 0, 0 });
	/* an empty block is no update at all */
	assert_int_equal(p->trans[1].update.len, 0);

	/* and it runs as C would */
	struct env env = { .slot = { 100 } };
	run(p, p->trans[0].update, &env);
	int64_t a = 100;
	a += 1; a -= 2; a *= 3; a /= 4; a %= 5; a &= 6; a |= 7; a ^= 8;
	a <<= 9; a >>= 10;
	assert_int_equal(env.var[0], a);
	assert_int_equal(env.glob[0], a + 1);
	vg_spec_free(s);
}

/* ---- expressions ------------------------------------------------------ */

static void test_precedence(void **state)
{
	assert_int_equal(eval("1 + 2 * 3 == 7", 0, 0), 1);
	assert_int_equal(eval("(1 + 2) * 3 == 9", 0, 0), 1);
	assert_int_equal(eval("x - y - 1", 10, 3), 6);	/* left assoc */
	assert_int_equal(eval("x / y / 2", 100, 5), 10);
	assert_int_equal(eval("1 << 2 + 1", 0, 0), 8);
	assert_int_equal(eval("5 & 3 == 1", 0, 0), 0);	/* == binds tighter */
	assert_int_equal(eval("1 | 2 ^ 3 & 6", 0, 0), 1 | (2 ^ (3 & 6)));
	assert_int_equal(eval("x < y == y < x", 1, 2), 0);
	assert_int_equal(eval("x > 0 && y > 0 || x == 5", 5, 0), 1);
	assert_int_equal(eval("x > 0 || y > 0 && x == 5", 1, 0), 1);
	assert_int_equal(eval("!x && y", 0, 3), 1);
	assert_int_equal(eval("!(x && y)", 1, 3), 0);
	assert_int_equal(eval("-x * 2", 4, 0), -8);
	assert_int_equal(eval("~x", 0, 0), -1);
	assert_int_equal(eval("- -x", 3, 0), 3);
	assert_int_equal(eval("x ? y : 9", 1, 2), 2);
	assert_int_equal(eval("x ? y : 9", 0, 2), 9);
	assert_int_equal(eval("x ? y ? 1 : 2 : 3", 1, 0), 2);
	assert_int_equal(eval("x % 3 + y % 3", 7, 8), 3);
	assert_int_equal(eval("x >> 1 << 2", 5, 0), 8);
	assert_int_equal(eval("x != y", 1, 1), 0);
	assert_int_equal(eval("x <= y && x >= y", 2, 2), 1);
	assert_int_equal(eval("true && !false", 0, 0), 1);
	assert_int_equal(eval("null == 0", 0, 0), 1);
	assert_int_equal(eval("'a' == 97 && '\\x41' == 65 && '\\'' == 39", 0, 0), 1);
	assert_int_equal(eval("tid == 0 && time == 0", 0, 0), 1);
	/* division by zero is defined */
	assert_int_equal(eval("x / y", 5, 0), 0);
	assert_int_equal(eval("x % y", 5, 0), 5);
	/* && and || give 0/1 */
	assert_int_equal(eval("x && y", 5, 7), 1);
	assert_int_equal(eval("x || y", 0, 7), 1);
	assert_int_equal(eval("x || y", 0, 0), 0);
}

static void test_signedness(void **state)
{
	/* variables of eval(): int a = -7, b = 2; uint u = 1; ptr p = 0x10 */
	assert_int_equal(eval("a < b", 0, 0), 1);
	assert_int_equal(eval("a < u", 0, 0), 0);	/* -7 as uint64 */
	assert_int_equal(eval("a / b", 0, 0), -3);
	assert_int_equal(eval("a % b", 0, 0), -1);
	assert_int_equal(eval("a >> 1", 0, 0), -4);
	assert_int_equal(eval("a / u == a", 0, 0), 1);
	assert_int_equal(eval("(a >> u) > 0", 0, 0), 1);
	assert_int_equal(eval("p > a", 0, 0), 0);
	assert_int_equal(eval("p + 8 == 0x18", 0, 0), 1);
	assert_int_equal(eval("x < y", -1, 1), 1);	/* fields are signed */

	assert_int_equal(guard_op("a < 1"), VG_OP_LTS);
	assert_int_equal(guard_op("a <= u"), VG_OP_LEU);
	assert_int_equal(guard_op("u > a"), VG_OP_GTU);
	assert_int_equal(guard_op("p >= 0"), VG_OP_GEU);
	assert_int_equal(guard_op("x >= 0"), VG_OP_GES);
	assert_int_equal(guard_op("a / 2 == 0"), VG_OP_DIVS);
	assert_int_equal(guard_op("u / 2 == 0"), VG_OP_DIVU);
	assert_int_equal(guard_op("a % 2 == 0"), VG_OP_MODS);
	assert_int_equal(guard_op("2 % u == 0"), VG_OP_MODU);
	assert_int_equal(guard_op("a >> 2 == 0"), VG_OP_SHRS);
	assert_int_equal(guard_op("u >> 2 == 0"), VG_OP_SHRU);
	assert_int_equal(guard_op("p >> 2 == 0"), VG_OP_SHRU);
	assert_int_equal(guard_op("a << 2 == 0"), VG_OP_SHL);
	assert_int_equal(guard_op("18446744073709551615 > a"), VG_OP_GTU);
	assert_int_equal(guard_op("t == true"), VG_OP_EQ);
	assert_int_equal(guard_op("-a < 0"), VG_OP_NEG);
	assert_int_equal(guard_op("~a < 0"), VG_OP_BNOT);
	assert_int_equal(guard_op("!t"), VG_OP_NOT);
}

static void test_short_circuit_code(void **state)
{
	struct vg_spec *s = load(
		"property t\nbool a, b\n"
		"state s { before f() when a && b -> s\n"
		"          before g() when a || b -> s }\n");
	const struct vg_property *p = &s->props[0];

	ASSERT_CODE(p, p->trans[0].guard, { VG_OP_LDVAR, 0, 0 },
		    { VG_OP_JZ, 0, 4 }, { VG_OP_LDVAR, 1, 0 },
		    { VG_OP_JZ, 0, 2 }, { VG_OP_PUSH, 0, 1 },
		    { VG_OP_JMP, 0, 1 }, { VG_OP_PUSH, 0, 0 },
		    { VG_OP_END, 0, 0 });
	ASSERT_CODE(p, p->trans[1].guard, { VG_OP_LDVAR, 0, 0 },
		    { VG_OP_JNZ, 0, 4 }, { VG_OP_LDVAR, 1, 0 },
		    { VG_OP_JNZ, 0, 2 }, { VG_OP_PUSH, 0, 0 },
		    { VG_OP_JMP, 0, 1 }, { VG_OP_PUSH, 0, 1 },
		    { VG_OP_END, 0, 0 });
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++) {
			struct env env = { .var = { a ? 7 : 0, b ? 9 : 0 } };

			assert_int_equal(run(p, p->trans[0].guard, &env), a && b);
			assert_int_equal(run(p, p->trans[1].guard, &env), a || b);
		}
	vg_spec_free(s);
}

static void test_stack_limit(void **state)
{
	/* right-nested: every level keeps one value on the stack; 8 fit */
	struct vg_spec *s = load(
		"property t\nint a\nstate s { before f() when "
		"a + (a + (a + (a + (a + (a + (a + a)))))) > 0 -> s }\n");
	const struct vg_property *p = &s->props[0];
	struct env env = { .var = { 1 } };

	assert_int_equal(run(p, p->trans[0].guard, &env), 1);
	vg_spec_free(s);
	/* left-nested chains need two, however long */
	s = load("property t\nint a\nstate s { before f() when "
		 "a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a+a == 26 -> s }\n");
	env.var[0] = 1;
	assert_int_equal(run(&s->props[0], s->props[0].trans[0].guard, &env), 1);
	vg_spec_free(s);
}

static void test_strings(void **state)
{
	struct vg_spec *s = load(
		"property t\nstring name\n"
		"state s {\n"
		"  login(user) when user == \"root\\n\\t\\\\\\\"\\x41\" && name != \"\" { name = user; } -> s\n"
		"}\n"
		"event login(user)\n");
	const struct vg_property *p = &s->props[0];
	uint64_t id = vg_spec_intern(s, "root\n\t\\\"A");

	assert_int_equal(p->code[p->trans[0].guard.off + 1].op, VG_OP_PUSH);
	assert_int_equal(p->code[p->trans[0].guard.off + 1].imm, (int64_t)id);
	assert_int_equal(p->code[p->trans[0].guard.off + 2].op, VG_OP_EQ);
	/* "" is id 0, interned from the start */
	assert_int_equal(p->code[p->trans[0].guard.off + 5].imm, 0);
	assert_int_equal(vg_spec_intern(s, "root\n\t\\\"A"), id);
	assert_int_not_equal(vg_spec_intern(s, "other"), id);
	assert_string_equal(vg_spec_string(s, id), "root\n\t\\\"A");
	assert_null(vg_spec_string(s, 1000000));
	assert_string_equal(vg_spec_string(s, 0), "");
	vg_spec_free(s);
}

static void test_string_table_grows(void **state)
{
	struct vg_spec *s = vg_spec_new();
	char buf[32];

	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(vg_spec_intern(s, buf), (uint64_t)i + 1);
	}
	for (int i = 0; i < 5000; i += 7) {
		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(vg_spec_intern(s, buf), (uint64_t)i + 1);
		assert_string_equal(vg_spec_string(s, (uint64_t)i + 1), buf);
	}
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
		cmocka_unit_test(test_types_and_inits),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_signedness),
		cmocka_unit_test(test_short_circuit_code),
		cmocka_unit_test(test_stack_limit),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_string_table_grows),
		cmocka_unit_test(test_states_and_reactions),
		cmocka_unit_test(test_several_properties_and_whitespace),
		cmocka_unit_test(test_arrow_disambiguation),
		cmocka_unit_test(test_keyword_names),
		cmocka_unit_test(test_load_appends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
