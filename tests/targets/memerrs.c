/* A known set of heap errors, one of each kind the memory specs of
 * specs/lib/ follow, for a run that reports them all
 * (--on-violation=continue, tests/e2e/lib_memerrs.sh):
 *   2 blocks leaked (the only pointer of one dropped; one kept)
 *   3 fishy sizes: malloc(-1), calloc(1, -8), realloc(p, -2)
 *   the realloc that failed leaves p valid: its free is correct
 *   1 write after free (byte 20 of a freed 24-byte block)
 *   1 read after free (byte 20 of a freed 40-byte block)
 *   a 100-byte block freed, untouched, allocated again and kept (the
 *   second leak): watchpoints cover only its first 32 bytes, so
 *   use_after_free cannot say it was not used while it was free
 *   2 double frees, each of a block freed once in between another
 * Run it with GLIBC_TUNABLES=glibc.malloc.tcache_count=0: the double
 * frees then go to glibc's fastbins, whose check looks only at the last
 * block freed, and the program runs to its end (the tcache would abort
 * at the first one, as it should). No stdio: its buffer would be one more
 * block, of libc's own. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile sink;	/* keeps gcc from dropping a malloc */
/* sizes as a program computes them, a difference gone below zero (and
 * out of gcc's sight, which warns about constant ones) */
static volatile long used = 10, cap = 9;

__attribute__((noinline)) static void poke(char *p, int i)
{
	p[i] = 'x';
}

__attribute__((noinline)) static char peek(const volatile char *p, int i)
{
	return p[i];
}

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

/* a block and its neighbour of the same size freed, then the block
 * again: the second free of it is the double free */
__attribute__((noinline)) static void double_free(size_t size)
{
	char *a = malloc(size), *b = malloc(size);

	sink = a;	/* (used, or gcc drops the pairs) */
	sink = b;
	free(a);
	free(b);
	free(a);	/* the bug */
}

int main(void)
{
	char *p, *q, *big;

	sink = malloc(40);
	sink = NULL;				/* leaked */
	big = malloc(100);
	free(big);
	big = malloc(100);			/* the same block */
	sink = big;

	sink = malloc(cap - used);    		/* fishy: NULL */
	sink = calloc(1, (cap - used) * 8);		/* fishy: NULL */
	p = malloc(16);
	q = realloc(p, cap - used - 1);		/* fishy: NULL, p intact */
	if (q)
		return 2;
	free(p);				/* correct: p was never freed */

	p = malloc(24);
	free(p);
	poke(p, 20);				/* write after free */
	q = malloc(40);
	free(q);
	sink = (void *)(long)peek(q, 20);	/* read after free */

	double_free(32);
	double_free(48);
	say("memerrs: done\n");
	return 0;
}
