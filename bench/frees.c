/* bench/frees.c - libc free() in a loop, for bench/placement.py: the
 * probe on free's first instruction (`test %rdi,%rdi` on Debian 12's libc,
 * which the kernel must single-step) against the one vigil places on the
 * next instruction it can emulate.
 *   frees N     calls free(NULL) N times, then prints "frees: n=N ns=T"
 * with T the wall time of the loop. free(NULL) still runs the probed
 * instructions. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, t0;
	void *volatile p = NULL;

	t0 = now_ns();
	for (long i = 0; i < n; i++)
		free(p);
	printf("frees: n=%ld ns=%ld\n", n, now_ns() - t0);
	return 0;
}
