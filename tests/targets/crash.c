/* Starts three threads, joins them, then dies of SIGSEGV: for the
 * lifecycle events thread_start, thread_exit, signal(sig) and exit(code). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *worker(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	if (argc > 1 && !strcmp(argv[1], "--crash"))
		*(volatile int *)0 = 1;
	return 3;
}
