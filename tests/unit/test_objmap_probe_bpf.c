/* The object map's code as BPF (tests/bpf/objmap_test.bpf.c): loaded, so
 * through the verifier, then run with BPF_PROG_TEST_RUN on random
 * operations, each also applied to a user-space map: the answers must be
 * the same, and so must the two maps' bytes, read through the BPF map's
 * mmap as the in-process agent would. Needs root (CAP_BPF); skipped
 * without it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "vigil_objmap.h"
#include "objmap_test.h"
#include "objmap_test.skel.h"

struct fix {
	struct objmap_test_bpf *skel;
	struct vg_objmap *kmap;		/* the BPF map, mapped */
	struct vg_objmap *umap;		/* the user-space one */
	size_t len;
};

static uint64_t rnd_state = 0x853c49e6748fea9bull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int fix_open(struct fix *f, uint64_t nbuckets)
{
	memset(f, 0, sizeof(*f));
	if (geteuid() != 0)
		return -1;
	f->skel = objmap_test_bpf__open();
	if (!f->skel)
		return -1;
	bpf_map__set_max_entries(f->skel->maps.objmap, (uint32_t)nbuckets + 1);
	if (objmap_test_bpf__load(f->skel))
		fail_msg("the object map's programs do not load (verifier)");
	f->len = vg_om_size(nbuckets);
	f->kmap = mmap(NULL, (f->len + 4095) & ~4095ul, PROT_READ | PROT_WRITE,
		       MAP_SHARED, bpf_map__fd(f->skel->maps.objmap), 0);
	assert_true(f->kmap != MAP_FAILED);
	assert_int_equal(vg_om_init(f->kmap, nbuckets), 0);
	f->umap = calloc(1, f->len);
	assert_int_equal(vg_om_init(f->umap, nbuckets), 0);
	return 0;
}

static void fix_close(struct fix *f)
{
	munmap(f->kmap, (f->len + 4095) & ~4095ul);
	free(f->umap);
	objmap_test_bpf__destroy(f->skel);
}

/* one run of a program; the answer is in *c */
static void run(struct bpf_program *prog, struct om_call *c)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = c, .ctx_size_in = sizeof(*c));

	c->ret = -100;
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(prog), &o), 0);
}

static void same_lookup(struct fix *f, uint64_t p)
{
	struct om_call c = { .base = p };
	struct vg_om_obj o;
	int res = vg_om_lookup(f->umap, p, &o);

	run(f->skel->progs.om_lookup, &c);
	assert_int_equal(c.ret, res);
	assert_int_equal(c.obj.kind, o.kind);
	assert_int_equal(c.obj.base, o.base);
	assert_int_equal(c.obj.len, o.len);
	assert_int_equal(c.obj.site, o.site);
	assert_int_equal(c.obj.flags, o.flags);
	assert_int_equal(c.obj.visits, o.visits);
}

/* n random operations on both maps, blocks of 1 byte to 1 GB in a heap
 * of up to 64 slots of 1 GB (so that bases repeat: blocks given out
 * again, frees of what is not there) */
static void random_ops(struct fix *f, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t roll = rnd() % 100;
		uint64_t base = 0x100000000000ull + (rnd() % 64) * (1ull << 30);
		uint64_t len = 1 + rnd() % (1ull << (rnd() % 31));
		struct om_call c = { .base = base, .len = len };

		if (roll < 40) {
			c.kind = 1 + (uint32_t)(rnd() % (VG_OM_NKINDS - 1));
			c.site = (uint32_t)i;
			run(f->skel->progs.om_insert, &c);
			assert_int_equal(c.ret, vg_om_insert(f->umap, base, len,
							      c.kind, c.site));
		} else if (roll < 60) {
			run(f->skel->progs.om_free, &c);
			assert_int_equal(c.ret, vg_om_free(f->umap, base));
		} else if (roll < 65) {
			c.kind = (uint32_t)(rnd() % VG_OM_NKINDS);
			run(f->skel->progs.om_remove, &c);
			assert_int_equal(c.ret,
					 vg_om_remove(f->umap, base, c.kind));
		} else if (roll < 66) {
			run(f->skel->progs.om_lost, &c);
			vg_om_mark_lost(f->umap, base, len);
		} else {
			same_lookup(f, base + rnd() % (2 * len + 1) - len / 2);
		}
	}
	/* same code, same operations: the same bytes */
	assert_memory_equal(f->kmap, f->umap, f->len);
}

static void test_bpf_same(void **state)
{
	struct fix f;

	(void)state;
	if (fix_open(&f, 512))
		skip();
	random_ops(&f, 20000);
	fix_close(&f);
}

/* a map too small: lost objects, evictions, unknown answers, alike */
static void test_bpf_small(void **state)
{
	struct fix f;
	struct om_call c = { .base = 0 };

	(void)state;
	if (fix_open(&f, 2))
		skip();
	random_ops(&f, 5000);
	assert_true(f.kmap->hdr.h.cnt[VG_OMC_LOST] > 0);
	/* something the map lost is unknown to the probe */
	c.base = f.kmap->hdr.h.live_lo;
	run(f.skel->progs.om_lookup, &c);
	assert_true(c.ret == VG_OM_UNKNOWN || c.ret == VG_OM_FOUND);
	fix_close(&f);
}

/* not initialised (vigil has not set it up): unknown, never none */
static void test_bpf_uninit(void **state)
{
	struct fix f;
	struct om_call c = { .base = 0x1000, .len = 8, .kind = VG_OM_HEAP };

	(void)state;
	if (fix_open(&f, 4))
		skip();
	f.kmap->hdr.h.magic = 0;
	run(f.skel->progs.om_insert, &c);
	assert_int_equal(c.ret, VG_OM_EINIT);
	run(f.skel->progs.om_lookup, &c);
	assert_int_equal(c.ret, VG_OM_UNKNOWN);
	fix_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bpf_same),
		cmocka_unit_test(test_bpf_small),
		cmocka_unit_test(test_bpf_uninit),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
