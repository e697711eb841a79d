/* Sixteen threads waiting for a signal, for `vigil attach` mid-run
 * (tests/e2e/attach_threads.sh): the threads exist before vigil attaches;
 * SIGUSR1 (sent once vigil is attached) lets them work, and a seventeenth
 * thread is created then, after the attach.
 *   threads [CALLS]   each thread calls work() CALLS times (default 1000)
 * Prints "threads: ready" when all 16 wait, then
 * "threads: calls work=N threads=17" and exits 3. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define EARLY 16

static volatile sig_atomic_t go;
static int calls = 1000;
static long done[EARLY + 1];

__attribute__((noinline)) void work(long id, long k)
{
	done[id] = k + 1;
}

static void *worker(void *arg)
{
	long id = (long)arg;

	while (!go)
		usleep(1000);
	for (int k = 0; k < calls; k++)
		work(id, k);
	return NULL;
}

static void on_usr1(int sig)
{
	go = 1;
}

int main(int argc, char **argv)
{
	pthread_t t[EARLY + 1];
	long total = 0;

	if (argc > 1)
		calls = atoi(argv[1]);
	signal(SIGUSR1, on_usr1);
	for (long i = 0; i < EARLY; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	printf("threads: ready\n");
	fflush(stdout);
	while (!go)
		usleep(1000);
	pthread_create(&t[EARLY], NULL, worker, (void *)(long)EARLY);
	for (int i = 0; i <= EARLY; i++) {
		pthread_join(t[i], NULL);
		total += done[i];
	}
	printf("threads: calls work=%ld threads=%d\n", total, EARLY + 1);
	return 3;
}
