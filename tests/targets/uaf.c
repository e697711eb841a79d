/* A use after free for specs/lib/use_after_free.vigil (tests/e2e/uaf.sh).
 *
 * A server keeps sessions in a table; session 3 expires and is freed.
 * With --bug, a stale pointer to it stays in a cache and touch_session()
 * writes through it later. Without --bug the cache is cleared, and a new
 * session reuses the freed block: glibc writes into it (its free list,
 * inside calloc) before handing it out, which is not a bug.
 *
 * Output goes out with write(2), so that stdio does not allocate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct session {
	long id;
	long hits;
	char user[16];
};

static struct session *table[8], *cache;

__attribute__((noinline)) void touch_session(struct session *s)
{
	s->hits++;
}

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

int main(int argc, char **argv)
{
	int bug = argc > 1 && !strcmp(argv[1], "--bug");
	void *churn[64];
	char line[96];

	for (int i = 0; i < 8; i++) {
		table[i] = calloc(1, sizeof(*table[i]));
		table[i]->id = i;
	}
	cache = table[3];
	touch_session(cache);
	/* session 3 expires */
	free(table[3]);
	table[3] = NULL;
	if (!bug)
		cache = NULL;
	/* other work: blocks of other sizes */
	for (int i = 0; i < 64; i++)
		churn[i] = malloc(64 + 16 * (i % 5));
	if (!bug) {		/* a new session takes the freed block */
		table[3] = calloc(1, sizeof(*table[3]));
		table[3]->id = 3;
	}
	for (int i = 0; i < 8; i++)
		if (table[i])
			touch_session(table[i]);
	if (cache)
		touch_session(cache);	/* the bug: session 3 is gone */
	for (int i = 0; i < 64; i++)
		free(churn[i]);
	snprintf(line, sizeof(line), "uaf: sessions touched, bug=%d\n", bug);
	say(line);
	return 0;
}
