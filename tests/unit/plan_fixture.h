/* What the tests of the plan share (test_plan.c, test_ktimer_plan.c):
 * the targets the e2e tests use (build/targets/, from the Makefile's
 * BUILD), and a plan built from a spec on one of them, which fails the
 * test when it cannot be built. After cmocka.h. */
#ifndef VIGIL_TESTS_PLAN_FIXTURE_H
#define VIGIL_TESTS_PLAN_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "probe/features.h"

static char target[4096];

/* build/targets/NAME (the returned buffer is reused by the next call) */
static const char *tgt(const char *name)
{
	const char *b = getenv("BUILD");

	snprintf(target, sizeof(target), "%s/targets/%s", b ? b : "build",
		 name);
	return target;
}

/* spec s's plan on binary bin in tier, stopping at violations, on this
 * machine's kernel (whether its timer can stop a thread, as a run asks:
 * VIGIL_NO_KTIMER says no) */
static struct vg_plan *plan_of(const struct vg_spec *s, const char *bin,
			       enum vg_tier tier, bool dynamic)
{
	struct vg_plan_opts o = { .binary = bin, .tier = tier,
				  .on_violation = VG_OV_STOP,
				  .dynamic = dynamic,
				  .no_ktimer = !vg_feat_ktimer(NULL) };
	struct vg_err e = { 0 };
	struct vg_plan *p = vg_plan_build(s, &o, &e);

	if (!p)
		fail_msg("plan: %s", e.msg);
	return p;
}

/* the plan's site of function fn, its entry or its return */
static __attribute__((unused)) const struct vg_plan_site *
site(const struct vg_plan *p,
				       const char *fn, bool ret)
{
	for (int i = 0; i < p->nsites; i++)
		if (!strcmp(p->spec->events[p->sites[i].event].name, fn) &&
		    p->sites[i].retprobe == ret)
			return &p->sites[i];
	fail_msg("no %s site for %s", ret ? "return" : "entry", fn);
	return NULL;
}

#endif
