/* A freed block touched from several places (tests/e2e/uaf_repeat.sh):
 * a 16-byte block is freed, then read by peek from three call sites of
 * main (the second in a loop, three times over) and written by poke from
 * one: four places, six accesses. Then malloc hands the block out again
 * and the same functions touch it legitimately. Prints what it read and
 * whether the block came back. (peek and poke call out, so each builds
 * its frame and the stack shows which line of main called it.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink, times = 3;	/* (a loop gcc keeps) */

__attribute__((noinline)) static void out(void)
{
	sink++;
}

__attribute__((noinline)) static int peek(volatile char *p)
{
	out();
	return p[3];
}

__attribute__((noinline)) static void poke(volatile char *p)
{
	out();
	p[5] = 9;
}

int main(void)
{
	char *a = malloc(16), *b;
	int s;

	if (!a)
		return 1;
	memset(a, 1, 16);
	free(a);
	s = peek(a);				/* place 1 */
	for (int i = 0; i < times; i++)
		s += peek(a);			/* place 2, three times */
	poke(a);				/* place 3 */
	s += peek(a);				/* place 4 */
	b = malloc(16);				/* a again (glibc's tcache) */
	if (!b)
		return 1;
	b[3] = 2;
	s += peek(b);
	poke(b);
	printf("uafrepeat: %d again=%d\n", s, b == a);
	free(b);
	return 0;
}
