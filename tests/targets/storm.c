/* A thread storm: THREADS short threads, BATCH alive at a time, each
 * locking and unlocking one shared mutex ROUNDS times. It prints how many
 * calls it made, so a test can compare vigil's per-probe counts with the
 * program's own:
 *   storm: threads=2000 pthread_mutex_lock=20000 pthread_mutex_unlock=20000
 *
 *   storm [--threads N]                     (default 2000) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 32
#define ROUNDS 10

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long shared;

static void *worker(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&m);
		shared++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int threads = 2000, made = 0;
	pthread_t t[BATCH];

	if (argc == 3 && !strcmp(argv[1], "--threads"))
		threads = atoi(argv[2]);
	while (made < threads) {
		int n = threads - made < BATCH ? threads - made : BATCH;

		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, worker, NULL)) {
				perror("storm: pthread_create");
				return 1;
			}
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		made += n;
	}
	printf("storm: threads=%d pthread_mutex_lock=%ld pthread_mutex_unlock=%ld\n",
	       made, shared, shared);
	return shared == (long)threads * ROUNDS ? 0 : 1;
}
