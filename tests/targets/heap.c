/* A heap of 5000 blocks live at once, of varied sizes, then all freed:
 * every block is a slice of each memory property of specs/lib/, which
 * together must fit in the kernel tier's slice table
 * (tests/e2e/lib_memory_together.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 5000

static void *blocks[N];

int main(void)
{
	char msg[64];

	for (int i = 0; i < N; i++)
		blocks[i] = malloc(16 + i % 512);
	for (int i = 0; i < N; i++)
		free(blocks[i]);
	/* no stdio: its buffer would be one more malloc of libc's own */
	int n = snprintf(msg, sizeof(msg), "heap: %d blocks, all freed\n", N);
	ssize_t r = write(1, msg, n);

	return r == n ? 0 : 1;
}
