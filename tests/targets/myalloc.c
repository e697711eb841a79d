/* A program with its own allocator: my_alloc and my_free keep freed blocks
 * on a free list and hand them out again, calling malloc only when the
 * list is empty (and free never: the blocks stay cached). libc sees one
 * malloc per block and no free, so specs/lib/double_free.vigil as it is
 * cannot tell anything; with -D alloc=my_alloc -D release=my_free it
 * watches this allocator.
 *
 *   myalloc              allocate, free, reuse: every block freed once
 *   myalloc --bug        the same, and one block freed twice with my_free
 *                        (the free list then holds it twice: two later
 *                        my_alloc calls return the same block)
 *   myalloc --hold N S   keep N blocks allocated, and for S seconds
 *                        allocate and free one block every 10 ms: a
 *                        target that lives long enough to be watched */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct block {
	struct block *next;	/* while on the free list */
	char data[56];
};

static struct block *free_list;

__attribute__((noinline)) void *my_alloc(size_t size)
{
	struct block *b = free_list;

	if (size > sizeof(b->data))
		return NULL;
	if (b)
		free_list = b->next;
	else if (!(b = malloc(sizeof(*b))))
		return NULL;
	return b;
}

__attribute__((noinline)) void my_free(void *p)
{
	struct block *b = p;

	if (!b)
		return;
	b->next = free_list;
	free_list = b;
}

static void workload(int bug)
{
	void *v[100];

	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 100; i++) {
			v[i] = my_alloc(16 + i % 32);
			memset(v[i], i, 16);
		}
		for (int i = 0; i < 100; i++) {
			my_free(v[i]);
			if (bug && round == 1 && i == 50) {
				/* the bug; then a pause, so that a user-tier
				 * stop (asynchronous: vigil sends it when the
				 * record reaches it) lands before we exit */
				struct timespec ms300 = { 0, 300 * 1000 * 1000 };

				my_free(v[i]);
				nanosleep(&ms300, NULL);
			}
		}
	}
}

static void hold(int n, int seconds)
{
	struct timespec gap = { 0, 10 * 1000 * 1000 };
	long rounds = seconds * 100L;

	for (int i = 0; i < n; i++)
		if (!my_alloc(8 + i % 40))
			exit(1);
	printf("myalloc: pid %d holds %d blocks\n", getpid(), n);
	fflush(stdout);
	for (long r = 0; r < rounds; r++) {
		my_free(my_alloc(24));
		nanosleep(&gap, NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "--hold"))
		hold(atoi(argv[2]), atoi(argv[3]));
	else
		workload(argc > 1 && !strcmp(argv[1], "--bug"));
	printf("myalloc: done\n");
	return 0;
}
