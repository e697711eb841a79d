/* A target for the "no address to probe" diagnostics of user/sym/: the
 * unit test (tests/unit/test_sym.c) builds it with -O2 -g, where
 *  - square() is inlined into every caller and has no out-of-line copy;
 *  - scale() is only ever called with k == 3, so GCC keeps only a
 *    specialised copy scale.constprop.0 that takes one argument;
 *  - kept() is a normal function, for contrast.
 * The top Makefile also builds it at -O1 -fno-inline, where all three are
 * ordinary functions. */
#include <stdio.h>
#include <stdlib.h>

static int square(int x)
{
	return x * x;
}

__attribute__((noinline)) static int scale(int x, int k)
{
	return x * k + (x >> 3) - k;
}

__attribute__((noinline)) int kept(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : argc;

	printf("%d\n", square(n) + square(n + 1) + scale(n, 3) +
			       scale(n + 5, 3) + kept(n));
	return 0;
}
