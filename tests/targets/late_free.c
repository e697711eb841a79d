/* A block allocated before a property is loaded into the session, and one
 * after, each freed twice (tests/e2e/live_load_existing.sh): the loaded
 * double_free has a slice for the second block only.
 *
 *   late_free GO_FILE
 * allocates block A, waits until GO_FILE exists (the test loads the
 * property meanwhile), allocates block B, frees B twice, then A twice.
 * The allocator is its own (my_alloc, my_free: a free list, libc never
 * frees), so freeing twice does not abort the program. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct block {
	struct block *next;
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

	b->next = free_list;
	free_list = b;
}

int main(int argc, char **argv)
{
	void *a, *b;

	if (argc != 2) {
		fprintf(stderr, "usage: late_free GO_FILE\n");
		return 2;
	}
	a = my_alloc(16);
	while (access(argv[1], F_OK))
		usleep(10000);
	b = my_alloc(16);
	my_free(b);
	my_free(b);
	my_free(a);
	my_free(a);
	printf("a=%p b=%p\n", a, b);
	return 0;
}
