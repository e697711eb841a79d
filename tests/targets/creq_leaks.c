/* valgrind's client requests for a leak checker, through memcheck.h's own
 * macros (Debian's valgrind package), for tests/e2e/leak_creq.sh. Each
 * step says what a check there shows under memcheck:
 *   1  VALGRIND_DO_LEAK_CHECK: 40 bytes still reachable (a global)
 *   2  the global dropped, two blocks of 72 kept:
 *      VALGRIND_DO_ADDED_LEAK_CHECK: 40 (+40) definitely lost, 144 (+144)
 *      bytes in 2 (+2) blocks still reachable
 *   3  again: nothing grew, no record
 *   4  one of the 72 freed: VALGRIND_DO_CHANGED_LEAK_CHECK: 72 (-72)
 *      bytes in 1 (-1) blocks still reachable
 *   5  VALGRIND_DO_QUICK_LEAK_CHECK, VALGRIND_COUNT_LEAKS and
 *      VALGRIND_COUNT_LEAK_BLOCKS: the program prints what they gave:
 *      40 bytes in 1 block lost, 72 bytes in 1 block reachable
 *      (natively, with nobody to answer, the macros' zeros)
 * and RUNNING_ON_VALGRIND, which is 0 unless it runs on valgrind. */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/memcheck.h>

char *kept;
char *pair[2];

/* zero the stack below the caller: no stale pointer in dead frames */
static void scrub(void)
{
	volatile char buf[8192];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = 0;
}

static void alloc_kept(void)
{
	kept = malloc(40);
}

static void alloc_pair(void)
{
	pair[0] = malloc(72);
	pair[1] = malloc(72);
}

static void step(int n)
{
	printf("creq_leaks: step %d\n", n);
	fflush(stdout);
	scrub();
}

int main(void)
{
	unsigned long lb, db, rb, sb, ln, dn, rn, sn;

	alloc_kept();
	step(1);
	VALGRIND_DO_LEAK_CHECK;
	kept = NULL;
	alloc_pair();
	step(2);
	VALGRIND_DO_ADDED_LEAK_CHECK;
	step(3);
	VALGRIND_DO_ADDED_LEAK_CHECK;
	free(pair[1]);
	pair[1] = NULL;
	step(4);
	VALGRIND_DO_CHANGED_LEAK_CHECK;
	step(5);
	VALGRIND_DO_QUICK_LEAK_CHECK;
	VALGRIND_COUNT_LEAKS(lb, db, rb, sb);
	VALGRIND_COUNT_LEAK_BLOCKS(ln, dn, rn, sn);
	printf("creq_leaks: lost %lu bytes in %lu blocks, possibly %lu in %lu, reachable %lu in %lu, suppressed %lu in %lu; on valgrind: %d\n",
	       lb, ln, db, dn, rb, rn, sb, sn, (int)RUNNING_ON_VALGRIND);
	fflush(stdout);
	free(pair[0]);
	return 0;
}
