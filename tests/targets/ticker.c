/* A long-running target: calls tick() in a loop until SIGINT or SIGTERM,
 * then prints how many calls it made. Used to check that vigil leaves a
 * process unharmed when it detaches, is killed, or is interrupted.
 *   ticker [LIMIT] [--idle-thread]
 * LIMIT: calls before it ends (-1: none); --idle-thread: a second thread,
 * which calls nothing, runs until SIGUSR1 ("ticker: idle thread gone"
 * once it has), so that the process has two threads, then one. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop, idle_stop;
static volatile long sink;

__attribute__((noinline)) void tick(long i)
{
	sink += i;
}

static void on_signal(int sig)
{
	stop = sig;
}

static void on_usr1(int sig)
{
	idle_stop = 1;
}

static void *idle(void *arg)
{
	while (!idle_stop)
		usleep(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = 0, limit = argc > 1 ? atol(argv[1]) : -1;
	int idling = argc > 2 && !strcmp(argv[2], "--idle-thread");
	pthread_t t;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_usr1);
	if (idling && pthread_create(&t, NULL, idle, NULL))
		return 2;
	printf("ticker: pid %d\n", getpid());
	fflush(stdout);
	while (!stop && n != limit) {
		tick(n++);
		if (n % 1000 == 0)
			usleep(1000);
		if (idling && idle_stop) {
			pthread_join(t, NULL);
			idling = 0;
			printf("ticker: idle thread gone\n");
			fflush(stdout);
		}
	}
	printf("ticker: calls tick=%ld%s\n", n, stop ? " (interrupted)" : "");
	return 0;
}
