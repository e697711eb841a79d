/* Pointers that reports name (tests/e2e/symvals.sh): the address of a
 * global, and one 16 bytes into a 24-byte block make_node allocated. */
#include <stdlib.h>
#include <unistd.h>

struct node {
	long key, value;
	struct node *next;	/* at +16 */
};

long A[4];

__attribute__((noinline)) struct node *make_node(long key)
{
	struct node *n = malloc(sizeof(*n));

	n->key = key;
	n->value = 0;
	n->next = NULL;
	return n;
}

__attribute__((noinline)) void link_to(long *a, struct node **p)
{
	*a = 1;
	*p = NULL;
}

int main(void)
{
	struct node *n;

	usleep(100000);	/* vigil reads the mappings at the first event */
	n = make_node(7);

	link_to(&A[0], &n->next);
	link_to(&A[1], &n->next);
	free(n);
	usleep(100000);
	return 0;
}
