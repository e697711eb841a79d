/* malloc/free through libc, counted: vigil's per-probe counts must equal
 * what this program says it did. --double-free frees one block twice (glibc
 * would abort on it: vigil must stop the process first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 1000	/* --many: MANY blocks, the last KEPT never freed */
enum { MANY = 3000, KEPT = 1000 };	/* (tests/e2e/final_names.sh) */
__attribute__((noinline)) static void release(void *p)
{
	free(p);
}

int main(int argc, char **argv)
{
	int double_free = argc > 1 && !strcmp(argv[1], "--double-free");
	void *blocks[MANY];
	char msg[128];
	long nmalloc = 0, nfree = 0;
	int many = argc > 1 && !strcmp(argv[1], "--many"), nb = many ? MANY : N;
	for (int i = 0; i < nb; i++) {
		blocks[i] = malloc(16 + i % 512);
		nmalloc++;
	}
	for (int i = 0; i < nb - (many ? KEPT : 0); i++) {
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
