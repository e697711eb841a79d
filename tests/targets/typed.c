/* Parameters whose C types matter (tests/e2e/typed_args.sh): narrow
 * integers, which leave the upper bits of their register undefined; a
 * bool; a double and a float, which take SSE registers so the integers
 * after them move down the integer registers; the seventh and eighth
 * integer arguments, which go on the stack; a short return value.
 *   typed [N]    makes each call N times (default 100) with known values
 * Prints "typed: calls=N". */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

/* Callers may leave anything in the upper half of a register that holds
 * an int: these two make sure some garbage is there. */
__attribute__((noinline)) int narrow(int a, unsigned short b, signed char c,
				     bool d)
{
	sink += a + b + c + d;
	return a;
}

__attribute__((noinline)) long many(long a1, long a2, long a3, long a4,
				    long a5, long a6, int a7, long a8)
{
	sink += a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
	return a8;
}

__attribute__((noinline)) int scaled(double x, int n, float y, unsigned u)
{
	sink += (long)(x * n) + (long)y + u;
	return n;
}

__attribute__((noinline)) short neg(int i)
{
	return (short)-i;
}

/* Call f with garbage above the int in each register: through a pointer
 * to a function taking longs, which the ABI passes the same way. */
typedef int (*narrow_wide)(long, long, long, long);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	narrow_wide wide = (narrow_wide)(void *)narrow;

	for (int k = 1; k <= n; k++) {
		long junk = 0x5a5a5a5a00000000L;

		wide(junk | (unsigned)-k, junk | (unsigned short)(65535 - k),
		     junk | (unsigned char)(signed char)-(k % 64), junk | (k & 1));
		many(k, 2, 3, 4, 5, 6, -k, 1000L * k);
		scaled(0.5 * k, -k, 1.5f, 1000u + k);
		sink += neg(k);
	}
	printf("typed: calls=%d\n", n);
	return 0;
}
