/* malloc/free through libc, counted: vigil's per-probe counts must equal
 * what this program says it did. --double-free frees one block twice (glibc
 * would abort on it: vigil must stop the process first). --many: 3,000
 * blocks, the last KEPT (1,000) never freed (a run's end then names more blocks
 * than it looks up one by one: user/probe/block_names.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 1000
#define MANY 3000
#define KEPT 1000

static void *blocks[MANY];

__attribute__((noinline)) static void release(void *p)
{
	free(p);
}

int main(int argc, char **argv)
{
	int double_free = argc > 1 && !strcmp(argv[1], "--double-free");
	int many = argc > 1 && !strcmp(argv[1], "--many");
	int nblocks = many ? MANY : N, kept = many ? KEPT : 0;
	char msg[128];
	long nmalloc = 0, nfree = 0;

	for (int i = 0; i < nblocks; i++) {
		blocks[i] = malloc(16 + i % 512);
		nmalloc++;
	}
	for (int i = 0; i < nblocks - kept; i++) {
		release(blocks[i]);
		nfree++;
		if (double_free && i == N / 2) {
			release(blocks[i]);	/* the bug */
			nfree++;
		}
	}
	/* no stdio: its buffer would be one more malloc of libc's own */
	int n = snprintf(msg, sizeof(msg), "allocs: calls malloc=%ld free=%ld\n",
			 nmalloc, nfree);
	write(1, msg, n);
	return 0;
}
