/* A long-running service for the agent's tests (tests/e2e/agent_*.sh):
 * answers a request every 10 ms (request_begin(id), request_end(id))
 * until SIGTERM; SIGUSR1 makes it end the next request twice, a bug a
 * spec catches. Writes its pid to PIDFILE when given one.
 *
 *   service [PIDFILE] */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop, bug;
static volatile long sink;

__attribute__((noinline)) void request_begin(long id)
{
	sink += id;
}

__attribute__((noinline)) void request_end(long id)
{
	sink -= id;
}

static void on_term(int sig)
{
	stop = sig;
}

static void on_usr1(int sig)
{
	bug = 1;
}

int main(int argc, char **argv)
{
	long id = 0;

	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGUSR1, on_usr1);
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");

		if (!f)
			return 2;
		fprintf(f, "%d\n", getpid());
		fclose(f);
	}
	while (!stop) {
		request_begin(id);
		request_end(id);
		if (bug) {
			bug = 0;
			request_end(id);	/* the bug: ended twice */
		}
		id++;
		usleep(10000);
	}
	printf("service: %ld requests\n", id);
	return 0;
}
