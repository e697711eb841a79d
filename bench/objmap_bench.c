/* bench/objmap_bench.c - the object map's lookups in user space (the
 * in-process agent's build of include/vigil_objmap.h): N live heap blocks
 * of 16 B to 4 KB at an allocator's rising addresses, 200 globals of 1 B
 * to 4 KB, an arena; then lookups of random interior pointers of random
 * blocks, for about half a second each N. Prints lookups per second, the
 * buckets a lookup read (mean and most), and the bound: the worst case
 * whatever the blocks.
 *
 *   build/bench/objmap_bench [N...]   (default: 1000 100000 1000000) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vigil_objmap.h"

static uint64_t rnd_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bench(uint64_t n)
{
	uint64_t nb = vg_om_nbuckets(n + 200), at = 0x55550000000ull;
	struct vg_objmap *m = calloc(1, vg_om_size(nb));
	uint64_t *base = malloc(n * sizeof(*base));
	uint32_t *len = malloc(n * sizeof(*len));
	uint64_t lookups = 0, visits = 0, most = 0, found = 0, unknown = 0;
	double t0, t;

	if (!m || !base || !len || vg_om_init(m, nb))
		return -1;
	for (int i = 0; i < 200; i++)
		vg_om_insert(m, 0x400000 + 4096 * (uint64_t)i,
			     1 + rnd() % 4096, VG_OM_GLOBAL, 0);
	vg_om_insert(m, at, 1ull << 40, VG_OM_ARENA, 0);
	for (uint64_t i = 0; i < n; i++) {
		len[i] = (uint32_t)(16 + rnd() % (1u << (4 + rnd() % 9)));
		base[i] = at;
		at += (len[i] + 16 + 15) & ~15ull;	/* a chunk header */
		vg_om_insert(m, base[i], len[i], VG_OM_HEAP, (uint32_t)i);
	}
	t0 = now();
	do {
		for (int k = 0; k < 4096; k++) {
			uint64_t i = rnd() % n;
			struct vg_om_obj o;

			int res = vg_om_lookup(m, base[i] + rnd() % len[i], &o);

			found += res == VG_OM_FOUND && o.base == base[i];
			unknown += res == VG_OM_UNKNOWN;
			visits += o.visits;
			most = o.visits > most ? o.visits : most;
		}
		lookups += 4096;
		t = now() - t0;
	} while (t < 0.5);
	printf("%8llu blocks (%llu buckets, %llu MB): %6.1f M lookups/s, %.0f ns each, buckets read %.1f mean, %llu most; %llu not filed (unknown)%s\n",
	       (unsigned long long)n, (unsigned long long)nb,
	       (unsigned long long)(vg_om_size(nb) >> 20), lookups / t / 1e6,
	       t / lookups * 1e9, (double)visits / lookups,
	       (unsigned long long)most,
	       (unsigned long long)m->hdr.h.cnt[VG_OMC_LOST],
	       found + unknown == lookups ? "" : "  (SOME WRONG)");
	free(m);
	free(base);
	free(len);
	return found + unknown == lookups ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const uint64_t def[] = { 1000, 100000, 1000000 };
	int rc = 0;

	printf("worst case, any blocks: %d buckets of %d entries a lookup (%d levels x 2 granules x a window of %d, + %d re-reads)\n",
	       VG_OM_NLEVELS * 2 * VG_OM_WINDOW, VG_OM_WAYS, VG_OM_NLEVELS,
	       VG_OM_WINDOW, VG_OM_RETRIES);
	if (argc > 1)
		for (int i = 1; i < argc; i++)
			rc |= bench(strtoull(argv[i], NULL, 0));
	else
		for (int i = 0; i < 3; i++)
			rc |= bench(def[i]);
	return rc ? 1 : 0;
}
