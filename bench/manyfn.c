/* bench/manyfn.c - 200 probe sites in one library, for the fixed-cost
 * benchmark (bench/fixed_cost.py). Built twice: with -DVG_MANYFN_LIB into
 * build/bench/libmanyfn.so (mf_0 ... mf_199), else into build/bench/manyfn,
 * which calls each once.
 *
 *   manyfn              "start NS", one call of each, "end NS": monotonic
 *                       times of its first and last instructions in main
 *   manyfn --hold MB N  touches MB megabytes, then calls mf_0..mf_{N-1}
 *                       every millisecond until SIGINT or SIGTERM, and
 *                       prints the longest pauses it saw (a checkpoint
 *                       stops it: detach, dump, attach again) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define F10(F, n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) \
		  F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F200(F) F10(F, ) F10(F, 1) F10(F, 2) F10(F, 3) F10(F, 4) \
	F10(F, 5) F10(F, 6) F10(F, 7) F10(F, 8) F10(F, 9) F10(F, 10) \
	F10(F, 11) F10(F, 12) F10(F, 13) F10(F, 14) F10(F, 15) F10(F, 16) \
	F10(F, 17) F10(F, 18) F10(F, 19)

#ifdef VG_MANYFN_LIB
volatile long mf_sink;
/* distinct bodies, so that no two are folded into one */
#define DEFINE(n) __attribute__((noinline)) void mf_##n(void) \
	{ mf_sink += 1##n; }
F200(DEFINE)
#else
#define DECLARE(n) void mf_##n(void);
F200(DECLARE)
#define ADDR(n) mf_##n,
static void (*const fns[])(void) = { F200(ADDR) };
enum { NFNS = sizeof(fns) / sizeof(fns[0]) };

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int hold(long mb, int n)
{
	char *mem = malloc((size_t)mb << 20);
	long long last, gaps[8] = { 0 };
	struct sigaction sa = { .sa_handler = on_stop };

	if (!mem || n < 0 || n > NFNS)
		return 2;
	memset(mem, 0x5a, (size_t)mb << 20);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("manyfn: pid %d ready\n", (int)getpid());
	fflush(stdout);
	last = now_ns();
	while (!stop) {
		long long t, gap;

		for (int i = 0; i < n; i++)
			fns[i]();
		usleep(1000);
		t = now_ns();
		gap = t - last;
		last = t;
		/* keep the 8 longest */
		for (int k = 0; k < 8; k++)
			if (gap > gaps[k]) {
				memmove(&gaps[k + 1], &gaps[k],
					(7 - k) * sizeof(gaps[0]));
				gaps[k] = gap;
				break;
			}
	}
	printf("manyfn: longest pauses ns");
	for (int k = 0; k < 8; k++)
		printf(" %lld", gaps[k]);
	printf("\n");
	free(mem);
	return 0;
}

int main(int argc, char **argv)
{
	long long start = now_ns();

	if (argc == 4 && !strcmp(argv[1], "--hold"))
		return hold(atol(argv[2]), atoi(argv[3]));
	for (int i = 0; i < NFNS; i++)
		fns[i]();
	printf("manyfn: start %lld end %lld\n", start, now_ns());
	return 0;
}
#endif
