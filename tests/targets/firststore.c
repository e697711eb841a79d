/* A probed function whose first instruction has an effect: at -O1,
 * step() is `mov %rdi, last(%rip)` first (tests/e2e/exact_stop.sh). A
 * stop at `before step(i)` must leave `last` as the previous call set it.
 */
#include <stdlib.h>

volatile long last = -1;

__attribute__((noinline)) void step(long i)
{
	last = i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;

	for (long i = 0; i < n; i++)
		step(i);
	return 0;
}
