/* malloc_storm [ROUNDS]: a correct program that allocates in a tight
 * loop. 256 slots; each round frees one slot's block and allocates a new
 * one of 16 to 300 bytes, writing both of its ends (as a program uses
 * what it allocates: a write to a block malloc just handed out again,
 * which a use_after_free run must not take for one after free). Every
 * block freed at the end. It makes allocator events faster than vigil's
 * user tier reads them (tests/e2e/fast_uaf.sh). Prints "malloc_storm:
 * done N". */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100000;
	unsigned char *slot[256] = { 0 };
	unsigned long x = 88172645463325252ul;

	for (long i = 0; i < rounds; i++) {
		unsigned k, n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = (unsigned)(x & 255);
		n = 16 + (unsigned)(x >> 8) % 285;
		free(slot[k]);
		slot[k] = malloc(n);
		if (!slot[k])
			return 1;
		slot[k][0] = (unsigned char)i;
		slot[k][n - 1] = (unsigned char)i;
	}
	for (int k = 0; k < 256; k++)
		free(slot[k]);
	printf("malloc_storm: done %ld\n", rounds);
	return 0;
}
