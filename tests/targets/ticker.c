/* A long-running target: calls tick() in a loop until SIGINT or SIGTERM,
 * then prints how many calls it made. Used to check that vigil leaves a
 * process unharmed when it detaches, is killed, or is interrupted. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static volatile long sink;

__attribute__((noinline)) void tick(long i)
{
	sink += i;
}

static void on_signal(int sig)
{
	stop = sig;
}

int main(int argc, char **argv)
{
	long n = 0, limit = argc > 1 ? atol(argv[1]) : -1;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ticker: pid %d\n", getpid());
	fflush(stdout);
	while (!stop && n != limit) {
		tick(n++);
		if (n % 1000 == 0)
			usleep(1000);
	}
	printf("ticker: calls tick=%ld%s\n", n, stop ? " (interrupted)" : "");
	return 0;
}
