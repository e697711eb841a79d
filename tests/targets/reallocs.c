/* realloc and the pointer it leaves behind, for specs/lib/realloc.vigil
 * (and specs/lib/use_after_free.vigil, which watches the block a moving
 * realloc released). Clean by default: a buffer grows by realloc, moving
 * or in place, and is shrunk in place; only the pointer realloc returned
 * is used, and freed once. With a flag, one use of a pointer realloc
 * moved away from (a block allocated right after it keeps it from growing
 * in place):
 *   --stale-free     free(old): glibc aborts ("double free detected")
 *   --stale-realloc  realloc(old, n)
 *   --stale-write    a write through old
 * Output goes out with write(2), so that stdio does not allocate. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rec {
	long id;
	long count;
	char name[16];
};

__attribute__((noinline)) void bump(struct rec *r)
{
	r->count++;
}

__attribute__((noinline)) static char *fill(char *p, size_t n)
{
	memset(p, 'z', n);
	return p;
}

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

int main(int argc, char **argv)
{
	const char *bug = argc > 1 ? argv[1] : "";
	char line[96];
	int moved = 0, nrealloc = 1;

	/* a record that must move: the block after it is taken (first
	 * thing: nothing is free yet, the two come from the top chunk one
	 * after the other) */
	struct rec *old = calloc(1, sizeof(*old)), *r;
	struct rec *blocker = malloc(sizeof(*old));
	uintptr_t was = (uintptr_t)old;

	bump(old);
	bump(blocker);		/* (used, or gcc drops the malloc) */
	r = realloc(old, 64 * sizeof(*old));
	if ((uintptr_t)r == was)
		return 3;	/* it did not move: the test would prove nothing */
	bump(r);
	if (!strcmp(bug, "--stale-free"))
		free(old);				/* the bug */
	if (!strcmp(bug, "--stale-realloc"))
		old = realloc(old, 2 * sizeof(*old));	/* the bug */
	if (!strcmp(bug, "--stale-write"))
		bump(old);				/* the bug */

	/* a growing buffer: the usual, correct idiom. A note allocated
	 * after each growth sits behind it, so that the next growth moves
	 * it; the addresses it leaves are handed out again. */
	size_t cap = 16, len = 0;
	char *buf = malloc(cap), *notes[16];
	int nnotes = 0;

	for (int i = 0; i < 2000; i++) {
		if (len + 1 > cap) {
			char *nb = realloc(buf, cap * 2);

			nrealloc++;

			if (!nb)
				return 2;
			moved += nb != buf;
			buf = nb;
			cap *= 2;
			notes[nnotes++] = strdup("grown");
		}
		buf[len++] = 'a' + i % 26;
	}
	buf = realloc(buf, 64);		/* shrinks, in place */
	nrealloc++;
	buf[0] = 'x';

	/* blocks of the sizes the buffer had: glibc hands out again the
	 * addresses it moved away from, and they are freed, rightly */
	char *again[7];

	for (int i = 0; i < 7; i++)
		again[i] = fill(malloc(16 << i), 16 << i);

	free(r);
	free(blocker);
	free(buf);
	for (int i = 0; i < nnotes; i++)
		free(notes[i]);
	for (int i = 0; i < 7; i++)
		free(again[i]);
	snprintf(line, sizeof(line), "reallocs: done, %d reallocs, buffer moved %d times\n",
		 nrealloc, moved);
	say(line);
	return 0;
}
