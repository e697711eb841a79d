/* bench/soak.c - the target of `make soak` (bench/soak.py): T threads
 * calling soak_op(key) at a sustained total rate for S seconds, over K
 * distinct keys, so a property sliced on the key keeps K live slices.
 *
 *   soak [--threads T] [--rate R] [--seconds S] [--keys K]
 *        [--pidfile F] [--max-seconds S]
 *
 * Each thread paces itself in 1 ms steps against the monotonic clock (its
 * R/T calls per second come in bursts of R/T/1000), so a slow observer
 * shows as a rate below R, not as a longer run. Prints, at the end,
 *   soak: calls=N seconds=E rate=N/E threads=T keys=K
 * where N is the exact number of soak_op calls made. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_PROG "soak"
#include "bench_loop.h"

/* The volatile local gives it a frame, so it starts with push %rbp (built
 * with frame pointers): an entry the kernel's uprobe code emulates. */
__attribute__((noinline, noipa)) void soak_op(long key)
{
	volatile long v = key;

	(void)v;
}

static long nthreads = 8, rate = 500000, seconds = 600, keys = 100000;
static uint64_t t_end;

struct worker {
	pthread_t t;
	long id;
	uint64_t calls;
};

static void *work_loop(void *arg)
{
	struct worker *w = arg;
	/* this thread's share of each millisecond, the remainder spread */
	long per_ms = rate / nthreads / 1000, extra = rate / nthreads % 1000;
	long key = w->id * (keys / nthreads + 1);
	uint64_t next = now_ns();
	struct timespec ts;

	for (long ms = 0; now_ns() < t_end; ms++) {
		long n = per_ms + (ms % 1000 < extra);

		for (long i = 0; i < n; i++) {
			soak_op(key);
			if (++key == keys)
				key = 0;
		}
		w->calls += (uint64_t)n;
		next += 1000000;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL;
	long max_s = 0;
	struct worker *w;
	uint64_t t0, total = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (i + 1 >= argc) {
			fprintf(stderr, "soak: %s needs a value (or unknown option)\n", a);
			return 2;
		}
		if (!strcmp(a, "--threads"))
			nthreads = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--rate"))
			rate = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--seconds"))
			seconds = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--keys"))
			keys = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--pidfile"))
			pidfile = argv[++i];
		else if (!strcmp(a, "--max-seconds"))
			max_s = arg_long(a, argv[++i], NULL);
		else {
			fprintf(stderr, "soak: unknown option %s\n", a);
			return 2;
		}
	}
	if (nthreads < 1 || keys < 1) {
		fprintf(stderr, "soak: --threads and --keys must be at least 1\n");
		return 2;
	}
	if (bench_guard(pidfile, max_s))
		return 2;
	w = calloc((size_t)nthreads, sizeof(*w));
	if (!w)
		return 2;
	t0 = now_ns();
	t_end = t0 + (uint64_t)seconds * 1000000000u;
	for (long i = 0; i < nthreads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].t, NULL, work_loop, &w[i])) {
			fprintf(stderr, "soak: cannot start thread %ld\n", i);
			return 2;
		}
	}
	for (long i = 0; i < nthreads; i++) {
		pthread_join(w[i].t, NULL);
		total += w[i].calls;
	}
	double el = (double)(now_ns() - t0) / 1e9;
	printf("soak: calls=%llu seconds=%.1f rate=%.0f threads=%ld keys=%ld\n",
	       (unsigned long long)total, el, (double)total / el, nthreads,
	       keys);
	free(w);
	return 0;
}
