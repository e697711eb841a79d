/* Unit tests of the plan (user/plan/plan.h) against the targets the e2e
 * tests use (build/targets/, from the Makefile's BUILD): tiers and their
 * reasons, stop states, the probe sites (file, placement, entry or
 * return, the program that runs there), what each probe reads, the
 * events that hold a slice for a watchpoint, --dynamic's dormant probes,
 * stacks, the event table (argument locations and types, return values,
 * memory reads), the globals' and the per-slice watchpoints. No root needed: a plan reads ELF and DWARF only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "plan_fixture.h"
#include "probe/rewind.h"
#include "spec_load.h"
#include "vigil_event.h"


static const char queue_spec[] =
	"property queue_bounds \"q\"\n"
	"slice on ptr q\n"
	"int n = 0, max = 0\n"
	"state init accepting {\n"
	"  after queue_new(size) returns q { max = size; } -> ready\n"
	"}\n"
	"state ready accepting {\n"
	"  before queue_push(q) when n < max { n = n + 1; } -> ready\n"
	"  before queue_push(q) -> overflow\n"
	"  before queue_pop(q) when n > 0 { n = n - 1; } -> ready\n"
	"  before queue_pop(q) -> underflow\n"
	"}\n"
	"state overflow violation\n"
	"state underflow violation\n";

/* the kernel tier: 4 sites on the program, the kernel-tier builds, the
 * violations stop the target, no event goes to user space */
static void test_plan_queue_kernel(void **state)
{
	struct vg_spec *s = load(queue_spec);
	struct vg_plan *p = plan_of(s, tgt("queue"), VG_TIER_AUTO, false);
	const struct vg_plan_site *u;

	assert_true(p->props[0].kernel);
	assert_true(p->any_kernel);
	assert_int_equal(p->props[0].stop_mask, 1u << 2 | 1u << 3);
	assert_int_equal(p->nsites, 4);
	/* after queue_new(size): the entry half saves size, the return
	 * half at the same function; neither is moved */
	u = site(p, "queue_new", false);
	assert_int_equal(u->prog, VG_PROG_STASH);
	assert_int_equal(u->offset, u->func);
	assert_true(u->emulated);	/* push %rbp */
	u = site(p, "queue_new", true);
	assert_int_equal(u->prog, VG_PROG_RETURN);
	assert_string_equal(vg_plan_prog_name(p, u->prog), "vg_return_k");
	assert_non_null(strstr(u->path, "targets/queue"));
	u = site(p, "queue_push", false);
	assert_int_equal(u->prog, VG_PROG_ENTRY);
	assert_string_equal(vg_plan_prog_name(p, u->prog), "vg_entry_k");
	assert_false(u->retprobe);
	for (int i = 0; i < s->nevents; i++)
		assert_false(p->events[i].flags & VG_EVF_USER);
	assert_null(p->hold_events);
	/* its tables: one property, its code, a transition group per
	 * (state, event); every event feeds it, with its binding's slots */
	assert_int_equal(p->kt.nkprops, 1);
	assert_int_equal(p->kt.kprop_map[0], 0);
	assert_int_equal(p->kt.kprops[0].stop_mask, 1u << 2 | 1u << 3);
	assert_int_equal(p->kt.kprops[0].nvars, 2);
	assert_int_equal(p->kt.ncode, (uint32_t)s->props[0].ncode);
	assert_int_equal(p->kt.ntrans, 3);	/* init/new, ready/push, ready/pop */
	for (int i = 0; i < s->nevents; i++) {
		assert_int_equal(p->events[i].conf.nkprops, 1);
		assert_int_equal(p->events[i].conf.kprop[0], 0);
	}
	/* queue_new's slice pointer is its return value */
	assert_int_equal(p->events[0].conf.kslot[0][0], VG_SLOT_RET);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* Debian 12's pthread_mutex_lock starts with register writes no probe
 * reads (mov 0x10(%rdi),%eax; mov %eax,%edx; and; and; jne): the entry
 * probes and the return probe move together onto the jne, which the
 * kernel emulates, so one trap serves all three */
static void test_plan_return_placed(void **state)
{
	struct vg_spec *s = load(
		"property p \"x\"\n"
		"slice on ptr m\n"
		"state a accepting {\n"
		"  after pthread_mutex_lock(m) returns r when r == 0 -> b\n"
		"}\n"
		"state b accepting { before pthread_mutex_lock(m) -> a }\n");
	struct vg_plan *p = plan_of(s, tgt("queue"), VG_TIER_AUTO, false);
	const struct vg_plan_site *ret = site(p, "pthread_mutex_lock", true);

	assert_true(ret->offset > ret->func);
	assert_true(ret->emulated);
	for (int i = 0; i < p->nsites; i++) {
		assert_int_equal(p->sites[i].offset, ret->offset);
		assert_true(p->sites[i].emulated);
	}
	vg_plan_free(p);
	vg_spec_free(s);
}

/* Tail calls in Debian 12's libz and libc: inflateInit_ is mov %edx,%ecx;
 * mov %rsi,%rdx; mov $15,%esi; jmp inflateInit2_, pthread_mutex_unlock
 * mov $1,%esi; jmp __pthread_mutex_unlock_usercnt. Probes reading only
 * the first argument (%rdi, where the reads pass put it) go on the jmp,
 * which the kernel emulates; the return probe with them. inflateInit_'s
 * movs would not redo, so its stops are never rewound. */
static void test_plan_tail_calls(void **state)
{
	struct vg_spec *s = load(
		"property p \"x\"\n"
		"slice on ptr s\n"
		"state a accepting {\n"
		"  after inflateInit_(s) returns r when r == 0 -> b\n"
		"}\n"
		"state b accepting { before inflateInit_(s) -> a }\n");
	struct vg_plan *p = plan_of(s, tgt("zstreams"), VG_TIER_AUTO, false);
	const struct vg_plan_site *u = site(p, "inflateInit_", false);

	assert_int_equal(u->offset, u->func + 10);
	assert_true(u->emulated);
	assert_true(u->jmp);
	assert_true(u->norewind);
	assert_int_equal(u->skipped, 3);
	for (int i = 0; i < p->nsites; i++)
		assert_int_equal(p->sites[i].offset, u->offset);
	vg_plan_free(p);
	vg_spec_free(s);

	/* reading the version (%rsi, which mov $15,%esi overwrites): at
	 * the entry, single-stepped */
	s = load("property p \"x\"\n"
		 "state a accepting { before inflateInit_(s, v) when v == 0 -> a }\n");
	p = plan_of(s, tgt("zstreams"), VG_TIER_AUTO, false);
	u = site(p, "inflateInit_", false);
	assert_int_equal(u->offset, u->func);
	assert_false(u->emulated);
	assert_false(u->jmp);
	vg_plan_free(p);
	vg_spec_free(s);

	s = load("property p \"x\"\n"
		 "slice on ptr m\n"
		 "state a accepting { before pthread_mutex_unlock(m) -> a }\n");
	p = plan_of(s, tgt("locks"), VG_TIER_AUTO, false);
	u = site(p, "pthread_mutex_unlock", false);
	assert_int_equal(u->offset, u->func + 5);
	assert_true(u->emulated);
	assert_true(u->jmp);
	assert_false(u->norewind);	/* mov $1,%esi redoes */
	assert_true(vg_rewind_event_ok(s, p, u->event));
	vg_plan_free(p);
	vg_spec_free(s);

	/* inflateInit_'s movs would not redo: its stops never rewind, even
	 * with no return probe on it */
	s = load("property p \"x\"\n"
		 "slice on ptr s\n"
		 "state a accepting { before inflateInit_(s) -> a }\n");
	p = plan_of(s, tgt("zstreams"), VG_TIER_AUTO, false);
	u = site(p, "inflateInit_", false);
	assert_true(u->norewind);
	assert_false(vg_rewind_event_ok(s, p, u->event));
	vg_plan_free(p);
	vg_spec_free(s);
}

/* --tier=user: every event to user space, woken at once where a
 * transition can stop; the user-tier builds */
static void test_plan_queue_user(void **state)
{
	struct vg_spec *s = load(queue_spec);
	struct vg_plan *p = plan_of(s, tgt("queue"), VG_TIER_USER, false);

	assert_false(p->props[0].kernel);
	assert_string_equal(p->props[0].why, "--tier=user");
	assert_string_equal(vg_plan_prog_name(p, VG_PROG_ENTRY), "vg_entry");
	for (int i = 0; i < s->nevents; i++)
		assert_true(p->events[i].flags & VG_EVF_USER);
	/* push and pop can enter overflow/underflow, which stop */
	for (int i = 0; i < s->nevents; i++)
		assert_int_equal(!!(p->events[i].flags & VG_EVF_WAKE),
				 s->events[i].kind == VG_EV_BEFORE);
	assert_int_equal(p->kt.nkprops, 0);	/* no kernel tables */
	for (int i = 0; i < s->nevents; i++)
		assert_int_equal(p->events[i].conf.nkprops, 0);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* a property the kernel tier cannot take says why, and --tier=kernel on
 * it is an error naming the spec line */
static void test_plan_tier_reason(void **state)
{
	struct vg_spec *s = load(
		"property p \"x\"\n"
		"slice on ptr q\n"
		"state a accepting { before queue_push(q) -> b }\n"
		"state b accepting { thread_exit -> a }\n");
	struct vg_plan_opts o = { .binary = tgt("queue"),
				  .tier = VG_TIER_KERNEL };
	struct vg_err e = { 0 };
	struct vg_plan *p = plan_of(s, tgt("queue"), VG_TIER_AUTO, false);

	assert_false(p->props[0].kernel);
	assert_non_null(strstr(p->props[0].why, "thread_exit"));
	vg_plan_free(p);
	assert_null(vg_plan_build(s, &o, &e));
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_non_null(strstr(e.msg, "t.vigil:1:"));
	vg_spec_free(s);
}

/* a missing function: the spec line and the binary */
static void test_plan_missing_function(void **state)
{
	struct vg_spec *s = load("property p \"x\"\n"
				 "state a accepting { before no_such_fn() -> a }\n");
	struct vg_plan_opts o = { .binary = tgt("queue") };
	struct vg_err e = { 0 };

	assert_null(vg_plan_build(s, &o, &e));
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_non_null(strstr(e.msg, "t.vigil:2:"));
	assert_non_null(strstr(e.msg, "no_such_fn"));
	assert_non_null(strstr(e.msg, "targets/queue"));
	vg_spec_free(s);
}

/* a state that consumes `write o->count` holds the slice: the event that
 * enters it stops its thread until the watchpoint is armed */
static void test_plan_watch_holds(void **state)
{
	struct vg_spec *s = load(
		"property counted \"c\"\n"
		"slice on ptr o\n"
		"state closed accepting { before obj_open(o) -> open }\n"
		"state open accepting {\n"
		"  write o->count -> open\n"
		"  before obj_close(o) -> closed\n"
		"}\n");
	struct vg_plan *p = plan_of(s, tgt("objects"), VG_TIER_AUTO, false);
	int open = -1, close = -1;

	for (int i = 0; i < s->nevents; i++) {
		if (!strcmp(s->events[i].name, "obj_open"))
			open = i;
		if (!strcmp(s->events[i].name, "obj_close"))
			close = i;
	}
	assert_true(open >= 0 && close >= 0);
	assert_false(p->props[0].kernel);	/* watches are user tier */
	assert_non_null(p->hold_events);
	assert_true(p->events[open].flags & VG_EVF_HOLD);
	assert_false(p->events[close].flags & VG_EVF_HOLD);
	/* the watch itself is no uprobe */
	assert_int_equal(p->nsites, 2);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* --dynamic: noise() is needed only inside a session, so its entry probe
 * starts dormant and open_session's return arms it */
static void test_plan_dynamic(void **state)
{
	struct vg_spec *s = load(
		"property in_session \"s\"\n"
		"slice on int s\n"
		"state init accepting { after open_session(id) returns s -> open }\n"
		"state open accepting {\n"
		"  before noise(k) -> open\n"
		"  before close_session(id) when id == s -> init\n"
		"}\n");
	struct vg_plan *p = plan_of(s, tgt("phases"), VG_TIER_USER, true);
	int noise = -1, open = -1;

	for (int i = 0; i < s->nevents; i++) {
		if (!strcmp(s->events[i].name, "noise"))
			noise = i;
		if (!strcmp(s->events[i].name, "open_session"))
			open = i;
	}
	assert_true(site(p, "noise", false)->dormant);
	assert_false(site(p, "open_session", true)->dormant);
	assert_int_equal(p->dormant >> noise & 1, 1);
	assert_true(p->events[open].arms >> noise & 1);
	/* after open_session(id) with an argument: a stash at the entry */
	assert_int_equal(site(p, "open_session", false)->prog, VG_PROG_STASH);
	/* the analysis is made once: the session takes the plan's, and the
	 * event table carries the arms */
	assert_non_null(p->dyn);
	assert_int_equal(p->events[open].conf.arms, p->events[open].arms);
	struct vg_plan_dyn *d = vg_plan_take_dyn(p);

	assert_non_null(d);
	assert_null(p->dyn);
	assert_null(vg_plan_take_dyn(p));
	vg_plan_dyn_free(d);
	vg_plan_free(p);
	vg_spec_free(s);
}

static int event_named(const struct vg_spec *s, const char *name)
{
	for (int i = 0; i < s->nevents; i++)
		if (!strcmp(s->events[i].name, name))
			return i;
	fail_msg("no event %s", name);
	return -1;
}

/* what each probe reads is in the plan, as the event table the probes
 * get: narrow's int in %edi sign-extended, its unsigned short in %si
 * zero-extended, its bool the low byte of %rcx; many's seventh argument
 * (an int) on the stack, its eighth the next slot; neg's short return
 * value sign-extended; and what a `p->field` read follows */
static void test_plan_reads(void **state)
{
	struct vg_spec *s = load(
		"property p \"x\"\n"
		"state a accepting {\n"
		"  before narrow(a, b, c, d) when a + b + c + d > 0 -> a\n"
		"  before many(x1, x2, x3, x4, x5, x6, x7, x8) when x7 + x8 > 0 -> a\n"
		"  after neg(i) returns r when r < 0 -> a\n"
		"}\n");
	struct vg_plan *p = plan_of(s, tgt("typed"), VG_TIER_USER, false);
	const struct vg_ev_conf *c;

	c = &p->events[event_named(s, "narrow")].conf;
	assert_true(c->flags & VG_EVF_ARGS);
	assert_true(c->flags & VG_EVF_USER);	/* the plan's flags too */
	assert_int_equal(c->arg[0].where, VG_ARG_REG);
	assert_int_equal(c->arg[0].reg, 0);
	assert_int_equal(c->arg[0].conv, VG_CONV_SEXT);
	assert_int_equal(c->arg[0].size, 4);
	assert_int_equal(c->arg[1].reg, 1);
	assert_int_equal(c->arg[1].conv, VG_CONV_ZEXT);
	assert_int_equal(c->arg[1].size, 2);
	assert_int_equal(c->arg[2].conv, VG_CONV_SEXT);
	assert_int_equal(c->arg[2].size, 1);
	assert_int_equal(c->arg[3].reg, 3);
	assert_int_equal(c->arg[3].conv, VG_CONV_BOOL);
	assert_non_null(strstr(p->events[event_named(s, "narrow")].what[1],
			       "short unsigned int in %rsi"));
	c = &p->events[event_named(s, "many")].conf;
	assert_int_equal(c->arg[6].where, VG_ARG_STACK);
	assert_int_equal(c->arg[6].stack_off, 8);
	assert_int_equal(c->arg[6].conv, VG_CONV_SEXT);
	assert_int_equal(c->arg[6].size, 4);
	assert_int_equal(c->arg[7].where, VG_ARG_STACK);
	assert_int_equal(c->arg[7].stack_off, 16);
	c = &p->events[event_named(s, "neg")].conf;
	assert_true(c->flags & VG_EVF_RETX);
	assert_int_equal(c->ret_conv, VG_CONV_SEXT);
	assert_int_equal(c->ret_size, 2);
	/* an `after` event's records carry the return value's slot */
	assert_true(c->rec_slots >= vg_rec_slots_for(VG_SLOT_RET + 1));
	vg_plan_free(p);
	vg_spec_free(s);

	s = load("property q \"x\"\n"
		 "slice on ptr o\n"
		 "state a accepting { before obj_open(o) when o->count == 0 -> a }\n");
	p = plan_of(s, tgt("objects"), VG_TIER_USER, false);
	c = &p->events[0].conf;
	assert_int_equal(c->ncaps, 1);
	assert_int_equal(c->cap[0].src, 0);
	assert_int_equal(c->cap[0].nsteps, 1);
	assert_int_equal(c->cap[0].off[0], 8);	/* struct obj's count */
	assert_int_equal(c->cap[0].size, 8);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* an argument DWARF cannot place fails the plan, before anything is
 * loaded, at the spec line */
static void test_plan_reads_error(void **state)
{
	struct vg_spec *s = load("property p \"x\"\n"
				 "state a accepting { before scaled(x) when x > 0 -> a }\n");
	struct vg_plan_opts o = { .binary = tgt("typed") };
	struct vg_err e = { 0 };

	assert_null(vg_plan_build(s, &o, &e));
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_non_null(strstr(e.msg, "t.vigil:2:"));
	vg_spec_free(s);
}

/* the watches: a global's address, size and type from the program, and a
 * per-slice watch's offset from the DWARF of the function that gives the
 * slice its pointer */
static void test_plan_watches(void **state)
{
	struct vg_spec *s = load(
		"property g \"x\"\n"
		"state a accepting {\n"
		"  write level -> a\n"
		"  read flag1 -> a\n"
		"}\n");
	struct vg_plan *p = plan_of(s, tgt("watched"), VG_TIER_AUTO, false);

	assert_int_equal(p->ngwatch, 2);
	assert_string_equal(p->gwatch[0].name, "level");
	assert_int_equal(p->gwatch[0].len, 2);
	assert_int_equal(p->gwatch[0].conv, VG_CONV_SEXT);
	assert_false(p->gwatch[0].read);
	assert_true(p->gwatch[0].link_addr != 0);
	assert_string_equal(p->gwatch[1].name, "flag1");
	assert_int_equal(p->gwatch[1].len, 1);
	assert_true(p->gwatch[1].read);
	assert_int_equal(p->nswatch, 0);
	vg_plan_free(p);
	vg_spec_free(s);

	s = load("property counted \"c\"\n"
		 "slice on ptr o\n"
		 "state closed accepting { before obj_open(o) -> open }\n"
		 "state open accepting {\n"
		 "  write o->count -> open\n"
		 "  before obj_close(o) -> closed\n"
		 "}\n");
	p = plan_of(s, tgt("objects"), VG_TIER_AUTO, false);
	assert_int_equal(p->ngwatch, 0);
	assert_int_equal(p->nswatch, 1);
	assert_int_equal(p->swatch[0].prop, 0);
	assert_string_equal(s->events[p->swatch[0].event].name, "o->count");
	assert_int_equal(p->swatch[0].nloc, 1);
	assert_int_equal(p->swatch[0].loc[0].base, 0);	/* parameter o */
	assert_false(p->swatch[0].loc[0].base_var);
	assert_int_equal(p->swatch[0].loc[0].ty.nsteps, 1);
	assert_int_equal(p->swatch[0].loc[0].ty.off[0], 8);
	assert_int_equal(p->swatch[0].loc[0].ty.elem, 8);
	assert_string_equal(s->events[p->swatch[0].loc[0].src_event].name,
			    "obj_open");
	assert_non_null(vg_plan_swatch_of(p, 0, p->swatch[0].event));
	vg_plan_free(p);
	vg_spec_free(s);
}

/* a global that is not there fails the plan at the spec line */
static void test_plan_watch_missing_global(void **state)
{
	struct vg_spec *s = load("property g \"x\"\n"
				 "state a accepting { write no_such_global -> a }\n");
	struct vg_plan_opts o = { .binary = tgt("watched") };
	struct vg_err e = { 0 };

	assert_null(vg_plan_build(s, &o, &e));
	assert_int_equal(e.exit_code, VG_EXIT_USAGE);
	assert_non_null(strstr(e.msg, "t.vigil:2:"));
	assert_non_null(strstr(e.msg, "no_such_global"));
	vg_spec_free(s);
}

/* a backtrace reaction takes the stacks of its property's events */
static void test_plan_stacks(void **state)
{
	struct vg_spec *s = load(
		"property p \"x\"\n"
		"slice on ptr q\n"
		"state a accepting { before queue_push(q) -> b }\n"
		"state b violation\n"
		"on enter b: backtrace\n");
	struct vg_plan *p = plan_of(s, tgt("queue"), VG_TIER_AUTO, false);

	assert_true(p->stack_events[0]);
	assert_true(p->events[0].flags & VG_EVF_STACK);
	vg_plan_free(p);
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_queue_kernel),
		cmocka_unit_test(test_plan_return_placed),
		cmocka_unit_test(test_plan_tail_calls),
		cmocka_unit_test(test_plan_queue_user),
		cmocka_unit_test(test_plan_tier_reason),
		cmocka_unit_test(test_plan_missing_function),
		cmocka_unit_test(test_plan_watch_holds),
		cmocka_unit_test(test_plan_dynamic),
		cmocka_unit_test(test_plan_stacks),
		cmocka_unit_test(test_plan_reads),
		cmocka_unit_test(test_plan_reads_error),
		cmocka_unit_test(test_plan_watches),
		cmocka_unit_test(test_plan_watch_missing_global),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
