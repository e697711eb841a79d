/* Calls through functions that carry `after` probes in the tests:
 * - work(), called by caller(): inside it gdb must see caller as its
 *   caller (not the uretprobe trampoline), and `finish` must return there;
 * - drop(), which frees its argument as a tail call: on entry to free the
 *   return address on the stack is drop's, the trampoline's when drop has
 *   a return probe, and free's real caller is main.
 * Prints its own call counts, which vigil's must equal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline, optimize("O2", "omit-frame-pointer",
				  "optimize-sibling-calls")))
void drop(void *p)
{
	free(p);	/* compiled as jmp free */
}

__attribute__((noinline)) int work(int n)
{
	volatile int s = 0;

	for (int i = 0; i < n; i++)
		s += i;		/* tailcalls.c: inside work */
	return s;
}

__attribute__((noinline)) int caller(int n)
{
	int r = work(n);	/* tailcalls.c: work returns here */

	return r + 1;
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 3, total = 0, n;
	char msg[64];

	if (argc > 1 && !strcmp(argv[1], "--double-drop")) {
		void *p = malloc(32);

		drop(p);
		drop(p);	/* the bug: free's caller is main, through drop */
		return 0;
	}
	for (int i = 0; i < calls; i++)
		total += caller(10 + i);
	n = snprintf(msg, sizeof(msg), "tailcalls: work=%d total=%d\n", calls,
		     total);
	write(1, msg, n);
	return 0;
}
