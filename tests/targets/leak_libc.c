/* A program that leaks one block of its own (`own_leak`, 77 bytes) and
 * makes the C library allocate for itself: stdio's buffers (stdout to a
 * pipe or file, stderr, a file read with fgets), threads (their TLS
 * blocks), the time zone (localtime), the locale (setlocale), and a
 * still-reachable block of its own (`kept`, 48 bytes). The leak property's
 * verdict at exit with --leak-check must name the one lost block and
 * nothing of the C library's (tests/e2e/leak_libc.sh).
 *
 *   leak_libc [--abort]       with --abort: end in abort() instead of exit
 *   leak_libc --many-stacks   first 8,192 blocks allocated and freed, each
 *                             under a call stack of its own: more than the
 *                             kernel's stack map holds */
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THREADS 4

char *kept;		/* still reachable: not an error */

static void *worker(void *arg)
{
	char line[64];

	snprintf(line, sizeof(line), "worker %ld", (long)(size_t)arg);
	printf("%s\n", line);
	return NULL;
}

/* its only pointer is dropped on return: definitely lost */
static __attribute__((noinline)) void own_leak(void)
{
	char *volatile p = malloc(77);

	memset(p, 'x', 77);
	p = NULL;
}

/* One block allocated and freed under a stack of its own per value of
 * bits: LEVELS calls deep, each level calling on from one of two call
 * sites. optimize("O0"): no merging of the two calls into one, no tail
 * call, a frame per level. */
#define LEVELS 13
static volatile unsigned side;

static __attribute__((noinline, optimize("O0"))) void grow(unsigned bits,
							   int level)
{
	if (level == 0) {
		free(malloc(16));
		return;
	}
	if (bits & 1) {
		grow(bits >> 1, level - 1);
		side = 1;
	} else {
		side = 2;
		grow(bits >> 1, level - 1);
		side = 3;
	}
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	char line[128];
	time_t now = 0;
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "--many-stacks"))
		for (unsigned bits = 0; bits < 1u << LEVELS; bits++)
			grow(bits, LEVELS);
	setlocale(LC_ALL, "");
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("local time: %d\n", localtime(&now)->tm_year);
	fprintf(stderr, "leak_libc: stderr\n");
	if ((f = fopen("/proc/self/status", "r"))) {
		if (fgets(line, sizeof(line), f))
			printf("%s", line);
		fclose(f);
	}
	kept = malloc(48);
	own_leak();
	printf("leak_libc: done\n");
	if (argc > 1 && !strcmp(argv[1], "--abort")) {
		fflush(stdout);
		abort();
	}
	return 0;
}
