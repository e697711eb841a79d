/* The object map (user/objmap/objmap.c) and the memory predicates: the
 * map's answers (an object, no object, unknown), its bounds, and the
 * predicates compiled from the language and run by the monitor, whose
 * unknown answers keep a guard from firing and make the verdict
 * inconclusive; the plan keeps such a property out of the kernel tier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "monitor/monitor.h"
#include "objmap/objmap.h"
#include "plan/plan.h"
#include "spec_load.h"
#include "plan_fixture.h"

#define HEAP_LO 0x10000
#define HEAP_HI 0x90000

static int64_t ask(struct vg_objmap *m, int pred, uint64_t p, uint64_t n,
		   bool *known)
{
	int64_t out = -77;

	*known = vg_objmap_pred(m, pred, p, n, &out);
	return out;
}

/* the predicate's value, the test failing when it is unknown */
static int64_t known(struct vg_objmap *m, int pred, uint64_t p, uint64_t n)
{
	bool k;
	int64_t v = ask(m, pred, p, n, &k);

	assert_true(k);
	return v;
}

static bool unknown(struct vg_objmap *m, int pred, uint64_t p, uint64_t n)
{
	bool k;

	ask(m, pred, p, n, &k);
	return !k;
}

static void test_blocks(void **state)
{
	struct vg_objmap *m = vg_objmap_new(16);

	assert_non_null(m);
	vg_objmap_heap(m, HEAP_LO, HEAP_HI, true);
	vg_objmap_alloc(m, 0x20000, 50, true, 3);
	/* inside, to the last byte */
	assert_int_equal(known(m, VG_MEM_VALID, 0x20000, 50), 1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20010, 34), 1);
	assert_int_equal(known(m, VG_MEM_VALID_READ, 0x20031, 1), 1);
	/* one byte past, and a length that wraps */
	assert_int_equal(known(m, VG_MEM_VALID, 0x20000, 51), 0);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20000, 100), 0);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20010, UINT64_MAX), 0);
	/* an empty range, at the block's end or between blocks: valid */
	assert_int_equal(known(m, VG_MEM_VALID, 0x20000 + 50, 0), 1);
	assert_int_equal(known(m, VG_MEM_VALID_READ, 0x20000 - 8, 0), 1);
	assert_int_equal(known(m, VG_MEM_BLOCK_LENGTH, 0x20010, 0), 50);
	assert_int_equal(known(m, VG_MEM_BLOCK_BASE, 0x20010, 0), 0x20000);
	assert_int_equal(known(m, VG_MEM_OFFSET, 0x20010, 0), 0x10);
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20000, 0), 1);
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20010, 0), 0);
	assert_int_equal(known(m, VG_MEM_FREED, 0x20000, 0), 0);
	/* in the heap before the block (its chunk header) and after it:
	 * no object, a definite false */
	assert_int_equal(known(m, VG_MEM_VALID, 0x20000 - 8, 16), 0);
	assert_int_equal(known(m, VG_MEM_VALID_READ, 0x20032, 1), 0);
	assert_int_equal(known(m, VG_MEM_BLOCK_LENGTH, 0x20032, 0), 0);
	/* outside the heap, no global known: unknown; but no heap block
	 * there, in a map that saw every allocation (heap_preds below) */
	assert_true(unknown(m, VG_MEM_VALID, 0x7ff000, 8));
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x7ff000, 0), 0);
	/* strlen_at reads the process: never the map alone */
	assert_true(unknown(m, VG_MEM_STRLEN_AT, 0x20000, 10));
	vg_objmap_free(m);
}

/* A program's own allocator: pool blocks carved from a malloc'd slab
 * answer for their bytes (the innermost object), the slab for the rest;
 * a released pool block's bytes are the slab's again; free(p) asks of
 * malloc's blocks; the slab freed takes its pool blocks with it */
static void test_pools(void **state)
{
	struct vg_objmap *m = vg_objmap_new(16);
	struct vg_obj o;

	(void)state;
	assert_non_null(m);
	vg_objmap_heap(m, HEAP_LO, HEAP_HI, true);
	vg_objmap_alloc(m, 0x20000, 2048, true, 1);
	vg_objmap_pool_alloc(m, 0x20000, 32, 5);	/* at the slab's start */
	vg_objmap_pool_alloc(m, 0x20020, 32, 5);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20020, 32), 1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20020, 40), 0);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20000, 33), 0);
	assert_int_equal(known(m, VG_MEM_BLOCK_LENGTH, 0x20030, 0), 32);
	assert_int_equal(known(m, VG_MEM_OFFSET, 0x20030, 0), 0x10);
	/* past the pool blocks: the slab */
	assert_int_equal(known(m, VG_MEM_VALID, 0x20040, 64), 1);
	assert_int_equal(known(m, VG_MEM_BLOCK_LENGTH, 0x20040, 0), 2048);
	vg_objmap_lookup(m, 0x20000, &o);
	assert_int_equal(o.kind, VG_OBJ_BLOCK);
	assert_true(o.pool);
	assert_int_equal(o.event, 5);
	/* free(slab) frees the slab, a pool block at its start or not */
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20000, 0), 1);
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20020, 0), 0);
	/* released: the slab's bytes again, not a freed block */
	vg_objmap_pool_release(m, 0x20020);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20020, 40), 1);
	assert_int_equal(known(m, VG_MEM_FREED, 0x20020, 0), 0);
	/* the slab freed: its pool blocks go, its bytes are freed */
	vg_objmap_release(m, 0x20000);
	vg_objmap_lookup(m, 0x20000, &o);
	assert_int_equal(o.kind, VG_OBJ_FREED);
	assert_false(o.pool);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20000, 1), 0);
	/* a pool in memory the map does not know (a mapping of its own):
	 * its blocks are known, released ones freed */
	vg_objmap_pool_alloc(m, 0x7ff000, 32, 5);
	assert_int_equal(known(m, VG_MEM_VALID, 0x7ff000, 32), 1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x7ff000, 40), 0);
	vg_objmap_pool_release(m, 0x7ff000);
	assert_int_equal(known(m, VG_MEM_FREED, 0x7ff000, 0), 1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x7ff000, 1), 0);
	assert_true(unknown(m, VG_MEM_VALID, 0x7ff020, 1));
	vg_objmap_free(m);
}

static void test_freed(void **state)
{
	struct vg_objmap *m = vg_objmap_new(16);

	vg_objmap_heap(m, HEAP_LO, HEAP_HI, true);
	vg_objmap_alloc(m, 0x30000, 64, true, -1);
	vg_objmap_release(m, 0x30000);
	assert_int_equal(known(m, VG_MEM_FREED, 0x30008, 0), 1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x30000, 8), 0);
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x30000, 0), 0);
	/* allocated again (smaller, at the same address): live, not freed */
	vg_objmap_alloc(m, 0x30000, 32, true, -1);
	assert_int_equal(known(m, VG_MEM_FREED, 0x30008, 0), 0);
	assert_int_equal(known(m, VG_MEM_VALID, 0x30000, 32), 1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x30000, 33), 0);
	/* a free of a block it never held changes nothing */
	vg_objmap_release(m, 0x40000);
	assert_int_equal(vg_objmap_count(m), 1);
	vg_objmap_free(m);
}

static void test_bounds_never_lie(void **state)
{
	struct vg_objmap *m = vg_objmap_new(2);

	vg_objmap_heap(m, HEAP_LO, HEAP_HI, true);
	vg_objmap_alloc(m, 0x20000, 16, true, -1);
	vg_objmap_alloc(m, 0x21000, 16, true, -1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x22000, 4), 0);
	/* the third is not held: the heap between held blocks is unknown */
	vg_objmap_alloc(m, 0x22000, 16, true, -1);
	assert_int_equal(vg_objmap_refused(m), 1);
	assert_true(unknown(m, VG_MEM_VALID, 0x22000, 4));
	assert_true(unknown(m, VG_MEM_FREEABLE, 0x22000, 0));
	/* what it holds, it still knows */
	assert_int_equal(known(m, VG_MEM_VALID, 0x21000, 17), 0);
	assert_int_equal(known(m, VG_MEM_VALID, 0x21000, 16), 1);
	vg_objmap_free(m);

	/* a map that did not see the process start (vigil attach): the
	 * blocks from before are not in it */
	m = vg_objmap_new(16);
	vg_objmap_heap(m, HEAP_LO, HEAP_HI, false);
	vg_objmap_alloc(m, 0x20000, 16, true, -1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x20000, 16), 1);
	assert_true(unknown(m, VG_MEM_VALID, 0x50000, 4));
	vg_objmap_free(m);
}

static void test_globals_and_unknown_size(void **state)
{
	struct vg_objmap *m = vg_objmap_new(16);
	struct vg_obj o;
	char text[128];

	vg_objmap_global(m, 0x601000, 64, true, "table");
	vg_objmap_global(m, 0x400800, 16, false, "rodata_table");
	assert_int_equal(known(m, VG_MEM_VALID, 0x601000, 64), 1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x601000, 80), 0);
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x601000, 0), 0);
	/* read-only: readable, not writable */
	assert_int_equal(known(m, VG_MEM_VALID_READ, 0x400800, 16), 1);
	assert_int_equal(known(m, VG_MEM_VALID, 0x400800, 1), 0);
	vg_objmap_lookup(m, 0x601010, &o);
	vg_objmap_describe(&o, NULL, text, sizeof(text));
	assert_string_equal(text, "global table[64]");
	/* strdup's block, of a size its event did not give: its start is
	 * freeable, its length unknown */
	vg_objmap_alloc(m, 0x20000, 0, false, -1);
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20000, 0), 1);
	assert_true(unknown(m, VG_MEM_VALID, 0x20000, 4));
	assert_true(unknown(m, VG_MEM_BLOCK_LENGTH, 0x20000, 0));
	/* ... unless malloc gave it first: the size stays */
	vg_objmap_alloc(m, 0x28000, 7, true, -1);
	vg_objmap_alloc(m, 0x28000, 0, false, -1);
	assert_int_equal(known(m, VG_MEM_BLOCK_LENGTH, 0x28000, 0), 7);
	vg_objmap_free(m);
}

/* freeable(p) and freed(p) are about heap blocks (include/
 * vigil_objmap_pred.h, the rule of the agent's map too): memory with no
 * entry (a stack) is in none once the map saw every allocation, unknown
 * where it did not (vigil attach) or could not hold a block; freed(p)
 * unknown there too once a freed block was forgotten */
static void test_heap_preds(void **state)
{
	struct vg_objmap *m = vg_objmap_new(2);
	uint64_t stack = 0x7ffd00001000ull;

	vg_objmap_global(m, 0x601000, 64, true, "table");
	vg_objmap_alloc(m, 0x20000, 50, true, -1);
	vg_objmap_alloc(m, 0x21000, 50, true, -1);
	vg_objmap_release(m, 0x21000);
	for (int c = 0; c < 2; c++) {
		vg_objmap_complete(m, c);
		assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20000, 0), 1);
		assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20008, 0), 0);
		assert_int_equal(known(m, VG_MEM_FREEABLE, 0x601000, 0), 0);
		assert_int_equal(known(m, VG_MEM_FREED, 0x601000, 0), 0);
		assert_int_equal(known(m, VG_MEM_FREEABLE, 0x21000, 0), 0);
		assert_int_equal(known(m, VG_MEM_FREED, 0x21000, 0), 1);
	}
	/* attached: the stack is unknown memory */
	vg_objmap_complete(m, false);
	assert_true(unknown(m, VG_MEM_FREEABLE, stack, 0));
	assert_true(unknown(m, VG_MEM_FREED, stack, 0));
	/* run from the start: no heap block there, freed or live */
	vg_objmap_complete(m, true);
	assert_int_equal(known(m, VG_MEM_FREEABLE, stack, 0), 0);
	assert_int_equal(known(m, VG_MEM_FREED, stack, 0), 0);
	/* a block it could not hold may be anywhere */
	vg_objmap_alloc(m, 0x22000, 16, true, -1);
	vg_objmap_alloc(m, 0x23000, 16, true, -1);
	assert_int_equal(vg_objmap_refused(m), 1);
	assert_true(unknown(m, VG_MEM_FREEABLE, stack, 0));
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20008, 0), 0);
	vg_objmap_free(m);

	/* the heap as it was when the map began (the in-process tier's
	 * start at the program's entry): its blocks may be unseen */
	m = vg_objmap_new(16);
	vg_objmap_heap(m, HEAP_LO, HEAP_HI, true);
	vg_objmap_alloc(m, 0x20000, 50, true, -1);
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x18000, 0), 0);
	assert_int_equal(known(m, VG_MEM_VALID, 0x18000, 1), 0);
	vg_objmap_unseen(m, HEAP_LO, 0x19000);
	assert_true(unknown(m, VG_MEM_FREEABLE, 0x18000, 0));
	assert_true(unknown(m, VG_MEM_FREED, 0x18000, 0));
	assert_true(unknown(m, VG_MEM_VALID, 0x18000, 1));
	assert_int_equal(known(m, VG_MEM_FREEABLE, 0x20000, 0), 1);
	assert_int_equal(known(m, VG_MEM_FREEABLE, stack, 0), 0);
	vg_objmap_free(m);

	/* freed blocks forgotten: freed(p) of no entry unknown, freeable
	 * still known */
	m = vg_objmap_new(16);
	vg_objmap_complete(m, true);
	for (uint64_t i = 0; i <= 4096; i++) {
		vg_objmap_alloc(m, 0x100000 + 64 * i, 32, true, -1);
		vg_objmap_release(m, 0x100000 + 64 * i);
	}
	assert_true(unknown(m, VG_MEM_FREED, stack, 0));
	assert_int_equal(known(m, VG_MEM_FREEABLE, stack, 0), 0);
	vg_objmap_free(m);
}

/* ---- the language and the monitor ------------------------------------- */

static const char *spec_text =
	"property ov \"copies stay in their block\"\n"
	"uint len = 0\n"
	"state ok accepting {\n"
	"  before memcpy(dst, src, n) when !valid(dst, n) { len = block_length(dst); } -> bad\n"
	"  before memmove(dst, src, n) when n == 0 || !valid(dst, n) -> bad\n"
	"}\n"
	"state bad violation {}\n";

static bool fake_eval(void *ctx, uint32_t pid, int pred, uint64_t p,
		      uint64_t n, int64_t *out)
{
	return vg_objmap_pred(ctx, pred, p, n, out);
}

static int violations;
static int64_t last_len;
static bool last_inconc;

static void on_transition(void *ctx, const struct vg_slice_view *s, int from,
			  int to, const struct vg_mon_event *ev)
{
	const struct vg_spec *spec = ctx;

	if (spec->props[s->prop].states[to].kind == VG_STATE_VIOLATION) {
		violations++;
		last_len = s->vars[0];
		last_inconc = s->inconclusive;
	}
}

static void feed(struct vg_monitor *mon, int event, uint64_t dst,
		 uint64_t n)
{
	struct vg_mon_event ev = { .event = event, .pid = 1, .tid = 1 };
	struct vg_err e = { 0 };

	ev.slot[0] = dst;
	ev.slot[1] = 0x30000;	/* a freed block, in test_monitor_... */
	ev.slot[2] = n;
	assert_int_equal(vg_monitor_event(mon, &ev, &e), 0);
}

static void test_monitor_three_valued(void **state)
{
	struct vg_spec *spec = load(spec_text);
	struct vg_objmap *m = vg_objmap_new(16);
	struct vg_mem_oracle o = { m, fake_eval };
	struct vg_monitor_hooks hooks = { spec, on_transition };
	struct vg_err e = { 0 };
	struct vg_monitor *mon;
	int memcpy_ev = vg_spec_find_event(spec, VG_EV_BEFORE, "memcpy");
	int memmove_ev = vg_spec_find_event(spec, VG_EV_BEFORE, "memmove");
	struct vg_spec *spec2 = load(
		"property ov2 \"x\"\nuint len = 0\n"
		"state ok accepting {\n"
		"  before memcpy(dst, src, n) when !valid(dst, n) -> bad\n"
		"  before memcpy(dst, src, n) when !valid_read(src, n) -> bad\n"
		"}\nstate bad violation {}\n");
	struct vg_monitor_hooks hooks2 = { spec2, on_transition };
	int memcpy_ev2 = vg_spec_find_event(spec2, VG_EV_BEFORE, "memcpy");

	assert_true(vg_objmap_wanted(spec));
	mon = vg_monitor_new(spec, NULL, &hooks, &e);
	assert_non_null(mon);
	vg_monitor_set_mem(mon, &o);
	vg_objmap_heap(m, HEAP_LO, HEAP_HI, true);
	vg_objmap_alloc(m, 0x20000, 50, true, -1);
	vg_objmap_alloc(m, 0x30000, 50, true, -1);
	vg_objmap_release(m, 0x30000);
	violations = 0;
	/* inside: nothing; unknown memory: no violation, inconclusive */
	feed(mon, memcpy_ev, 0x20000, 50);
	assert_int_equal(violations, 0);
	assert_int_equal(vg_monitor_inconclusive_gone(mon, 0), 0);
	feed(mon, memcpy_ev, 0x7ff000, 100);
	assert_int_equal(violations, 0);
	assert_int_equal(vg_monitor_inconclusive_gone(mon, 0), 1);
	/* short-circuit: n == 0 decides before valid() is asked */
	feed(mon, memmove_ev, 0x7ff000, 0);
	assert_int_equal(vg_monitor_inconclusive_gone(mon, 0), 1);
	assert_int_equal(violations, 1);
	vg_monitor_free(mon);

	/* a fresh monitor: the overflow is a violation, with its length */
	violations = 0;
	mon = vg_monitor_new(spec, NULL, &hooks, &e);
	vg_monitor_set_mem(mon, &o);
	feed(mon, memcpy_ev, 0x20000, 100);
	assert_int_equal(violations, 1);
	assert_int_equal(last_len, 50);		/* block_length(dst) */
	assert_int_equal(vg_monitor_inconclusive_gone(mon, 0), 0);
	vg_monitor_free(mon);

	/* an unknown guard passed over, a known one taking the slice into
	 * its violation: the violation is real, not marked */
	violations = 0;
	mon = vg_monitor_new(spec2, NULL, &hooks2, &e);
	vg_monitor_set_mem(mon, &o);
	feed(mon, memcpy_ev2, 0x7ff000, 100);	/* dst unknown, src freed */
	assert_int_equal(violations, 1);
	assert_false(last_inconc);
	vg_monitor_free(mon);

	/* no oracle at all: every predicate unknown, never a violation */
	violations = 0;
	mon = vg_monitor_new(spec, NULL, &hooks, &e);
	feed(mon, memcpy_ev, 0x20000, 100);
	assert_int_equal(violations, 0);
	assert_int_equal(vg_monitor_inconclusive_gone(mon, 0), 1);
	vg_monitor_free(mon);
	vg_objmap_free(m);
	vg_spec_free(spec);
	vg_spec_free(spec2);
}

/* VG_OP_MEM in the VM itself: the oracle's answer, or 0 and unknown
 * said; `valid(p, n) || x` is unknown when valid() is, whatever x */
static void test_vm_op(void **state)
{
	struct vg_objmap *m = vg_objmap_new(4);
	struct vg_mem_oracle o = { m, fake_eval };
	const struct vg_insn valid_or_1[] = {
		{ VG_OP_PUSH, 0, 0, 0, 0x20000 }, { VG_OP_PUSH, 0, 0, 0, 60 },
		{ VG_OP_MEM, 0, 0, 0, VG_MEM_VALID },
		{ VG_OP_JNZ, 0, 0, 0, 2 }, { VG_OP_PUSH, 0, 0, 0, 1 },
		{ VG_OP_END, 0, 0, 0, 0 }, { VG_OP_PUSH, 0, 0, 0, 7 },
		{ VG_OP_END, 0, 0, 0, 0 },
	};
	bool unk = false;
	struct vg_vm_ctx x = { .code = valid_or_1, .len = 8, .mem = &o,
			       .unknown = &unk };

	vg_objmap_heap(m, HEAP_LO, HEAP_HI, true);
	vg_objmap_alloc(m, 0x20000, 64, true, -1);
	assert_int_equal(vg_vm_exec(&x), 7);	/* valid: true, short */
	assert_false(unk);
	vg_objmap_release(m, 0x20000);
	assert_int_equal(vg_vm_exec(&x), 1);	/* freed: false, then 1 */
	assert_false(unk);
	x.mem = NULL;				/* unknown: said */
	assert_int_equal(vg_vm_exec(&x), 1);
	assert_true(unk);
	vg_objmap_free(m);
}

static void test_lint_and_tier(void **state)
{
	struct vg_spec *spec = load(spec_text);
	char why[256];
	const char *r = vg_ktier_ineligible(spec, 0, false, why, sizeof(why));

	assert_non_null(r);
	assert_non_null(strstr(r, "uses valid(): the object map is in user space"));
	vg_spec_free(spec);

	/* wrong use: a string, the wrong number of arguments */
	{
		struct vg_spec *s = vg_spec_new();
		struct vg_err e = { 0 };

		assert_int_not_equal(vg_spec_load_string(s, "t.vigil",
			"property p \"x\"\nstate a accepting {\n"
			"  before f(p) when valid(p) -> b\n}\n"
			"state b violation {}\n", &e), 0);
		assert_non_null(strstr(e.msg, "a length in bytes"));
		vg_spec_free(s);
	}
}

/* the call a guard asks the map about holds its thread until vigil has
 * answered (a stop before the call); an event no such guard reads does
 * not */
static void test_plan_holds(void **state)
{
	struct vg_spec *spec = load(
		"property ov \"x\"\n"
		"state ok accepting {\n"
		"  after malloc(size) returns p -> ok\n"
		"  before memcpy(dst, src, n) when !valid(dst, n) -> bad\n"
		"  before free(p) when p == 0 -> bad\n"
		"}\n"
		"state bad violation {}\n");
	struct vg_plan *p = plan_of(spec, tgt("heapov"), VG_TIER_AUTO, false);
	int cp = vg_spec_find_event(spec, VG_EV_BEFORE, "memcpy");
	int fr = vg_spec_find_event(spec, VG_EV_BEFORE, "free");
	int ma = vg_spec_find_event(spec, VG_EV_AFTER, "malloc");

	assert_false(p->kernel[0]);
	assert_true(p->events[cp].flags & VG_EVF_HOLD);
	assert_false(p->events[fr].flags & VG_EVF_HOLD);
	assert_false(p->events[ma].flags & VG_EVF_HOLD);
	assert_true(p->events[ma].flags & VG_EVF_USER);
	vg_plan_free(p);
	vg_spec_free(spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_freed),
		cmocka_unit_test(test_bounds_never_lie),
		cmocka_unit_test(test_globals_and_unknown_size),
		cmocka_unit_test(test_heap_preds),
		cmocka_unit_test(test_monitor_three_valued),
		cmocka_unit_test(test_vm_op),
		cmocka_unit_test(test_lint_and_tier),
		cmocka_unit_test(test_plan_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
