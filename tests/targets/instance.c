/* One of many instances of a service (tests/e2e/watch_many.sh,
 * watch_container.sh, bench/watch_bench.sh): every few milliseconds it
 * opens a handle, uses it and closes it, until the file given with --until
 * exists (or 60 s), then exits 0. With --bug its 20th handle is closed
 * twice (the second close is refused by the handle itself, so the program
 * stays correct: only the property breaks); --bug-when FILE does that
 * once FILE exists. --count-from FILE counts the handles made from when
 * FILE exists on (a bench's window; it prints them with the seconds
 * since). --period US sets the pause
 * between handles (5000 by default; 0 for a busy loop, the bench's load).
 * It ends with one handle open, as a service ends with its listening
 * socket: a slice live at its exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct handle {
	int closed;
	long uses;
};

__attribute__((noipa)) struct handle *inst_open(void)
{
	return calloc(1, sizeof(struct handle));
}

__attribute__((noipa)) void inst_use(struct handle *h)
{
	h->uses++;
}

__attribute__((noipa)) void inst_close(struct handle *h)
{
	if (!h->closed)
		h->closed = 1;
}

int main(int argc, char **argv)
{
	const char *until = NULL, *bug_when = NULL, *count_from = NULL;
	long period = 5000, n = 0, n0 = 0;
	struct timespec t0 = { 0 }, t1;
	int bug = 0;
	time_t end = time(NULL) + 60;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bug"))
			bug = 1;
		else if (!strcmp(argv[i], "--bug-when") && i + 1 < argc)
			bug_when = argv[++i];
		else if (!strcmp(argv[i], "--count-from") && i + 1 < argc)
			count_from = argv[++i];
		else if (!strcmp(argv[i], "--until") && i + 1 < argc)
			until = argv[++i];
		else if (!strcmp(argv[i], "--period") && i + 1 < argc)
			period = atol(argv[++i]);
	}
	while (time(NULL) < end && (!until || access(until, F_OK))) {
		if (count_from && !t0.tv_sec && !access(count_from, F_OK)) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			n0 = n;
		}
		/* a check of the file every 64 handles only: the bench's busy
		 * loop is calls, not system calls */
		for (int k = 0; k < 64; k++, n++) {
			struct handle *h = inst_open();

			inst_use(h);
			inst_close(h);
			if (bug && n == 20)
				inst_close(h);
			if (bug_when && k == 0 && !access(bug_when, F_OK)) {
				inst_close(h);
				bug_when = NULL;
			}
			free(h);
			if (period)
				usleep(period);
		}
	}
	inst_use(inst_open());	/* kept to the end */
	if (count_from && t0.tv_sec) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("instance %d: %ld handles in %.3f s\n", (int)getpid(),
		       n - n0, (double)(t1.tv_sec - t0.tv_sec) +
				       (t1.tv_nsec - t0.tv_nsec) / 1e9);
	} else {
		printf("instance %d: %ld handles\n", (int)getpid(), n);
	}
	return 0;
}
