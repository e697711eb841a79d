/* free() of what malloc did not return, for specs/lib/bad_free.vigil.
 * Clean by default: blocks from malloc, calloc, realloc (growing in place
 * and moving), strdup, aligned_alloc, posix_memalign (which hands its block
 * out through a pointer), valloc and pvalloc are freed once each; free(NULL)
 * and realloc(NULL, n) are legal; a freed address calloc hands out again
 * is freed again (for specs/lib/double_free.vigil too). With a flag, one bug:
 *   --interior  free of a pointer into the middle of a block
 *   --stack     free of a local array
 *   --global    free of a global array
 *   --freed-interior  free of a pointer into a block freed already, not
 *               at its start
 *   --realloc   realloc of a pointer into the middle of a block
 *   --double-aligned  the posix_memalign block freed twice (for
 *                     specs/lib/double_free.vigil)
 * glibc aborts on each ("free(): invalid pointer"): vigil must stop the
 * process first. Output goes out with write(2), so that stdio does not
 * allocate. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 64

char table[64];		/* a global: --global frees it */

__attribute__((noinline)) static void release(void *p)
{
	free(p);
}

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

int main(int argc, char **argv)
{
	const char *bug = argc > 1 ? argv[1] : "";
	char *blocks[N], local[32], line[80];
	long nfree = 0;

	for (int i = 0; i < N; i++) {
		switch (i % 4) {
		case 0: blocks[i] = malloc(24 + i); break;
		case 1: blocks[i] = calloc(4, 8 + i); break;
		case 2: blocks[i] = strdup("a string to copy"); break;
		case 3: blocks[i] = aligned_alloc(64, 128); break;
		}
		if (i % 8 == 0)		/* grows: in place or moved */
			blocks[i] = realloc(blocks[i], 4096 + 64 * i);
	}
	char *volatile none = NULL;	/* (gcc would make it a malloc) */
	char *r = realloc(none, 40);	/* realloc(NULL, n): a malloc */
	void *pm = NULL, *pages[2] = { valloc(100), pvalloc(100) };

	if (posix_memalign(&pm, 256, 100))
		pm = NULL;

	free(NULL);			/* legal, ignored */
	memset(local, 0, sizeof(local));
	if (!strcmp(bug, "--interior"))
		release(blocks[5] + 16);	/* the bug */
	if (!strcmp(bug, "--stack"))
		release(local);			/* the bug */
	if (!strcmp(bug, "--global"))
		release(table);			/* the bug */
	if (!strcmp(bug, "--freed-interior")) {
		char *gone = malloc(64);

		release(gone);
		release(gone + 16);		/* the bug */
	}
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"	/* gcc sees it too */
	if (!strcmp(bug, "--realloc"))
		blocks[6] = realloc(blocks[6] + 8, 100);	/* the bug */
	for (int i = 0; i < N; i++, nfree++)
		release(blocks[i]);
	release(r);
	release(pm);
	if (!strcmp(bug, "--double-aligned"))
		release(pm);			/* the bug */
	release(pages[0]);
	release(pages[1]);
	nfree += 4;

	/* a freed address that calloc hands out again, and is freed again,
	 * rightly: 8 blocks freed fill glibc's tcache (7) and a fastbin,
	 * which calloc (unlike malloc) takes from */
	char *few[8], *c;
	int reused = 0;

	for (int i = 0; i < 8; i++)
		few[i] = malloc(40);
	for (int i = 0; i < 8; i++, nfree++)
		release(few[i]);
	c = calloc(1, 40);
	for (int i = 0; i < 8; i++)
		reused |= (uintptr_t)c == (uintptr_t)few[i];
	release(c);
	nfree++;
	snprintf(line, sizeof(line), "badfree: done, %ld frees, calloc reused a freed block: %s\n",
		 nfree, reused ? "yes" : "no");
	say(line);
	return 0;
}
