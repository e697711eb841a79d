/* Two freed blocks that need more debug registers than x86 has
 * (tests/e2e/uaf_prefix.sh): the 8-byte one takes one, the 32-byte one
 * needs four, and --watch-policy=refuse watches its first 24 bytes with
 * the three left. A write at its byte 4 is a use after free vigil
 * catches; with the argument "past", the write goes to byte 28, which no
 * register watches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void poke(volatile char *p, int at)
{
	p[at] = 42;
}

int main(int argc, char **argv)
{
	char *a = malloc(8), *b = malloc(32);

	if (!a || !b)
		return 1;
	free(a);
	free(b);
	poke(b, argc > 1 && !strcmp(argv[1], "past") ? 28 : 4);
	printf("uafprefix: done\n");
	return 0;
}
