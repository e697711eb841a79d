/* Blocks from malloc, calloc and realloc, each freed once: glibc hands a
 * freed block's address out again through any of the three, so a property
 * that sees only malloc would take the next free of that address for a
 * double free. Rounds over 32 slots: fill (malloc or calloc, in turn), grow
 * half of them with realloc, free all. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SLOTS 32
#define ROUNDS 200

int main(void)
{
	void *slot[SLOTS];
	long nmalloc = 0, ncalloc = 0, nrealloc = 0, nfree = 0;
	char msg[160];
	int n;

	for (int r = 0; r < ROUNDS; r++) {
		size_t sz = 24 + (size_t)(r % 5) * 40;

		for (int s = 0; s < SLOTS; s++) {
			if ((r + s) % 2) {
				slot[s] = calloc(1, sz);
				ncalloc++;
			} else {
				slot[s] = malloc(sz);
				nmalloc++;
			}
		}
		for (int s = 0; s < SLOTS; s += 2) {
			void *q = realloc(slot[s], sz * 3);

			if (!q)
				return 3;
			slot[s] = q;
			nrealloc++;
		}
		for (int s = 0; s < SLOTS; s++) {
			free(slot[s]);
			nfree++;
		}
	}
	n = snprintf(msg, sizeof(msg), "reuse: malloc=%ld calloc=%ld realloc=%ld free=%ld\n",
		     nmalloc, ncalloc, nrealloc, nfree);
	write(1, msg, n);
	return 0;
}
