/* Three bounded queues, one after the other, each pushed once past its
 * capacity: three violations of specs/queue_bounds.vigil in one run, for
 * the live gdb session tests (tests/e2e/live_*.sh). Single-threaded, so
 * the order of calls is the same every run.
 *
 *   queue3 [--pause MS] [--loops N]   (QUEUE3_PRINT=1: a line per queue)
 * --pause: sleep MS between queues (a shell has time to talk to vigil);
 * --loops: do it all N times. It prints how many times it called each
 * function, so tests can compare vigil's per-probe counts with the truth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAPACITY 2

struct queue {
	int cap, count;
	long items[CAPACITY + 1];
};

static long nnew, npush, npop;

__attribute__((noinline)) struct queue *queue_new(int size)
{
	struct queue *q = calloc(1, sizeof(*q));

	q->cap = size;
	nnew++;
	return q;
}

__attribute__((noinline)) void queue_push(struct queue *q, long v)
{
	q->items[q->count++ % (CAPACITY + 1)] = v;
	npush++;
}

__attribute__((noinline)) long queue_pop(struct queue *q)
{
	npop++;
	return q->items[--q->count % (CAPACITY + 1)];
}

/* fills q one past its capacity: the violation */
__attribute__((noinline)) void fill(struct queue *q, long base)
{
	for (int i = 0; i <= CAPACITY; i++)
		queue_push(q, base + i);
}

int main(int argc, char **argv)
{
	int pause_ms = 0, loops = 1;
	long sum = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pause") && i + 1 < argc)
			pause_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--loops") && i + 1 < argc)
			loops = atoi(argv[++i]);
	}
	for (int l = 0; l < loops; l++)
		for (int k = 0; k < 3; k++) {
			struct queue *q = queue_new(CAPACITY);

			fill(q, k * 100);
			while (q->count > 0)
				sum += queue_pop(q);
			/* not freed: each queue has its own address, its own slice */
			if (getenv("QUEUE3_PRINT")) {	/* a growing output file */
				printf("queue %d done\n", l * 3 + k);
				fflush(stdout);
			}
			if (pause_ms)
				usleep((useconds_t)pause_ms * 1000);
			/* QUEUE3_HOLD=FILE: after the first loop, wait while
			 * FILE exists (a test talks to vigil meanwhile however
			 * slow the machine, and removes FILE to let the rest
			 * run). Here, not in the header: the guide quotes the
			 * lines above by number. */
			if (l == 0 && k == 2 && getenv("QUEUE3_HOLD"))
				while (access(getenv("QUEUE3_HOLD"), F_OK) == 0)
					usleep(20000);
		}
	printf("queue_new=%ld queue_push=%ld queue_pop=%ld sum=%ld\n", nnew,
	       npush, npop, sum);
	return 0;
}
