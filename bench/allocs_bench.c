/* bench/allocs_bench.c - a malloc/free-heavy program for the "real
 * programs" table (bench/real_bench.py), run native, under vigil with
 * specs/lib/double_free.vigil + specs/lib/leak.vigil, and under valgrind.
 *
 *   allocs_bench [--n OPS] [--slots W] [--seed S]
 *
 * A working set of W slots; each of OPS steps picks a slot at random
 * (splitmix64, seeded: the same calls on every run): an empty slot gets a
 * block (malloc, 1 in 16 calloc) of a random size, mostly small, sometimes
 * up to 4 KiB, rarely 32 KiB (below glibc's mmap threshold: no system
 * call per block); a full slot's block is freed (1 in 8 grown or shrunk by
 * realloc instead). Both ends of every block are written, as a program
 * uses what it allocates. At the end every block is freed, so a correct
 * run leaks nothing and frees nothing twice.
 *
 * Output, one line through write(2) (stdio's buffer would be one more
 * malloc, a leak by leak.vigil's count):
 *   allocs_bench: ops=N malloc=A calloc=C realloc=R free=F check=X
 * X sums the sizes the program asked for: the driver checks it and the
 * counts against what valgrind and vigil saw. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Mostly small blocks, as most programs allocate. */
static size_t pick_size(uint64_t r)
{
	unsigned k = (unsigned)(r >> 56);	/* 0..255 */

	if (k < 200)
		return 16 + (r & 255);		/* 78%: 16..271 B */
	if (k < 254)
		return 256 + (r & 4095);	/* 21%: up to 4 KiB */
	return 8192 + (r & 24575);		/* 1%: up to 32 KiB */
}

static long opt(int argc, char **argv, const char *name, long dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtol(argv[i + 1], NULL, 0);
	return dflt;
}

int main(int argc, char **argv)
{
	long ops = opt(argc, argv, "--n", 1000000);
	long w = opt(argc, argv, "--slots", 4096);
	uint64_t rng = (uint64_t)opt(argc, argv, "--seed", 1);
	long nmalloc = 0, ncalloc = 0, nrealloc = 0, nfree = 0;
	uint64_t check = 0;
	unsigned char **slot;
	size_t *len;
	char msg[200];
	int n;

	if (ops < 0 || w < 1) {
		n = snprintf(msg, sizeof(msg), "allocs_bench: bad --n or --slots\n");
		write(2, msg, n);
		return 2;
	}
	slot = calloc(w, sizeof(*slot));
	len = calloc(w, sizeof(*len));
	if (!slot || !len)
		return 3;
	ncalloc += 2;		/* every call counts, these two too */
	for (long i = 0; i < ops; i++) {
		uint64_t r = splitmix(&rng);
		long s = (long)(r % (uint64_t)w);
		unsigned char *p = slot[s];

		if (p && (r >> 40) % 8 == 0) {		/* resize */
			size_t sz = pick_size(splitmix(&rng));
			unsigned char *q = realloc(p, sz);

			if (!q)
				return 3;
			q[0] ^= 1;
			q[sz - 1] = (unsigned char)i;
			slot[s] = q;
			len[s] = sz;
			nrealloc++;
			check += sz;
		} else if (p) {
			free(p);
			slot[s] = NULL;
			nfree++;
		} else {
			size_t sz = pick_size(splitmix(&rng));

			if ((r >> 40) % 16 == 1) {
				p = calloc(1, sz);
				ncalloc++;
			} else {
				p = malloc(sz);
				nmalloc++;
			}
			if (!p)
				return 3;
			p[0] = (unsigned char)i;
			p[sz - 1] = (unsigned char)(i >> 8);
			slot[s] = p;
			len[s] = sz;
			check += sz;
		}
	}
	for (long s = 0; s < w; s++)
		if (slot[s]) {
			free(slot[s]);
			nfree++;
		}
	free(slot);
	free(len);
	nfree += 2;
	n = snprintf(msg, sizeof(msg),
		     "allocs_bench: ops=%ld malloc=%ld calloc=%ld realloc=%ld free=%ld check=%llu\n",
		     ops, nmalloc, ncalloc, nrealloc, nfree, (unsigned long long)check);
	write(1, msg, n);
	return 0;
}
