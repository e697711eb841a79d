/* A write just past the end of a freed 10-byte block, into the rest of its
 * 8-byte granule (tests/e2e/uaf_tail.sh): bytes 10..15 belong to no other
 * block (blocks start 8-aligned), and memcheck reports the write as one
 * "0 bytes after a block of size 10 free'd". With an argument, the write
 * goes to byte 5 instead, inside the block. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void poke(volatile char *p, int at)
{
	p[at] = 42;
}

int main(int argc, char **argv)
{
	char *p = malloc(10);

	if (!p)
		return 1;
	(void)argv;
	free(p);
	poke(p, argc > 1 ? 5 : 10);
	printf("uaftail: done\n");
	return 0;
}
