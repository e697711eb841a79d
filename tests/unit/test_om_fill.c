/* user/objmap/om_fill.c's vg_om_fill_roles: each allocation event's part
 * in an object map kept in the probes or the in-process agent (which
 * slot has the block, its size, the old block), and whether every
 * allocation reaches the map's keeper, which decides if the heap's range
 * may be filed (a block it missed would be "no object"). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include "objmap/om_fill.h"
#include "spec/spec.h"

static const char *text =
	"property p \"the allocators\"\n"
	"state ok accepting {\n"
	"  after malloc(size) returns p -> ok\n"
	"  after calloc(n, size) returns p -> ok\n"
	"  after realloc(old, size) returns p -> ok\n"
	"  after posix_memalign(*p, align, size) returns rc when rc == 0 && p != 0 -> ok\n"
	"  after strdup(s) returns p -> ok\n"
	"  before free(p) -> ok\n"
	"  before memcpy(d, s, n) when !valid(d, n) -> bad\n"
	"}\n"
	"state bad violation {}\n";

static struct vg_spec *load(void)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e;

	assert_non_null(s);
	if (vg_spec_load_string(s, "t.vigil", text, &e))
		fail_msg("%s", e.msg);
	return s;
}

static int find(const struct vg_spec *s, enum vg_event_kind k,
		const char *name)
{
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].kind == k && !strcmp(s->events[i].name, name))
			return i;
	fail_msg("no event %s", name);
	return -1;
}

static int skip_ev = -1;	/* the event the keeper does not see */

static bool seen(void *ctx, int ev)
{
	(void)ctx;
	return ev != skip_ev;
}

static void test_roles(void **state)
{
	struct vg_spec *s = load();
	struct vg_fast_omev om[VG_MAX_EVENTS];
	uint64_t filed[VG_MAX_EVENTS / 64] = { 0 };
	int ma = find(s, VG_EV_AFTER, "malloc");
	int ca = find(s, VG_EV_AFTER, "calloc");
	int re = find(s, VG_EV_AFTER, "realloc");
	int pm = find(s, VG_EV_AFTER, "posix_memalign");
	int sd = find(s, VG_EV_AFTER, "strdup");
	int fr = find(s, VG_EV_BEFORE, "free");
	int mc = find(s, VG_EV_BEFORE, "memcpy");

	(void)state;
	memset(om, 0, sizeof(om));
	skip_ev = -1;
	assert_true(vg_om_fill_roles(s, s->nevents, om, filed, seen, NULL));
	assert_int_equal(om[ma].role, VG_OMEV_ALLOC);
	assert_int_equal(om[ma].size1, 0);
	assert_int_equal(om[ma].size2, VG_OMEV_NOSLOT);
	assert_int_equal(om[ca].role, VG_OMEV_ALLOC);
	assert_int_equal(om[ca].size1, 0);
	assert_int_equal(om[ca].size2, 1);
	assert_int_equal(om[re].role, VG_OMEV_REALLOC);
	assert_int_equal(om[re].ptr, 0);	/* the old block */
	assert_int_equal(om[re].size1, 1);
	assert_int_equal(om[pm].role, VG_OMEV_OUT);
	assert_int_not_equal(om[pm].ptr, VG_OMEV_NOSLOT);	/* `*p` */
	assert_int_equal(om[pm].size1, 2);
	assert_int_equal(om[sd].role, VG_OMEV_STRDUP);
	assert_int_equal(om[fr].role, VG_OMEV_FREE);
	assert_int_equal(om[fr].ptr, 0);
	assert_int_equal(om[mc].role, VG_OMEV_NONE);
	vg_spec_free(s);
}

/* an allocation the keeper does not see: filed nowhere, and the heap's
 * range must not be filed; one that is not an allocation changes
 * nothing */
static void test_not_whole(void **state)
{
	struct vg_spec *s = load();
	struct vg_fast_omev om[VG_MAX_EVENTS];
	uint64_t filed[VG_MAX_EVENTS / 64] = { 0 };

	(void)state;
	memset(om, 0, sizeof(om));
	skip_ev = find(s, VG_EV_AFTER, "calloc");
	assert_false(vg_om_fill_roles(s, s->nevents, om, filed, seen, NULL));
	assert_int_equal(om[skip_ev].role, VG_OMEV_NONE);
	assert_int_equal(om[find(s, VG_EV_AFTER, "malloc")].role,
			 VG_OMEV_ALLOC);
	memset(om, 0, sizeof(om));
	skip_ev = find(s, VG_EV_BEFORE, "memcpy");
	assert_true(vg_om_fill_roles(s, s->nevents, om, filed, seen, NULL));
	vg_spec_free(s);
}

/* Two properties bind the same calls, each by an event of its own (an
 * `outside` makes another event, as leak's does among the memory specs):
 * one of each call's events
 * files its block, the first that can, so that a free is not taken out
 * of the map twice; a call one event does not measure (`after malloc()
 * returns q`) is measured by another, and the map is whole. */
static const char *first =
	"property a \"one\"\n"
	"slice on ptr q\n"
	"state s accepting {\n"
	"  after malloc() returns q -> t\n"
	"  before free(q) -> s\n"
	"}\n"
	"state t accepting {}\n";
static const char *second =
	"property b \"two\"\n"
	"slice on ptr p\n"
	"state s accepting {\n"
	"  after malloc(n) returns p outside setlocale -> t\n"
	"  before free(p) outside setlocale -> s\n"
	"}\n"
	"state t accepting {}\n";

static int nth(const struct vg_spec *s, enum vg_event_kind k,
	       const char *name, int n)
{
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].kind == k && !strcmp(s->events[i].name, name) &&
		    !n--)
			return i;
	fail_msg("no event %s", name);
	return -1;
}

static void test_one_call(void **state)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_fast_omev om[VG_MAX_EVENTS];
	uint64_t filed[VG_MAX_EVENTS / 64] = { 0 };
	struct vg_err e;
	int ma0, ma1, fr0, fr1;

	(void)state;
	assert_non_null(s);
	if (vg_spec_load_string(s, "a.vigil", first, &e) ||
	    vg_spec_load_string(s, "b.vigil", second, &e))
		fail_msg("%s", e.msg);
	ma0 = nth(s, VG_EV_AFTER, "malloc", 0);
	ma1 = nth(s, VG_EV_AFTER, "malloc", 1);
	fr0 = nth(s, VG_EV_BEFORE, "free", 0);
	fr1 = nth(s, VG_EV_BEFORE, "free", 1);
	assert_int_not_equal(ma0, ma1);
	assert_int_not_equal(fr0, fr1);
	memset(om, 0, sizeof(om));
	skip_ev = -1;
	assert_true(vg_om_fill_roles(s, s->nevents, om, filed, seen, NULL));
	/* the free: once, by the first */
	assert_int_equal(om[fr0].role, VG_OMEV_FREE);
	assert_int_equal(om[fr1].role, VG_OMEV_NONE);
	/* malloc: by the one that reads the size, the other's unread */
	assert_int_equal(om[ma0].role, VG_OMEV_NONE);
	assert_int_equal(om[ma1].role, VG_OMEV_ALLOC);
	assert_int_equal(om[ma1].size1, 0);
	/* both malloc events' call is filed (by one of them); a free files
	 * no block */
	assert_true(filed[ma0 / 64] >> (ma0 % 64) & 1);
	assert_true(filed[ma1 / 64] >> (ma1 % 64) & 1);
	assert_false(filed[fr0 / 64] >> (fr0 % 64) & 1);
	assert_false(filed[fr1 / 64] >> (fr1 % 64) & 1);
	/* the measuring one not seen: unread, the map not whole, the call
	 * not filed */
	memset(om, 0, sizeof(om));
	memset(filed, 0, sizeof(filed));
	skip_ev = ma1;
	assert_false(vg_om_fill_roles(s, s->nevents, om, filed, seen, NULL));
	assert_int_equal(om[ma0].role, VG_OMEV_NONE);
	assert_false(filed[ma0 / 64] >> (ma0 % 64) & 1);
	vg_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_not_whole),
		cmocka_unit_test(test_one_call),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
