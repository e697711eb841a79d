/* valgrind's client requests that tell memcheck not to report, through
 * valgrind.h's and memcheck.h's own macros (Debian's valgrind package),
 * for tests/e2e/uaf_creq_quiet.sh. Every access below is to a freed
 * block; memcheck reports those on a line marked `loud` and none on a
 * line marked `quiet` (each from its own call site: one report per
 * place). But for the last: memcheck's allocator does not hand d out
 * again at once, so under memcheck d stays addressable; glibc's does, and
 * the free of e makes its bytes unaddressable again, as memcheck's free
 * would. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

static volatile size_t four = 4;	/* a real memcpy call, not moves */
static char sink[64];

static void settle(void)
{
	__asm__ volatile("" ::: "memory");
}

/* not a leaf: its frame is built, so a stack shows its caller's line */
static void touch(volatile char *p, int i)
{
	(void)p[i];
	settle();
}

static void *child(void *p)
{
	/* a new thread's reporting is on, whatever its parent's */
	touch(p, 1);	/* loud */
	return NULL;
}

int main(void)
{
	char *a = malloc(16), *b = malloc(24), *c = malloc(64), *d, *e;
	pthread_t t;

	free(a);
	touch(a, 5);	/* loud */
	/* per thread, nested: only the last ENABLE makes it report */
	VALGRIND_DISABLE_ERROR_REPORTING;
	VALGRIND_DISABLE_ERROR_REPORTING;
	touch(a, 5);	/* quiet */
	VALGRIND_ENABLE_ERROR_REPORTING;
	touch(a, 5);	/* quiet */
	if (pthread_create(&t, NULL, child, a) || pthread_join(t, NULL))
		return 1;
	VALGRIND_ENABLE_ERROR_REPORTING;
	VALGRIND_ENABLE_ERROR_REPORTING;	/* (not below 0) */
	touch(a, 5);	/* loud */

	/* address ranges: the whole block ignored, then its last 8 bytes
	 * no more */
	free(b);
	VALGRIND_DISABLE_ADDR_ERROR_REPORTING_IN_RANGE(b, 24);
	touch(b, 3);	/* quiet */
	VALGRIND_ENABLE_ADDR_ERROR_REPORTING_IN_RANGE(b + 16, 8);
	touch(b, 3);	/* quiet */
	touch(b, 20);	/* loud */
	VALGRIND_ENABLE_ADDR_ERROR_REPORTING_IN_RANGE(b, 16);

	/* a call into a freed block, past the bytes debug registers watch:
	 * only its bytes outside the range (the second from c + 56 on) */
	free(c);
	VALGRIND_DISABLE_ADDR_ERROR_REPORTING_IN_RANGE(c + 40, 16);
	memcpy(sink, c + 44, four);	/* quiet */
	memcpy(sink, c + 54, four);	/* loud */
	VALGRIND_ENABLE_ADDR_ERROR_REPORTING_IN_RANGE(c + 40, 16);

	/* freed memory made addressable (malloc_free_fill's idiom), until
	 * it is freed again */
	d = malloc(16);
	free(d);
	(void)VALGRIND_MAKE_MEM_DEFINED(d + 4, 4);
	touch(d, 5);	/* quiet */
	e = malloc(16);	/* glibc's tcache hands d out again */
	free(e);
	touch(d, 6);	/* loud */

	printf("creq_quiet: a=%p b=%p c=%p d=%p reused=%d on valgrind: %u\n",
	       (void *)a, (void *)b, (void *)c, (void *)d, e == d,
	       (unsigned)RUNNING_ON_VALGRIND);
	return 0;
}
