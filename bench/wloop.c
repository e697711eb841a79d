/* bench/wloop.c - the target of the watchpoint benchmark: a loop that
 * writes a global N times, with a little fixed work between writes.
 *
 *   wloop [--n N] [--work K] [--pidfile F] [--max-seconds S]
 *
 * `counter` is the watched global: volatile, so every iteration is one
 * store the hardware breakpoint sees. It is 8 bytes and aligned, which a
 * debug register covers. The work is K dependent multiply-adds, as in
 * bench/loop.c: a fixed amount of CPU work, not a deadline spin that would
 * absorb the breakpoint's cost.
 *
 * Built -no-pie (bench/Makefile.inc): `counter` is then at its link-time
 * address in every run, so the bare-breakpoint loader (bench/wfloor.c) can
 * arm the breakpoint before the exec, from the symbol table alone.
 *
 * First 8 untimed writes (warm-up: a monitor's first event creates its
 * slice), then the timed loop, which prints
 *   wloop: warmup=8
 *   wloop: n=N work=K ns=T
 * so the observer's start-up and tear-down are not counted. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_PROG "wloop"
#include "bench_loop.h"

volatile long counter;

#define WARMUP 8

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	long n = 1000000, k = 20, max_s = 0;
	const char *pidfile = NULL;
	uint64_t acc = 1, t0, t1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (i + 1 >= argc) {
			fprintf(stderr, "wloop: %s needs a value (or unknown option)\n", a);
			return 2;
		}
		if (!strcmp(a, "--n"))
			n = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--work"))
			k = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--pidfile"))
			pidfile = argv[++i];
		else if (!strcmp(a, "--max-seconds"))
			max_s = arg_long(a, argv[++i], NULL);
		else {
			fprintf(stderr, "wloop: unknown option %s\n", a);
			return 2;
		}
	}
	if (bench_guard(pidfile, max_s))
		return 2;

	for (long i = 0; i < WARMUP; i++)
		counter = i;
	printf("wloop: warmup=%d\n", WARMUP);

	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		counter = i;
		acc = work(acc, k);
	}
	t1 = now_ns();
	sink = acc;
	printf("wloop: n=%ld work=%ld ns=%llu\n", n, k, (unsigned long long)(t1 - t0));
	return 0;
}
