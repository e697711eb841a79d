/* The memory predicates in the in-process tier's step (inproc/kstep.c,
 * VG_OP_MEM), answered from the agent's object map (include/
 * vigil_objmap.h) as the user tier answers them: a live heap block and
 * an interior pointer, a writable and a read-only global, the heap
 * between blocks (an arena: no object), a freed block, memory the map
 * has no entry for (unknown: the guard not taken, counted), strlen_at
 * read as the user tier reads it (unknown only where nothing can be
 * read). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inproc_fixture.h"
#include "omhint.h"
#include "vigil_objmap.h"

static const char spec_text[] =
	"property ov \"calls stay inside their objects\"\n"
	"uint len = 0\n"
	"uint room = 0\n"
	"uint over = 0\n"
	"state ok accepting {\n"
	"  before snprintf(dst, n) when !valid(dst, n) { len = n; room = valid(dst, 1) ? block_length(dst) - offset(dst) : 0; over = len - room; } -> overflow\n"
	"  before strcpy(dst, src) when !valid(dst, strlen_at(src, 1048576) + 1) { len = strlen_at(src, 1048576) + 1; } -> overflow\n"
	"  before free(p) when freed(p) -> double_free\n"
	"  before free(p) when p != 0 && !freeable(p) -> bad_free\n"
	"}\n"
	"state overflow violation {}\n"
	"state double_free violation {}\n"
	"state bad_free violation {}\n";

struct mf {
	struct fix f;
	struct vg_objmap *m;
	int snprintf_ev, strcpy_ev, free_ev;
};

/* strlen_at's reads: this process's own memory, read as the agent reads
 * it (a system call, not a load: strlen_at reads up to 128 bytes at a
 * time, past the end of a small global, which a sanitizer's memcpy would
 * rightly call an overflow) */
static int read_here(void *ctx, void *dst, __u64 src, __u64 n)
{
	struct iovec l = { dst, n }, r = { (void *)(uintptr_t)src, n };

	(void)ctx;
	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)n ?
		       0 : -1;
}

/* fix_init's, with the property put in the kernel tier by hand (the
 * plan gives it that tier only with a binary whose every function the
 * in-process tier patches: plan_memfast.c) and an object map */
static void mf_init(struct mf *t)
{
	struct vg_plan_opts o = { .tier = VG_TIER_AUTO,
				  .on_violation = VG_OV_STOP,
				  .no_ktimer = true };
	struct vg_spec *s = load(spec_text);
	struct vg_err e = { 0 };
	uint64_t nb = vg_om_nbuckets(64);
	size_t off;

	memset(t, 0, sizeof(*t));
	t->f.spec = s;
	if (!(t->f.plan = vg_plan_build(s, &o, &e)))
		fail_msg("plan: %s", e.msg);
	assert_false(t->f.plan->props[0].kernel);	/* no binary */
	t->f.plan->kernel[0] = t->f.plan->props[0].kernel = true;
	if (vg_ktier_plan(t->f.plan, &e))
		fail_msg("kernel tier: %s", e.msg);
	t->f.sh = region_new_extra(t->f.plan, 64, 16, vg_om_size(nb), &off);
	t->m = (struct vg_objmap *)((char *)t->f.sh + off);
	assert_int_equal(vg_om_init(t->m, nb), 0);
	t->f.sh->objmap_off = off;
	t->f.env = (struct vg_inproc_env){ .sh = t->f.sh, .tgid = 4242,
					   .tid = 4243, .now_ns = 1000,
					   .emit = emit, .read = read_here };
	nrecs = 0;
	drop = false;
	t->snprintf_ev = event_of(s, "snprintf", VG_EV_BEFORE);
	t->strcpy_ev = event_of(s, "strcpy", VG_EV_BEFORE);
	t->free_ev = event_of(s, "free", VG_EV_BEFORE);
}

static void mf_free(struct mf *t)
{
	fix_free(&t->f);
}

static int call(struct mf *t, int ev, uint64_t a, uint64_t b)
{
	uint64_t slot[VG_NSLOTS] = { [0] = a, [1] = b };

	return step(&t->f, ev, slot);
}

/* the violation just reported: into `to`, with these variables */
static void expect_viol(struct mf *t, const char *to, int64_t len,
			int64_t room)
{
	const struct vg_property *p = &t->f.spec->props[0];

	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].to, state_named(p, to));
	assert_true(recs[0].h.flags & VG_RF_VERDICT);
	if (len >= 0) {
		assert_int_equal(recs[0].vars[0], len);
		assert_int_equal(recs[0].vars[1], room);
		assert_int_equal(recs[0].vars[2], len - room);
	}
	nrecs = 0;
}

/* the slice is back in ok: the next violation is a new instance */
static void reset_slice(struct mf *t)
{
	struct vg_kslot *s = kslice(t->f.sh, 0, 0, 0);

	assert_non_null(s);
	s->state = 0;
	memset(s->vars, 0, sizeof(s->vars));
}

static void test_heap_block(void **state)
{
	struct mf t;

	(void)state;
	mf_init(&t);
	assert_int_equal(vg_om_insert(t.m, 0x10000, 50, VG_OM_HEAP, 0), 0);
	/* inside: nothing */
	assert_int_equal(call(&t, t.snprintf_ev, 0x10000, 50), 0);
	assert_int_equal(call(&t, t.snprintf_ev, 0x10000 + 10, 40), 0);
	assert_int_equal(nrecs, 0);
	/* one past the end: stopped, room 50 */
	assert_int_equal(call(&t, t.snprintf_ev, 0x10000, 51), VG_RF_STOPPED);
	expect_viol(&t, "overflow", 51, 50);
	reset_slice(&t);
	/* an interior pointer: the room left from it */
	assert_int_equal(call(&t, t.snprintf_ev, 0x10000 + 10, 41),
			 VG_RF_STOPPED);
	expect_viol(&t, "overflow", 41, 40);
	/* nothing at its end, nor anywhere: an empty range is valid */
	assert_int_equal(call(&t, t.snprintf_ev, 0x10000 + 50, 0), 0);
	assert_int_equal(call(&t, t.snprintf_ev, 0x90000, 0), 0);
	assert_int_equal(nrecs, 0);
	assert_int_equal(t.f.sh->kunknown[0], 0);
	mf_free(&t);
}

static void test_globals_and_arena(void **state)
{
	struct mf t;

	(void)state;
	mf_init(&t);
	assert_int_equal(vg_om_insert(t.m, 0x30000, 64, VG_OM_GLOBAL, 0), 0);
	assert_int_equal(vg_om_insert(t.m, 0x40000, 64, VG_OM_RODATA, 0), 0);
	assert_int_equal(vg_om_insert(t.m, 0x50000, 0x10000, VG_OM_ARENA, 0),
			 0);
	assert_int_equal(vg_om_insert(t.m, 0x50100, 32, VG_OM_HEAP, 0), 0);
	assert_int_equal(call(&t, t.snprintf_ev, 0x30000, 64), 0);
	assert_int_equal(call(&t, t.snprintf_ev, 0x30000, 80), VG_RF_STOPPED);
	expect_viol(&t, "overflow", 80, 64);
	reset_slice(&t);
	/* read-only: no write fits, room 0 */
	assert_int_equal(call(&t, t.snprintf_ev, 0x40000, 8), VG_RF_STOPPED);
	expect_viol(&t, "overflow", 8, 0);
	reset_slice(&t);
	/* the heap, before a block: no object */
	assert_int_equal(call(&t, t.snprintf_ev, 0x50100 - 8, 16),
			 VG_RF_STOPPED);
	expect_viol(&t, "overflow", 16, 0);
	reset_slice(&t);
	assert_int_equal(call(&t, t.snprintf_ev, 0x50100, 32), 0);
	assert_int_equal(t.f.sh->kunknown[0], 0);
	mf_free(&t);
}

/* no entry at all (a stack, say): unknown, never a violation; counted */
static void test_unknown(void **state)
{
	struct mf t;

	(void)state;
	mf_init(&t);
	assert_int_equal(call(&t, t.snprintf_ev, 0x7ffd0000, 100), 0);
	assert_int_equal(nrecs, 0);
	assert_int_equal(t.f.sh->kunknown[0], 1);
	assert_int_equal(t.f.sh->kunknown_kept[0], 0);
	/* where the map lost an object: unknown too */
	assert_int_equal(vg_om_insert(t.m, 0x50000, 0x10000, VG_OM_ARENA, 0),
			 0);
	vg_om_mark_lost(t.m, 0x50000, 0x1000);
	assert_int_equal(call(&t, t.snprintf_ev, 0x50010, 8), 0);
	assert_int_equal(t.f.sh->kunknown[0], 2);
	/* no map: all unknown */
	t.f.sh->objmap_off = 0;
	assert_int_equal(call(&t, t.snprintf_ev, 0x50010, 8), 0);
	assert_int_equal(t.f.sh->kunknown[0], 3);
	assert_int_equal(nrecs, 0);
	mf_free(&t);
}

static void test_free_preds(void **state)
{
	struct mf t;

	(void)state;
	mf_init(&t);
	assert_int_equal(vg_om_insert(t.m, 0x10000, 50, VG_OM_HEAP, 0), 0);
	/* freeable at its base, not inside */
	assert_int_equal(call(&t, t.free_ev, 0x10000, 0), 0);
	assert_int_equal(nrecs, 0);
	assert_int_equal(call(&t, t.free_ev, 0x10008, 0), VG_RF_STOPPED);
	expect_viol(&t, "bad_free", -1, 0);
	reset_slice(&t);
	/* freed: the second free */
	assert_int_equal(vg_om_free(t.m, 0x10000), 1);
	assert_int_equal(call(&t, t.free_ev, 0x10000, 0), VG_RF_STOPPED);
	expect_viol(&t, "double_free", -1, 0);
	reset_slice(&t);
	/* and no write into it */
	assert_int_equal(call(&t, t.snprintf_ev, 0x10000, 10), VG_RF_STOPPED);
	expect_viol(&t, "overflow", 10, 0);
	mf_free(&t);
}

/* free of a stack address: the map has no entry there, so freed(p) and
 * freeable(p) are unknown (not taken, counted) until vigil says the map
 * saw every allocation (vigil run); then it is no heap block: bad_free */
static void test_free_stack(void **state)
{
	struct mf t;
	uint64_t stack = 0x7ffd00001000ull;

	(void)state;
	mf_init(&t);
	assert_int_equal(call(&t, t.free_ev, stack, 0), 0);
	assert_int_equal(nrecs, 0);
	assert_int_equal(t.f.sh->kunknown[0], 1);
	vg_om_set_complete(t.m, 1);
	assert_int_equal(call(&t, t.free_ev, stack, 0), VG_RF_STOPPED);
	expect_viol(&t, "bad_free", -1, 0);
	assert_int_equal(t.f.sh->kunknown[0], 1);
	reset_slice(&t);
	/* but not where the map lost a block */
	vg_om_mark_lost(t.m, stack, 16);
	assert_int_equal(call(&t, t.free_ev, stack, 0), 0);
	assert_int_equal(nrecs, 0);
	assert_int_equal(t.f.sh->kunknown[0], 2);
	mf_free(&t);
}

/* strlen_at reads the memory as the user tier does (objmap_run.c): a
 * string that runs off its block is read past it (that is the overread),
 * one the map does not know is read all the same; only memory that cannot
 * be read is unknown */
static int read_fails(void *ctx, void *dst, __u64 src, __u64 n)
{
	(void)ctx, (void)dst, (void)src, (void)n;
	return -1;
}

static void test_strlen_at(void **state)
{
	static char src[32] = "hello", dst[4];
	static struct { char open[8], after[8]; } runs = { "abcdefgh", "ij" };
	struct mf t;

	(void)state;
	mf_init(&t);
	assert_int_equal(vg_om_insert(t.m, (uintptr_t)src, sizeof(src),
				      VG_OM_GLOBAL, 0), 0);
	assert_int_equal(vg_om_insert(t.m, (uintptr_t)dst, sizeof(dst),
				      VG_OM_GLOBAL, 0), 0);
	assert_int_equal(vg_om_insert(t.m, (uintptr_t)runs.open,
				      sizeof(runs.open), VG_OM_GLOBAL, 0), 0);
	/* "hello" + 1 into 4 bytes */
	assert_int_equal(call(&t, t.strcpy_ev, (uintptr_t)dst,
			      (uintptr_t)src), VG_RF_STOPPED);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].vars[0], 6);
	nrecs = 0;
	reset_slice(&t);
	/* "llo" + 1 fits */
	assert_int_equal(call(&t, t.strcpy_ev, (uintptr_t)dst,
			      (uintptr_t)src + 2), 0);
	assert_int_equal(nrecs, 0);
	assert_int_equal(t.f.sh->kunknown[0], 0);
	/* no NUL before its block ends: read on, "abcdefghij" + 1 */
	assert_int_equal(call(&t, t.strcpy_ev, (uintptr_t)dst,
			      (uintptr_t)runs.open), VG_RF_STOPPED);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].vars[0], 11);
	nrecs = 0;
	reset_slice(&t);
	/* a string the map does not know (rodata): read all the same */
	assert_int_equal(call(&t, t.strcpy_ev, (uintptr_t)dst,
			      (uintptr_t)"a rodata string"), VG_RF_STOPPED);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].vars[0], 16);
	nrecs = 0;
	reset_slice(&t);
	assert_int_equal(t.f.sh->kunknown[0], 0);
	/* memory that cannot be read: unknown */
	t.f.env.read = read_fails;
	assert_int_equal(call(&t, t.strcpy_ev, (uintptr_t)dst,
			      (uintptr_t)src), 0);
	assert_int_equal(t.f.sh->kunknown[0], 1);
	/* no reader: unknown */
	t.f.env.read = NULL;
	assert_int_equal(call(&t, t.strcpy_ev, (uintptr_t)dst,
			      (uintptr_t)src), 0);
	assert_int_equal(t.f.sh->kunknown[0], 2);
	assert_int_equal(nrecs, 0);
	mf_free(&t);
}

/* The agent's level hints (inproc/omhint.h): a block's entry found by
 * the key its hint names, freed in place there; a hint that is wrong,
 * stale or absent costs the search by every level, never the answer. */
static void test_hints(void **state)
{
	uint64_t nb = 64;
	__u64 n, len;
	struct vg_om_obj o;
	struct vg_objmap *m = calloc(1, vg_om_size(nb) +
					 nb * VG_OM_HINTS_PER_BUCKET);
	uint64_t a = 0x555500001000, b = 0x555500002000;
	struct vg_om_snap s;
	uint8_t *h;

	(void)state;
	assert_non_null(m);
	assert_int_equal(vg_om_init(m, nb), 0);
	/* no hints (the BPF map's header): the search as before */
	assert_null(vg_om_hints(m, &n));
	assert_int_equal(vg_om_insert(m, a, 200, VG_OM_HEAP, 3), 0);
	vg_om_hint(m, a, 200);
	assert_null(vg_om_hinted(m, a, VG_OM_HEAP, &s));
	assert_int_equal(vg_om_has_hinted(m, a, VG_OM_HEAP), 1);
	m->hdr.h.hints = nb * VG_OM_HINTS_PER_BUCKET;
	h = vg_om_hints(m, &n);
	assert_non_null(h);
	assert_int_equal(n, nb * VG_OM_HINTS_PER_BUCKET);
	/* hinted: found at its level's key */
	vg_om_hint(m, a, 200);
	assert_int_equal(h[vg_om_hint_at(a, n)], vg_om_level(200));
	assert_non_null(vg_om_hinted(m, a, VG_OM_HEAP, &s));
	assert_int_equal(s.base, a);
	assert_int_equal(vg_om_has_hinted(m, a, VG_OM_HEAP), 1);
	/* a wrong level: not there, the search finds it */
	h[vg_om_hint_at(a, n)] = (uint8_t)vg_om_level(5000);
	assert_null(vg_om_hinted(m, a, VG_OM_HEAP, &s));
	assert_int_equal(vg_om_has_hinted(m, a, VG_OM_HEAP), 1);
	/* freed through a wrong hint: by the search, in place */
	assert_int_equal(vg_om_free_hinted(m, a, &len), 1);
	assert_int_equal(vg_om_has(m, a, VG_OM_HEAP), 0);
	assert_int_equal(vg_om_has(m, a, VG_OM_FREED), 1);
	/* freed through its hint: the length told, the entry freed */
	assert_int_equal(vg_om_insert(m, b, 48, VG_OM_HEAP, 3), 0);
	vg_om_hint(m, b, 48);
	assert_int_equal(vg_om_free_hinted(m, b, &len), 1);
	assert_int_equal(len, 48);
	assert_int_equal(vg_om_has(m, b, VG_OM_HEAP), 0);
	assert_int_equal(vg_om_has(m, b, VG_OM_FREED), 1);
	assert_int_equal(vg_om_lookup(m, b + 8, &o), VG_OM_FOUND);
	assert_int_equal(o.kind, VG_OM_FREED);
	/* freed already: the hint names a freed entry, no live one */
	assert_null(vg_om_hinted(m, b, VG_OM_HEAP, &s));
	assert_int_equal(vg_om_has_hinted(m, b, VG_OM_HEAP), 0);
	assert_int_equal(vg_om_free_hinted(m, b, &len), 0);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heap_block),
		cmocka_unit_test(test_globals_and_arena),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_free_stack),
		cmocka_unit_test(test_free_preds),
		cmocka_unit_test(test_strlen_at),
		cmocka_unit_test(test_hints),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
