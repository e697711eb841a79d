/* Struct fields for `p->field` captures: a list of three nodes, each
 * visited once. visit() takes a double between its pointers, so `counter`
 * is the third parameter but arrives in %rsi: only its DWARF location
 * says so. Negative shorts and unsigned chars check sign extension.
 *   fields           every node is what it should be
 *   fields --bug     node 2 has the wrong id
 * Prints "fields: visited=3". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct inner {
	short s;		/* -100 * id */
	unsigned char u;	/* 200 + id */
};

struct node {
	int id;
	struct inner in;
	struct node *next;
	long val;		/* 1000 * id */
};

static long visited;

__attribute__((noinline)) struct node *make(int id)
{
	struct node *n = calloc(1, sizeof(*n));

	n->id = id;
	n->in.s = (short)(-100 * id);
	n->in.u = (unsigned char)(200 + id);
	n->val = 1000L * id;
	return n;
}

__attribute__((noinline)) void visit(struct node *n, double scale,
				     long *counter)
{
	*counter += 1;
	n->val = (long)(n->val * scale);
}

int main(int argc, char **argv)
{
	struct node *head = NULL, **tail = &head;

	for (int id = 1; id <= 3; id++) {
		*tail = make(id);
		tail = &(*tail)->next;
	}
	if (argc > 1 && !strcmp(argv[1], "--bug"))
		head->next->id = 7;
	for (struct node *n = head; n; n = n->next)
		visit(n, 1.0, &visited);
	printf("fields: visited=%ld\n", visited);
	return 0;
}
