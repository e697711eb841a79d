/* A freed block glibc merges into its freed neighbour and hands out
 * again at the neighbour's address (tests/e2e/uaf_repeat.sh): p and a,
 * 2000 bytes each, too large for the tcache; a is freed (with --touch,
 * then read: a use after free), then p, which glibc merges with a into
 * one free chunk at p; malloc(4000) returns p, and the program fills the
 * new block, a's old bytes included. That fill is no access after free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int touch = argc > 1 && !strcmp(argv[1], "--touch");
	char *p = malloc(2000), *a = malloc(2000), *guard = malloc(16), *n;
	volatile char *va = a;
	int s = 0;

	if (!p || !a || !guard)
		return 1;
	memset(a, 1, 2000);
	free(a);
	if (touch)
		s = va[8];
	free(p);
	n = malloc(4000);
	if (!n)
		return 1;
	for (int i = 0; i < 4000; i++)	/* a's old bytes too, at n + 2016 */
		((volatile char *)n)[i] = 2;
	printf("uafmerge: %d merged=%d\n", s, n == p && a > n && a < n + 4000);
	free(n);
	free(guard);
	return 0;
}
