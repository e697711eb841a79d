/* bench/tloop.c - the target of bench/timeout_bench.py.
 *
 *   tloop late N MS   calls handle(i) for i = 0..N-1, each taking MS ms:
 *                     under a limit below MS, every call times out once
 *                     (the accuracy of N timeouts, none disturbed by
 *                     other events: the target sleeps meanwhile)
 *   tloop fast N      calls handle(i & 7) N times, each returning at once:
 *                     the cost per event, with or without a timeout armed
 *                     at each entry; prints "tloop: ns=T" for the loop
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int sleep_ms;
static volatile long sink;

__attribute__((noinline)) int handle(long r)
{
	if (sleep_ms) {
		struct timespec ts = { sleep_ms / 1000,
				       (long)(sleep_ms % 1000) * 1000000 };

		while (nanosleep(&ts, &ts))
			;
	}
	sink += r;
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	long n;

	if (argc < 3 || (strcmp(argv[1], "late") && strcmp(argv[1], "fast"))) {
		fprintf(stderr, "usage: tloop late N MS | tloop fast N\n");
		return 2;
	}
	n = atol(argv[2]);
	for (long i = 0; i < 8; i++)	/* warm-up: each slice once */
		handle(i);
	if (!strcmp(argv[1], "late"))
		sleep_ms = argc > 3 ? atoi(argv[3]) : 5;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		handle(sleep_ms ? i + 8 : (i & 7));
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("tloop: n=%ld ns=%lld\n", n,
	       (long long)(b.tv_sec - a.tv_sec) * 1000000000ll +
		       (b.tv_nsec - a.tv_nsec));
	return 0;
}
