/* Globals written for watchpoints (tests/e2e/watch.sh).
 *   watched [N [T]]   the main thread writes `counter` N times (1..N), then
 *                     T threads (default 8), started after, each write
 *                     `shared` N times; a short `level` is set to -5 once
 * Prints "watched: counter=N shared=T*N". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile long counter;
volatile int shared;
volatile short level;
volatile char flag1, flag2;	/* with the three above: five addresses */
struct { long a, b; } pair;	/* 16 bytes: more than a debug register */
static long n = 1000;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *writer(void *arg)
{
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&lock);
		shared = shared + 1;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 2 ? atoi(argv[2]) : 8;
	pthread_t t[64];

	if (argc > 1)
		n = atol(argv[1]);
	for (long i = 1; i <= n; i++)
		counter = i;
	level = -5;
	flag1 = 1;
	flag2 = 2;
	pair.a = 1;
	for (int i = 0; i < nt && i < 64; i++)
		pthread_create(&t[i], NULL, writer, NULL);
	for (int i = 0; i < nt && i < 64; i++)
		pthread_join(t[i], NULL);
	printf("watched: counter=%ld shared=%d\n", counter, shared);
	return 0;
}
