/* bench/strcalls.c - the cost of use_after_free's probes on calls into
 * libc's string and memory functions (user/watchset/callacc.c) for a
 * program that never touches freed memory: N rounds of memcpy and strlen
 * on live buffers, one malloc/free pair every 64 rounds (so freed blocks
 * exist to check against). Built -O0 -fno-builtin, as the calls must be
 * real calls. Prints
 *   strcalls: n=N calls=C ns=T ns_per_call=X
 * timed by CLOCK_MONOTONIC around the loop (start-up not counted).
 *
 *   strcalls [N]          (default 200000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	char src[64], dst[64];
	size_t sum = 0;
	struct timespec a, b;
	double ns;

	memset(src, 'a', sizeof(src) - 1);
	src[sizeof(src) - 1] = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		if (i % 64 == 0)
			free(malloc(48));
		memcpy(dst, src, sizeof(dst));
		sum += strlen(dst);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("strcalls: n=%ld calls=%ld ns=%.0f ns_per_call=%.1f sum=%zu\n",
	       n, 2 * n, ns, ns / (2.0 * n), sum);
	return 0;
}
