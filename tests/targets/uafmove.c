/* A debug register moved from one freed block to the next
 * (tests/e2e/uaf_move.sh): block a is freed (watched: one register), a
 * thread is made (it inherits that watchpoint), a is handed out again
 * (its watch released) and b freed at once, so that vigil handles both
 * in one drain and moves a's breakpoint to b's first bytes rather than
 * closing it and opening another (user/probe/probe_watch.c). The thread
 * made after a's arming then writes into b: only the moved breakpoint,
 * in the copy the thread inherited, sees it.
 *
 *   uafmove --apart   a handed out again, then a pause (vigil's drain
 *                     ends: the released breakpoint is disabled, kept),
 *                     then a used as the program's own, many times (no
 *                     trap: disabled), then b freed: the breakpoint
 *                     moved and enabled again, in a later drain */
#include <string.h>
#include <time.h>
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

int main(int argc, char **argv)
{
	char *a = malloc(8), *a2;
	volatile char *va;
	pthread_t t;
	int apart = argc > 1 && !strcmp(argv[1], "--apart");

	b = malloc(32);
	if (!a || !b || pipe(go))
		return 1;
	free(a);
	if (pthread_create(&t, NULL, toucher, NULL))
		return 1;
	a2 = malloc(8);		/* a again, from the thread cache */
	if (apart) {
		struct timespec pause = { 0, 100 * 1000 * 1000 };

		nanosleep(&pause, NULL);
		va = a2;
		for (int i = 0; i < 1000; i++)
			va[i % 8] = (char)i;	/* the program's own block */
	}
	free((void *)b);
	if (write(go[1], "x", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("uafmove: a2 %s a; done\n", a2 == a ? "is" : "is not");
	free(a2);
	return 0;
}
