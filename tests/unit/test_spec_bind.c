/* Patterns that bind what an argument points to (`*s`, an out-parameter)
 * and events that say `outside f`: what the compiler hands the probe
 * (captures, binding slots, the inside/outside bits). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "spec_load.h"

static int event(const struct vg_spec *s, enum vg_event_kind kind,
		 const char *name, int noutside)
{
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].kind == kind &&
		    !strcmp(s->events[i].name, name) &&
		    s->events[i].noutside == noutside)
			return i;
	fail_msg("no event %s with %d outside functions", name, noutside);
	return -1;
}

static void test_out_parameter(void **state)
{
	struct vg_spec *s = load(
		"property stmt\n"
		"slice on ptr s\n"
		"ptr conn\n"
		"state idle {\n"
		"  after prepare(db, _, *s) returns rc when rc == 0 && s != 0 { conn = db; } -> open\n"
		"}\n"
		"state open {\n"
		"  before finalize(s) -> idle\n"
		"}\n");
	const struct vg_property *p = &s->props[0];
	int ev = event(s, VG_EV_AFTER, "prepare", 0);
	const struct vg_event *e = &s->events[ev];
	const struct vg_binding *b = NULL;

	(void)state;
	/* one memory read: the word position 2 points to, named s */
	assert_int_equal(e->ncaps, 1);
	assert_int_equal(e->caps[0].src, 2);
	assert_string_equal(e->caps[0].path, "");
	assert_true(e->caps[0].word);
	assert_false(e->caps[0].is_str);
	assert_string_equal(e->caps[0].text, "s");
	/* the probe reads position 2 (the pointer) and 0 (db) */
	assert_true(e->used & (1u << 2));
	assert_true(e->used & (1u << 0));
	assert_int_equal(e->nfields, 3);
	/* `*s` is no name of the function's own parameter */
	assert_string_equal(e->argname[2], "");
	assert_string_equal(e->argname[0], "db");
	for (int i = 0; i < p->nbindings; i++)
		if (p->bindings[i].event == ev)
			b = &p->bindings[i];
	assert_non_null(b);
	assert_int_equal(b->slot[0], VG_SLOT_CAP0 + 0);
	assert_int_equal(b->mask, 1);
	/* a plain read of an argument stays a capture of its own */
	assert_int_equal(s->events[event(s, VG_EV_BEFORE, "finalize", 0)].ncaps,
			 0);
	vg_spec_free(s);
}

static void test_bindings_must_agree(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	(void)state;
	assert_int_equal(vg_spec_load_string(s, "t.vigil",
		"property p\n"
		"slice on ptr s\n"
		"state a {\n"
		"  after make(*s) -> b\n"
		"}\n"
		"state b {\n"
		"  after make(s) -> a\n"
		"}\n", &e), -1);
	assert_non_null(strstr(e.msg, "t.vigil:7:14: error: event make binds s at position 0 here but to memory an argument points to at line 4"));
	vg_spec_free(s);
}

static void test_outside_function_events(void **state)
{
	struct vg_spec *s = load(
		"property inner\n"
		"slice on ptr s\n"
		"state a {\n"
		"  before step(s) outside exec -> b\n"
		"}\n"
		"state b {\n"
		"  before step(s) outside exec, run -> a\n"
		"}\n"
		"property all\n"
		"slice on ptr s\n"
		"state a {\n"
		"  before step(s) -> b\n"
		"}\n"
		"state b {\n"
		"  write *s outside run -> a\n"
		"}\n");
	int plain = event(s, VG_EV_BEFORE, "step", 0);
	int one = event(s, VG_EV_BEFORE, "step", 1);
	int two = event(s, VG_EV_BEFORE, "step", 2);
	int exec_in = event(s, VG_EV_BEFORE, "exec", 0);
	int exec_out = event(s, VG_EV_AFTER, "exec", 0);
	int run_in = event(s, VG_EV_BEFORE, "run", 0);
	int run_out = event(s, VG_EV_AFTER, "run", 0);
	uint8_t bx, br;

	(void)state;
	/* three events on step: each is its own probe */
	assert_true(plain != one && one != two && plain != two);
	assert_int_equal(s->events[plain].outside_mask, 0);
	/* exec and run each have a depth, counted by entry and return */
	assert_true(s->events[exec_in].marks_inside);
	assert_true(s->events[exec_out].marks_inside);
	assert_true(s->events[run_in].marks_inside);
	assert_true(s->events[run_out].marks_inside);
	bx = s->events[exec_in].inside_bit;
	br = s->events[run_in].inside_bit;
	assert_int_equal(s->events[exec_out].inside_bit, bx);
	assert_int_equal(s->events[run_out].inside_bit, br);
	assert_int_not_equal(bx, br);
	assert_int_equal(s->events[one].outside_mask, 1u << bx);
	assert_int_equal(s->events[two].outside_mask, (1u << bx) | (1u << br));
	assert_string_equal(s->events[two].outside[1], "run");
	/* the watch's `outside run` shares run's depth */
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].kind == VG_EV_WRITE)
			assert_int_equal(s->events[i].outside_mask, 1u << br);
	vg_spec_free(s);
}

/* Which events create the values they bind, and so may start a binding's
 * next life over a tombstone (docs/LANGUAGE.md, Memory): an `after` event
 * binding a parameter from its return or through `*p`, a transition
 * marked `creation`, a `creation event`; nothing else. */
static bool creates(const struct vg_spec *s, int prop, int ev)
{
	const struct vg_property *p = &s->props[prop];

	for (int i = 0; i < p->nbindings; i++)
		if (p->bindings[i].event == ev)
			return p->bindings[i].creates;
	fail_msg("property %d does not bind event %d", prop, ev);
	return false;
}

static void test_creating_events(void **state)
{
	struct vg_spec *s = load(
		"property mem\n"
		"slice on ptr p\n"
		"state init {\n"
		"  after alloc() returns p -> live\n"
		"  after handout(*p) -> live\n"
		"  after lock(p) returns r when r == 0 -> live\n"
		"  before use(p) -> live\n"
		"  creation before setup(p) -> live\n"
		"}\n"
		"state live {\n"
		"  before release(p) -> init\n"
		"  before setup(p) -> live\n"
		"}\n"
		"property objs\n"
		"slice on o\n"
		"creation event make(o)\n"
		"event put(o)\n"
		"event creation(o)\n"
		"state s {\n"
		"  make(o) -> s\n"
		"  put(o) -> s\n"
		"  creation(o) -> s\n"
		"}\n");

	(void)state;
	assert_true(creates(s, 0, event(s, VG_EV_AFTER, "alloc", 0)));
	assert_true(creates(s, 0, event(s, VG_EV_AFTER, "handout", 0)));
	/* r is no slice parameter: p is the caller's, used, not made */
	assert_false(creates(s, 0, event(s, VG_EV_AFTER, "lock", 0)));
	assert_false(creates(s, 0, event(s, VG_EV_BEFORE, "use", 0)));
	assert_false(creates(s, 0, event(s, VG_EV_BEFORE, "release", 0)));
	/* one transition's `creation` marks the event in the property */
	assert_true(creates(s, 0, event(s, VG_EV_BEFORE, "setup", 0)));
	assert_true(creates(s, 1, event(s, VG_EV_NAMED, "make", 0)));
	assert_false(creates(s, 1, event(s, VG_EV_NAMED, "put", 0)));
	/* `creation(o)`: an event of that name, not the keyword */
	assert_false(creates(s, 1, event(s, VG_EV_NAMED, "creation", 0)));
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_parameter),
		cmocka_unit_test(test_bindings_must_agree),
		cmocka_unit_test(test_outside_function_events),
		cmocka_unit_test(test_creating_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
