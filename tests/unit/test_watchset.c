/* Which events hold their thread until vigil has armed a watchpoint
 * (vg_plan_watch_holds, VG_EVF_HOLD). Holding costs the target ~110 us a
 * time (docs/PERFORMANCE.md, section 7), so an event is held only when a
 * transition on it can arm something new, and never held too little:
 * then the first write after the arming transition would be missed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "plan/plan.h"
#include "spec/spec.h"
#include "spec_load.h"

/* is event (kind, name) held in spec text? */
static bool held(const struct vg_spec *s, const bool *hold,
		 enum vg_event_kind kind, const char *name)
{
	int ev = vg_spec_find_event(s, kind, name);

	assert_true(ev >= 0);
	return hold && hold[ev];
}

static bool *holds(const struct vg_spec *s)
{
	bool kernel[8] = { false }, oom = false;
	bool *h;

	assert_true(s->nprops <= 8);
	h = vg_plan_watch_holds(s, kernel, &oom);
	assert_false(oom);
	return h;
}

#define OPEN_CLOSE                                                         \
	"slice on ptr o\n"                                                 \
	"int n = 1, k = 0\n"                                               \
	"state closed accepting {\n"                                       \
	"  before obj_open(o) -> open\n"                                   \
	"}\n"

/* The arming transition holds; a self-loop on the watched write does
 * not, nor does the transition that leaves (disarming needs no hold). */
static void test_self_loop_not_held(void **state)
{
	struct vg_spec *s = load("property p \"x\"\n" OPEN_CLOSE
				 "state open accepting {\n"
				 "  write o->count { k = k + 1; } -> open\n"
				 "  before obj_close(o) -> closed\n"
				 "}\n");
	bool *h = holds(s);

	assert_true(held(s, h, VG_EV_BEFORE, "obj_open"));
	assert_false(held(s, h, VG_EV_WRITE, "o->count"));
	assert_false(held(s, h, VG_EV_BEFORE, "obj_close"));
	free(h);
	vg_spec_free(s);
}

/* A self-loop that stores the count of `*o @ n` moves the watch: held. */
static void test_self_loop_moving_watch_held(void **state)
{
	struct vg_spec *s = load("property p \"x\"\n" OPEN_CLOSE
				 "state open accepting {\n"
				 "  write *o @ n { n = n + 1; } -> open\n"
				 "  before obj_close(o) -> closed\n"
				 "}\n");
	bool *h = holds(s);

	assert_true(held(s, h, VG_EV_BEFORE, "obj_open"));
	assert_true(held(s, h, VG_EV_WRITE, "*o @ n"));
	free(h);
	vg_spec_free(s);
}

/* A state with a `watch` reaction: its self-loops re-enter it, held. */
static void test_watch_reaction_held(void **state)
{
	struct vg_spec *s = load("property p \"x\"\n" OPEN_CLOSE
				 "state open accepting {\n"
				 "  before obj_touch(o) -> open\n"
				 "  before obj_close(o) -> closed\n"
				 "}\n"
				 "state counting accepting {\n"
				 "  write o->count -> counting\n"
				 "}\n"
				 "on enter open: watch o->count\n");
	bool *h = holds(s);

	assert_true(held(s, h, VG_EV_BEFORE, "obj_open"));
	assert_true(held(s, h, VG_EV_BEFORE, "obj_touch"));
	assert_false(held(s, h, VG_EV_BEFORE, "obj_close"));
	free(h);
	vg_spec_free(s);
}

/* Watching only globals (armed for the whole run) holds nothing. */
static void test_globals_hold_nothing(void **state)
{
	struct vg_spec *s = load("property p \"x\"\n"
				 "state a accepting {\n"
				 "  write counter -> b\n"
				 "}\n"
				 "state b accepting {\n"
				 "  write counter -> a\n"
				 "}\n");
	bool *h = holds(s);

	assert_null(h);
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_loop_not_held),
		cmocka_unit_test(test_self_loop_moving_watch_held),
		cmocka_unit_test(test_watch_reaction_held),
		cmocka_unit_test(test_globals_hold_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
