/* A program that loses a block and then kills itself with a signal, the
 * way programs die of their own checks: `abort` calls abort(), `assert`
 * fails an assert, `raise` raises SIGTERM, `caught` raises a SIGUSR1 it
 * handles (it goes on to exit 0), `segv` faults. The leak check must run
 * before the signal kills it (tests/e2e/leak_check_abort.sh). */
#include <assert.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile keep;	/* a reachable block */

static void on_usr1(int sig)
{
	(void)sig;
}

__attribute__((noinline)) static void lose(void)
{
	char *volatile p = malloc(40);	/* the definitely lost block */

	memset(p, 1, 40);
	p = NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "abort";

	keep = malloc(72);
	lose();
	printf("leak_abort: %s\n", how);
	fflush(stdout);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "assert"))
		assert(keep == NULL);
	if (!strcmp(how, "raise"))
		raise(SIGTERM);
	if (!strcmp(how, "caught")) {
		signal(SIGUSR1, on_usr1);
		raise(SIGUSR1);
		return 0;
	}
	if (!strcmp(how, "segv"))
		*(volatile int *)16 = 1;
	return 3;
}
