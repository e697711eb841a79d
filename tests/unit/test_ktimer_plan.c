/* Timed properties in the kernel tier (bpf/ktimer.bpf.h): the plan puts
 * them there (a constant limit, a clock's invariant), stops at the
 * timeout's violation, and takes the stack of the events that enter the
 * timed state (the report's evidence), not of those that leave it. No
 * root needed: a plan reads ELF and DWARF only. */
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
#include "probe/features.h"
#include "spec_load.h"
#include "vigil_event.h"

static int event_named(const struct vg_spec *s, const char *name,
		       enum vg_event_kind kind)
{
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].kind == kind &&
		    !strcmp(s->events[i].name, name))
			return i;
	fail_msg("no event %s", name);
	return -1;
}

static void test_timed_kernel(void **state)
{
	struct vg_spec *s = load(
		"property push_returns \"x\"\n"
		"slice on ptr q\n"
		"state idle accepting { before queue_push(q) -> busy }\n"
		"state busy accepting within 100ms else -> late {\n"
		"  after queue_push(q) -> idle\n"
		"}\n"
		"state late violation\n"
		"on enter late: stop\n");
	struct vg_plan *p = plan_of(s, tgt("queue"), VG_TIER_AUTO, false);
	char why[256];
	int enter = event_named(s, "queue_push", VG_EV_BEFORE);
	int leave = event_named(s, "queue_push", VG_EV_AFTER);

	assert_null(vg_ktier_ineligible(s, 0, !vg_feat_ktimer(NULL), why,
				 sizeof(why)));
	assert_true(p->props[0].kernel);
	assert_int_equal(p->props[0].stop_mask, 1u << 2);
	assert_true(s->props[0].states[1].timed);
	assert_int_equal(s->props[0].states[1].limit_ns, 100000000);
	assert_true(p->events[enter].flags & VG_EVF_STACK);
	assert_false(p->events[leave].flags & VG_EVF_STACK);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* a clock's invariant: the deadline is code the kernel runs (limit -1) */
static void test_clock_invariant_kernel(void **state)
{
	struct vg_spec *s = load(
		"property stall \"x\"\n"
		"slice on ptr q\n"
		"clock c\n"
		"state idle accepting { before queue_push(q) { reset c; } -> busy }\n"
		"state busy accepting within c < 50ms else -> late {\n"
		"  before queue_push(q) -> busy\n"
		"  after queue_pop(q) -> idle\n"
		"}\n"
		"state late violation\n");
	struct vg_plan *p = plan_of(s, tgt("queue"), VG_TIER_AUTO, false);
	char why[256];

	assert_null(vg_ktier_ineligible(s, 0, !vg_feat_ktimer(NULL), why,
				 sizeof(why)));
	assert_true(p->props[0].kernel);
	assert_int_equal(s->props[0].states[1].limit_ns, -1);
	assert_true(s->props[0].states[1].deadline.len > 0);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* a kernel without the timer's kfuncs (VIGIL_NO_KTIMER stands in for
 * one): the user tier, and lint says why */
static void test_no_ktimer_user(void **state)
{
	struct vg_spec *s = load(
		"property push_returns \"x\"\n"
		"slice on ptr q\n"
		"state idle accepting { before queue_push(q) -> busy }\n"
		"state busy accepting within 100ms else -> late {\n"
		"  after queue_push(q) -> idle\n"
		"}\n"
		"state late violation\n");
	struct vg_plan *p;
	char why[256];
	const char *r;

	setenv("VIGIL_NO_KTIMER", "1", 1);
	p = plan_of(s, tgt("queue"), VG_TIER_AUTO, false);
	r = vg_ktier_ineligible(s, 0, !vg_feat_ktimer(NULL), why,
				 sizeof(why));
	unsetenv("VIGIL_NO_KTIMER");
	assert_false(p->props[0].kernel);
	assert_non_null(r);
	assert_non_null(strstr(r, "bpf_send_signal_task"));
	vg_plan_free(p);
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timed_kernel),
		cmocka_unit_test(test_clock_invariant_kernel),
		cmocka_unit_test(test_no_ktimer_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
