/* bench/bench_loop.h - what the benchmark targets (loop.c, wloop.c,
 * armloop.c) share: their clock, their unit of work, their option values,
 * and the guards that keep a target from outliving its driver. Each
 * target defines BENCH_PROG (its name in messages) before including. */
#ifndef VIGIL_BENCH_LOOP_H
#define VIGIL_BENCH_LOOP_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* K dependent multiply-adds: a fixed amount of CPU work, not a deadline
 * spin, which would absorb the cost of the probe being measured */
static inline uint64_t work(uint64_t acc, long k)
{
	for (long j = 0; j < k; j++) {
		acc = acc * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(acc));
	}
	return acc;
}

/* A non-negative number; with endp, it may be followed by more text. */
static long arg_long(const char *what, const char *s, char **endp)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || (!endp && *end) || v < 0) {
		fprintf(stderr, BENCH_PROG ": bad value for %s: '%s'\n", what, s);
		exit(2);
	}
	if (endp)
		*endp = end;
	return v;
}

/* --pidfile lets the driver kill us if we outlive it; --max-seconds bounds
 * our own life, whatever happens. 0, or 2 (the exit status) on failure. */
static int bench_guard(const char *pidfile, long max_s)
{
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			fprintf(stderr, BENCH_PROG ": cannot write %s\n", pidfile);
			return 2;
		}
	}
	if (max_s)
		alarm((unsigned)max_s);
	return 0;
}

#endif
