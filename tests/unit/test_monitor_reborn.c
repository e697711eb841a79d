/* A slice that reached a violation (a tombstone) and the object's next
 * life: an event that starts an instance from the initial state into a
 * state that is not a violation (an allocator handing the same address out
 * again) starts a fresh slice, while an event that would only repeat the
 * violation stays absorbed (docs/LANGUAGE.md, "Memory: freeing and
 * tombstones"). The property is the shape of specs/lib's memory ones,
 * built by hand: one slice per block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "monitor_props.h"

enum { M_INIT, M_LIVE, M_FREED, M_BADFREE, M_DFREE, M_UAF };
static int ev_alloc, ev_free, ev_access;

/* slice on p; alloc(size) returns p; free(p); access(p).
 * init  --alloc {size = size}--> live, --free {bad += 1}--> badfree (viol)
 * live  --free--> freed
 * freed --alloc {size = size}--> live, --free--> dfree, --access--> uaf */
static void build_mem(struct mb *b)
{
	const struct vg_insn set_size[] = { I_FIELD(0), I_STV(0), I_END };
	const struct vg_insn count_bad[] = { I_LDG(0), I_PUSH(1),
					     I_OP(VG_OP_ADD), I_STG(0), I_END };

	mb_init(b);
	ev_alloc = mb_event(b, "alloc", 1);
	ev_free = mb_event(b, "free", 1);
	ev_access = mb_event(b, "access", 1);
	mb_prop(b, "mem", 1, "p");
	mb_var(b, "size", 0);
	mb_global(b, "bad", 0);
	mb_state(b, "init", VG_STATE_ACCEPTING);
	mb_state(b, "live", VG_STATE_ACCEPTING);
	mb_state(b, "freed", VG_STATE_ACCEPTING);
	mb_state(b, "badfree", VG_STATE_VIOLATION);
	mb_state(b, "dfree", VG_STATE_VIOLATION);
	mb_state(b, "uaf", VG_STATE_VIOLATION);
	mb_bind(b, ev_alloc, VG_SLOT_RET);
	mb_bind(b, ev_free, 0);
	mb_bind(b, ev_access, 0);
	mb_creates(b, ev_alloc);	/* `after alloc() returns p` */
	mb_trans_u(b, M_INIT, ev_alloc, M_LIVE, set_size);
	mb_trans_u(b, M_INIT, ev_free, M_BADFREE, count_bad);
	mb_trans(b, M_LIVE, ev_free, M_FREED);
	mb_trans_u(b, M_FREED, ev_alloc, M_LIVE, set_size);
	mb_trans(b, M_FREED, ev_free, M_DFREE);
	mb_trans(b, M_FREED, ev_access, M_UAF);
}

static struct vg_mon_event alloc_ev(uint64_t p, uint64_t size)
{
	struct vg_mon_event ev = MB_EV(ev_alloc, size);

	ev.slot[VG_SLOT_RET] = p;
	return ev;
}

static int64_t bad_frees(struct vg_monitor *m)
{
	return vg_monitor_globals(m, 0)[0];
}

static void test_next_life_after_violation(void **state)
{
	struct mb b;
	struct vg_monitor *m;

	build_mem(&b);
	m = new_mon(&b, 0);
	feed(m, alloc_ev(0x10, 8));
	feed(m, MB_EV(ev_free, 0x10));
	feed(m, MB_EV(ev_free, 0x10));		/* double free */
	assert_int_equal(ncalls, 3);
	assert_int_equal(calls[2].to, M_DFREE);
	assert_true(slice(m, 0, 1, 0x10, 0).tomb);

	/* the violating instance absorbs what only continues it, and an
	 * event that would start an instance straight into a violation
	 * (init --free--> badfree): nothing reported, the global untouched */
	ncalls = 0;
	feed(m, MB_EV(ev_access, 0x10));
	feed(m, MB_EV(ev_free, 0x10));
	assert_int_equal(ncalls, 0);
	assert_int_equal(bad_frees(m), 0);
	assert_true(slice(m, 0, 1, 0x10, 0).tomb);
	assert_int_equal(slice(m, 0, 1, 0x10, 0).state, M_DFREE);

	/* the allocator hands 0x10 out again: a fresh slice, from init */
	feed(m, alloc_ev(0x10, 24));
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].from, M_INIT);
	assert_int_equal(calls[0].to, M_LIVE);
	assert_int_equal(calls[0].v[0], 24);
	{
		struct found f = slice(m, 0, 1, 0x10, 0);

		assert_false(f.tomb);
		assert_int_equal(f.state, M_LIVE);
		assert_int_equal(f.v[0], 24);
	}
	assert_int_equal(stats(m).tombstones, 0);

	/* and its own errors are reported: a use after free this time */
	feed(m, MB_EV(ev_free, 0x10));
	feed(m, MB_EV(ev_access, 0x10));
	assert_int_equal(ncalls, 3);
	assert_int_equal(calls[2].from, M_FREED);
	assert_int_equal(calls[2].to, M_UAF);
	assert_int_equal(slice(m, 0, 1, 0x10, 0).state, M_UAF);
	assert_int_equal(stats(m).tombstones, 1);
	assert_int_equal(count_slices(m), 1);
	vg_monitor_free(m);
	mb_free(&b);
}

static void test_bad_free_reported_once(void **state)
{
	struct mb b;
	struct vg_monitor *m;

	build_mem(&b);
	m = new_mon(&b, 0);
	feed(m, MB_EV(ev_free, 0x20));		/* never allocated */
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].to, M_BADFREE);
	assert_int_equal(bad_frees(m), 1);
	feed(m, MB_EV(ev_free, 0x20));		/* the same error: absorbed */
	assert_int_equal(ncalls, 1);
	assert_int_equal(bad_frees(m), 1);
	feed(m, alloc_ev(0x20, 4));		/* now a block: a new life */
	feed(m, MB_EV(ev_free, 0x20));
	feed(m, MB_EV(ev_free, 0x20));
	assert_int_equal(ncalls, 4);
	assert_int_equal(calls[3].to, M_DFREE);
	assert_int_equal(bad_frees(m), 1);
	vg_monitor_free(m);
	mb_free(&b);
}

/* what the old life may have missed was its own: the next one starts
 * clean (unless the whole property lost track) */
static void test_next_life_starts_conclusive(void **state)
{
	struct mb b;
	struct vg_monitor *m;
	uint64_t p[VG_MAX_PARAMS] = { 0x30 };

	build_mem(&b);
	m = new_mon(&b, 0);
	feed(m, alloc_ev(0x30, 8));
	feed(m, MB_EV(ev_free, 0x30));
	assert_true(vg_monitor_mark_slice_inconclusive(m, 0, 1, p));
	feed(m, MB_EV(ev_access, 0x30));
	assert_true(slice(m, 0, 1, 0x30, 0).tomb);
	assert_true(slice(m, 0, 1, 0x30, 0).inconc);
	assert_true(calls[ncalls - 1].inconc);	/* the violation said it */
	feed(m, alloc_ev(0x30, 8));
	assert_int_equal(slice(m, 0, 1, 0x30, 0).state, M_LIVE);
	assert_false(slice(m, 0, 1, 0x30, 0).inconc);
	assert_false(calls[ncalls - 1].inconc);
	/* a property that lost track of some slice: every new one too */
	vg_monitor_mark_inconclusive(m, 0);
	feed(m, alloc_ev(0x40, 8));
	assert_true(slice(m, 0, 1, 0x40, 0).inconc);
	vg_monitor_free(m);
	mb_free(&b);
}

/* a kernel-tier slice mirrored in a violation state (vg_monitor_set)
 * takes the next life from the user tier's events the same way */
static void test_mirrored_tombstone(void **state)
{
	struct mb b;
	struct vg_monitor *m;
	struct vg_err e;
	uint64_t p[VG_MAX_PARAMS] = { 0x50 };

	build_mem(&b);
	m = new_mon(&b, 0);
	assert_int_equal(vg_monitor_set(m, 0, 1, p, M_DFREE, NULL, &e), 0);
	assert_true(slice(m, 0, 1, 0x50, 0).tomb);
	feed(m, alloc_ev(0x50, 16));
	assert_int_equal(ncalls, 1);
	assert_int_equal(slice(m, 0, 1, 0x50, 0).state, M_LIVE);
	assert_int_equal(slice(m, 0, 1, 0x50, 0).v[0], 16);
	vg_monitor_free(m);
	mb_free(&b);
}

/* An object used again is no new object (issue 32 point 1): slice on o,
 * put(o) {n < 2: n += 1} stays in s, a third put goes to `over`. Every
 * put would start an instance from s into s, which is no violation: were
 * it a next life, the object would start over and violate again, and end
 * `s` at exit though it violated. put creates nothing: the tombstone
 * absorbs every later put. The same with put marked as creating: a new
 * life, and with it a second violation after two more puts. */
static void test_used_again_is_absorbed(void **state)
{
	const struct vg_insn lt2[] = { I_LDV(0), I_PUSH(2), I_OP(VG_OP_LTS),
				       I_END };
	const struct vg_insn inc[] = { I_LDV(0), I_PUSH(1), I_OP(VG_OP_ADD),
				       I_STV(0), I_END };

	for (int creation = 0; creation < 2; creation++) {
		struct mb b;
		struct vg_monitor *m;
		int put;

		mb_init(&b);
		put = mb_event(&b, "put", 1);
		mb_prop(&b, "puts", 1, "o");
		mb_var(&b, "n", 0);
		mb_state(&b, "s", VG_STATE_ACCEPTING);
		mb_state(&b, "over", VG_STATE_VIOLATION);
		mb_bind(&b, put, 0);
		if (creation)
			mb_creates(&b, put);
		mb_trans_gu(&b, 0, put, 0, lt2, inc);
		mb_trans(&b, 0, put, 1);
		m = new_mon(&b, 0);
		ncalls = 0;
		for (int i = 0; i < 3; i++)
			feed(m, MB_EV(put, 7));
		assert_int_equal(ncalls, 3);
		assert_int_equal(calls[2].to, 1);
		assert_true(slice(m, 0, 1, 7, 0).tomb);
		for (int i = 0; i < 3; i++)
			feed(m, MB_EV(put, 7));
		if (!creation) {
			assert_int_equal(ncalls, 3);	/* absorbed */
			assert_true(slice(m, 0, 1, 7, 0).tomb);
			assert_int_equal(slice(m, 0, 1, 7, 0).state, 1);
			assert_int_equal(stats(m).slices_created, 1);
			assert_int_equal(stats(m).tombstones, 1);
		} else {
			/* life 2: s (n 1), s (n 2), over */
			assert_int_equal(ncalls, 6);
			assert_int_equal(calls[3].from, 0);
			assert_int_equal(calls[5].to, 1);
			assert_int_equal(stats(m).slices_created, 2);
		}
		vg_monitor_free(m);
		mb_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_life_after_violation),
		cmocka_unit_test(test_bad_free_reported_once),
		cmocka_unit_test(test_next_life_starts_conclusive),
		cmocka_unit_test(test_mirrored_tombstone),
		cmocka_unit_test(test_used_again_is_absorbed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
