/* A freed block handed out again and written at once
 * (tests/e2e/uaf_reuse.sh). free(a) arms a's watchpoint; the malloc that
 * gives a back names it (its watch released), but vigil disarms only
 * once it has read that record, and the program writes its new block
 * right away: the breakpoint fires on the program's own memory. That hit
 * must not stop the program (bpf/released.bpf.h). The program counts
 * its own voluntary context switches around each write (a stop by
 * SIGSTOP is one; a write that traps and goes on is none) and prints how
 * many writes stopped it. Then, with --bug, a block freed and written
 * through its stale pointer: that one is stopped for, as always.
 * --rounds N: N rounds, not 50 (tests/e2e/hold_kill.sh); then --pace US:
 * a sleep of US microseconds after each, the first round 2 s after the
 * start (time to attach), and the cost of a round beyond its sleep
 * printed (bench/reuse_bench.sh).
 *
 * Output goes out with write(2), so that stdio does not allocate. */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 50

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

__attribute__((noinline)) void use(volatile long *p, long v)
{
	p[0] = v;
	p[1] = v;
}

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

int main(int argc, char **argv)
{
	int bug = argc > 1 && !strcmp(argv[1], "--bug");
	int rounds = argc > 2 && !strcmp(argv[1], "--rounds") ? atoi(argv[2])
							      : ROUNDS;
	long pace = argc > 4 && !strcmp(argv[3], "--pace") ? atol(argv[4]) : 0;
	struct timespec nap = { 0, pace * 1000 }, t0, t1;
	int same = 0, stopped = 0;
	char line[128];

	if (pace)
		sleep(2);	/* (time to attach) */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < rounds; i++) {
		long *a = malloc(24), *b, before;

		use(a, i);
		free(a);
		b = malloc(24);		/* tcache: a again */
		same += b == a;
		before = switches();
		use(b, i);
		stopped += switches() != before;
		free(b);
		if (pace)
			nanosleep(&nap, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (pace) {
		double us = ((t1.tv_sec - t0.tv_sec) * 1e9 +
			     (t1.tv_nsec - t0.tv_nsec)) / 1e3 / rounds - pace;

		snprintf(line, sizeof(line), "uafreuse: %.1f us a round beyond the pace\n", us);
		say(line);
	}
	snprintf(line, sizeof(line), "uafreuse: %d of %d blocks came back, %d writes stopped\n",
		 same, rounds, stopped);
	say(line);
	if (bug) {
		long *c = malloc(24);

		free(c);
		use(c, 7);	/* the bug */
		say("uafreuse: stale write done\n");
	}
	return 0;
}
