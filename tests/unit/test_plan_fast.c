/* Unit tests of the plan's in-process pass (user/plan/plan_fast.c): which
 * calls the in-process tier takes, and why not the others. On the
 * targets the e2e tests use and this machine's libc. No root needed. */
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
#include "spec_load.h"

static struct vg_plan *fast_plan(const struct vg_spec *s, const char *bin,
				 const char *list, const char *refused)
{
	struct vg_plan_fast_req r = { 0 };
	struct vg_plan_opts o = { .binary = bin, .tier = VG_TIER_AUTO,
				  .on_violation = VG_OV_STOP,
				  .no_ktimer = !vg_feat_ktimer(NULL),
				  .no_fast_why = refused };
	struct vg_err e = { 0 };
	struct vg_plan *p;

	if (list) {
		assert_int_equal(vg_plan_fast_parse(list, &r, &e), 0);
		vg_plan_fast_apply(&r, false, &o);
	}
	p = vg_plan_build(s, &o, &e);
	if (!p)
		fail_msg("plan: %s", e.msg);
	free(r.buf);
	return p;
}


static struct vg_plan *user_why_plan(const struct vg_spec *s, enum vg_tier t)
{
	struct vg_plan_fast_req r = { 0 };
	struct vg_plan_opts o = { .binary = tgt("ticker"), .tier = t,
				  .on_violation = VG_OV_STOP,
				  .no_ktimer = !vg_feat_ktimer(NULL),
				  .fast_user_why = "under gdb" };
	struct vg_err e = { 0 };
	struct vg_plan *p;

	assert_int_equal(vg_plan_fast_parse("tick", &r, &e), 0);
	vg_plan_fast_apply(&r, false, &o);
	p = vg_plan_build(s, &o, &e);
	if (!p)
		fail_msg("plan: %s", e.msg);
	free(r.buf);
	return p;
}

static const char ticks[] =
	"property ticks \"t\"\n"
	"int last = -1\n"
	"state counting accepting {\n"
	"  before tick(i) when i > last { last = i; } -> counting\n"
	"  before tick(i) -> out_of_order\n"
	"}\n"
	"state out_of_order violation\n";

/* nothing is in-process unless asked; a named program function is */
static void test_fast_asked(void **state)
{
	struct vg_spec *s = load(ticks);
	struct vg_plan *p = plan_of(s, tgt("ticker"), VG_TIER_AUTO, false);

	assert_int_equal(p->nfast, 0);
	assert_false(site(p, "tick", false)->fast);
	vg_plan_free(p);
	p = fast_plan(s, tgt("ticker"), "hot", NULL);
	assert_int_equal(p->nfast, 0);	/* tick is not hot */
	vg_plan_free(p);
	p = fast_plan(s, tgt("ticker"), "ti*", NULL);
	assert_int_equal(p->nfast, 1);
	assert_true(site(p, "tick", false)->fast);
	vg_plan_free(p);
	/* a run that cannot patch: the reason, and no site */
	p = fast_plan(s, tgt("ticker"), "tick", "--interactive: not yet");
	assert_int_equal(p->nfast, 0);
	assert_string_equal(site(p, "tick", false)->fast_why,
			    "--interactive: not yet");
	vg_plan_free(p);
	vg_spec_free(s);
}

/* --interactive (fast_user_why): a user-tier property's events keep
 * their uprobes, with the reason; a kernel-tier one's go in */
static void test_fast_user_why(void **state)
{
	struct vg_spec *s = load(ticks);
	struct vg_plan *p = user_why_plan(s, VG_TIER_USER);

	assert_int_equal(p->nfast, 0);
	assert_string_equal(site(p, "tick", false)->fast_why, "under gdb");
	vg_plan_free(p);
	p = user_why_plan(s, VG_TIER_KERNEL);
	assert_int_equal(p->nfast, 1);
	assert_true(site(p, "tick", false)->fast);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* one state per slice. A kernel-tier property may have its events on
 * both sides (the agent steps the kernel tier's own table): malloc
 * in-process, a program function by uprobe. A user-tier property's events
 * all go one way: partly hot, partly not, it stays on uprobes whole, and
 * says which event holds it back. */
static const char mixed[] =
	"property mixed \"m\"\n"
	"slice on ptr p\n"
	"state a accepting {\n"
	"  after malloc(_) returns p -> b\n"
	"}\n"
	"state b accepting {\n"
	"  before release(p) -> a\n"
	"}\n";

static struct vg_plan *fast_plan_tier(const struct vg_spec *s,
				      const char *bin, const char *list,
				      enum vg_tier tier)
{
	struct vg_plan_fast_req r = { 0 };
	struct vg_plan_opts o = { .binary = bin, .tier = tier,
				  .on_violation = VG_OV_STOP,
				  .no_ktimer = !vg_feat_ktimer(NULL) };
	struct vg_err e = { 0 };
	struct vg_plan *p;

	assert_int_equal(vg_plan_fast_parse(list, &r, &e), 0);
	vg_plan_fast_apply(&r, false, &o);
	if (!(p = vg_plan_build(s, &o, &e)))
		fail_msg("plan: %s", e.msg);
	free(r.buf);
	return p;
}

static void test_fast_groups(void **state)
{
	struct vg_spec *s = load(mixed);
	struct vg_plan *p = fast_plan_tier(s, tgt("allocs"), "hot",
					   VG_TIER_AUTO);
	const struct vg_plan_site *m;

	assert_true(p->kernel[0]);
	assert_true(site(p, "malloc", true)->fast);
	assert_false(site(p, "release", false)->fast);
	vg_plan_free(p);
	p = fast_plan_tier(s, tgt("allocs"), "hot", VG_TIER_USER);
	m = site(p, "malloc", true);
	assert_false(p->kernel[0]);
	assert_int_equal(p->nfast, 0);
	assert_false(m->fast);
	assert_non_null(strstr(m->fast_why, "goes with before release"));
	vg_plan_free(p);
	/* both asked for: both in-process */
	p = fast_plan_tier(s, tgt("allocs"), "hot,release", VG_TIER_USER);
	assert_true(site(p, "malloc", true)->fast);
	assert_true(site(p, "release", false)->fast);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* what the agent cannot take keeps the uprobe: a C string */
static const char strs[] =
	"property strs \"s\"\n"
	"state a accepting {\n"
	"  before strlen(s) when str(s) == \"x\" -> a\n"
	"}\n";

static void test_fast_refused(void **state)
{
	struct vg_spec *s = load(strs);
	struct vg_plan *p = fast_plan(s, tgt("allocs"), "hot", NULL);
	const struct vg_plan_site *u = site(p, "strlen", false);

	assert_false(u->fast);
	assert_true(u->fast_why[0] != 0);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* A function that starts with a VEX or EVEX instruction (memset on an
 * AVX-512 machine): the in-process tier takes it, never a uprobe; without
 * that tier the rest loads, the property says what it cannot see; an
 * `outside` function so is refused. The machine decides which: the first
 * byte of the function the plan found, read here. */
static const char big_memset[] =
	"property big \"b\"\n"
	"state ok accepting {\n"
	"  before memset(d, c, n) when n > 100000000 -> bad\n"
	"}\n"
	"state bad violation\n";
static const char outside_memset[] =
	"property o \"o\"\n"
	"state ok accepting {\n"
	"  before memcpy(d, s, n) outside memset when n > 100000000 -> bad\n"
	"}\n"
	"state bad violation\n";

static bool starts_vector(const struct vg_plan_site *u)
{
	FILE *f = fopen(u->path, "rb");
	int b;

	assert_non_null(f);
	assert_int_equal(fseek(f, (long)u->func, SEEK_SET), 0);
	b = fgetc(f);
	fclose(f);
	return b == 0xc4 || b == 0xc5 || b == 0x62;
}

static void test_fast_vector(void **state)
{
	struct vg_spec *s = load(big_memset), *o = load(outside_memset);
	struct vg_plan *p = fast_plan(s, tgt("allocs"), "hot", NULL);
	const struct vg_plan_site *u = site(p, "memset", false);
	struct vg_plan_opts off = { .binary = tgt("allocs"),
				    .tier = VG_TIER_AUTO,
				    .on_violation = VG_OV_STOP,
				    .no_ktimer = !vg_feat_ktimer(NULL),
				    .fast_off = true };
	struct vg_err e = { 0 };
	bool vec = starts_vector(u);

	assert_int_equal(u->vector_entry, vec);
	assert_string_equal(p->props[0].unseen, "");
	if (vec)	/* patched, else it would have no site */
		assert_true(u->fast);
	vg_plan_free(p);
	p = vg_plan_build(s, &off, &e);
	assert_non_null(p);
	for (int i = 0; vec && i < p->nsites; i++)
		assert_string_not_equal(p->spec->events[p->sites[i].event].name,
					"memset");
	if (vec) {
		assert_non_null(strstr(p->props[0].unseen,
				       "before memset in libc.so.6 cannot be probed"));
		assert_int_equal(p->nwarnings, 1);
	} else {
		assert_string_equal(p->props[0].unseen, "");
		assert_false(site(p, "memset", false)->fast);
	}
	vg_plan_free(p);
	p = vg_plan_build(o, &off, &e);
	if (vec) {
		assert_null(p);
		assert_non_null(strstr(e.msg, "counts an `outside` depth"));
	} else {
		assert_non_null(p);
	}
	vg_plan_free(p);
	vg_spec_free(s);
	vg_spec_free(o);
}

/* A property with a memory predicate: the kernel tier in-process when
 * every function of it is patched, the agent's object map for it; the
 * user tier, with why, when one is not (then the plan is made again:
 * nothing of it in-process but what its own groups allow), or with
 * --no-fast exactly as before */
static const char mem[] =
	"property ov \"o\"\n"
	"state ok accepting {\n"
	"  after malloc(size) returns p -> ok\n"
	"  before free(p) -> ok\n"
	"  before snprintf(dst, n) when !valid(dst, n) -> bad\n"
	"}\n"
	"state bad violation\n";

static void test_fast_mem(void **state)
{
	struct vg_spec *s = load(mem);
	struct vg_plan *p = fast_plan_tier(s, tgt("allocs"),
					   "hot,snprintf", VG_TIER_AUTO);
	struct vg_plan_opts o = { .binary = tgt("allocs"),
				  .tier = VG_TIER_AUTO,
				  .on_violation = VG_OV_STOP,
				  .no_ktimer = !vg_feat_ktimer(NULL) };
	struct vg_plan_fast_req r = { 0 };
	struct vg_err e = { 0 };

	assert_true(p->kernel[0]);
	assert_true(p->props[0].inproc_mem);
	assert_true(p->objmap_fast);
	assert_int_equal(p->om_objects, VG_PLAN_OBJECTS);
	assert_non_null(strstr(p->props[0].why, "in-process"));
	assert_true(site(p, "snprintf", false)->fast);
	assert_true(site(p, "malloc", true)->fast);
	/* a kernel-tier event of its: no user record, no hold */
	assert_false(p->events[site(p, "snprintf", false)->event].flags &
		     (VG_EVF_USER | VG_EVF_HOLD));
	vg_plan_free(p);
	/* snprintf not asked for: the user tier, said why */
	p = fast_plan_tier(s, tgt("allocs"), "malloc,free", VG_TIER_AUTO);
	assert_false(p->kernel[0]);
	assert_false(p->props[0].inproc_mem);
	assert_false(p->objmap_fast);
	assert_non_null(strstr(p->props[0].why, "uses valid(): the object map is in user space; not all its functions are patched: snprintf"));
	assert_true(p->events[site(p, "snprintf", false)->event].flags &
		    VG_EVF_HOLD);
	vg_plan_free(p);
	/* --no-fast: the kernel tier in the BPF probes, on their map */
	vg_plan_fast_apply(&r, true, &o);
	assert_non_null(p = vg_plan_build(s, &o, &e));
	assert_true(p->kernel[0]);
	assert_true(p->props[0].bpf_mem);
	assert_false(p->props[0].inproc_mem);
	assert_true(p->objmap_bpf);
	assert_false(p->objmap_fast);
	assert_int_equal(p->nfast, 0);
	assert_non_null(strstr(p->props[0].why, "in the BPF probes: --no-fast"));
	/* a kernel-tier event of its: no user record, no hold */
	assert_false(p->events[site(p, "snprintf", false)->event].flags &
		     (VG_EVF_USER | VG_EVF_HOLD));
	vg_plan_free(p);
	/* attached (its heap so far unseen): the user tier, said why */
	o.attached = true;
	assert_non_null(p = vg_plan_build(s, &o, &e));
	assert_false(p->kernel[0]);
	assert_false(p->objmap_bpf);
	assert_non_null(strstr(p->props[0].why, "the object map is in user space; attached to a running process"));
	assert_null(strstr(p->props[0].why, "patched"));
	vg_plan_free(p);
	o.attached = false;
	/* --tier=user: the user tier */
	o.tier = VG_TIER_USER;
	assert_non_null(p = vg_plan_build(s, &o, &e));
	assert_false(p->kernel[0]);
	assert_false(p->objmap_bpf);
	vg_plan_free(p);
	o.tier = VG_TIER_AUTO;
	/* a plan the in-process tier does not apply to (a `vigil load`
	 * unit's): the user tier, no map of either kind */
	o.fast_off = false;
	o.fast_objmap = false;
	o.ktier_objmap = false;
	o.fast_hot = true;
	assert_non_null(p = vg_plan_build(s, &o, &e));
	assert_false(p->kernel[0]);
	vg_plan_free(p);
	vg_spec_free(s);
}

/* the list's errors */
static void test_fast_parse(void **state)
{
	struct vg_plan_fast_req r = { 0 };
	struct vg_err e = { 0 };
	char many[40 * 4];

	assert_int_equal(vg_plan_fast_parse("hot,sqlite3_*,foo", &r, &e), 0);
	assert_true(r.hot);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.names[0], "sqlite3_*");
	many[0] = 0;
	for (int i = 0; i < 40; i++)
		strcat(many, "f,");
	assert_int_equal(vg_plan_fast_parse(many, &r, &e), -1);
	assert_non_null(strstr(e.msg, "more than"));
	free(r.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_asked),
		cmocka_unit_test(test_fast_user_why),
		cmocka_unit_test(test_fast_groups),
		cmocka_unit_test(test_fast_refused),
		cmocka_unit_test(test_fast_vector),
		cmocka_unit_test(test_fast_parse),
		cmocka_unit_test(test_fast_mem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
