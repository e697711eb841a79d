/* A debug register moved from one freed block to the next
 * (tests/e2e/uaf_move.sh): block a is freed (watched: one register), a
 * thread is made (it inherits that watchpoint), a is handed out again
 * (its watch released) and b freed at once, so that vigil handles both
 * in one drain and moves a's breakpoint to b's first bytes rather than
 * closing it and opening another (user/probe/probe_watch.c). The thread
 * made after a's arming then writes into b: only the moved breakpoint,
 * in the copy the thread inherited, sees it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile char *b;
static int go[2];

static void *toucher(void *arg)
{
	char c;

	(void)arg;
	if (read(go[0], &c, 1) != 1)
		return NULL;
	b[0] = 42;		/* a use after free, in this thread */
	return NULL;
}

int main(void)
{
	char *a = malloc(8), *a2;
	pthread_t t;

	b = malloc(32);
	if (!a || !b || pipe(go))
		return 1;
	free(a);
	if (pthread_create(&t, NULL, toucher, NULL))
		return 1;
	a2 = malloc(8);		/* a again, from the thread cache */
	free((void *)b);
	if (write(go[1], "x", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("uafmove: a2 %s a; done\n", a2 == a ? "is" : "is not");
	free(a2);
	return 0;
}
