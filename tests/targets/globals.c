/* The program's globals read at an event (`::counter`, `::cfg.level`,
 * `::head->n`, `str(::cfg.name)`, `str(::cfg.tag)`; tests/e2e/globals.sh).
 *   globals          tick(k) is called with k == counter, 20 times
 *   globals --bug    counter skips one at k == 12
 * Prints "globals: ticks=20". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	long n;
};

struct config {
	int level;
	const char *name;
	char tag[8];
};

int counter;
short small = -7;
struct config cfg = { 3, "prod", "blue" };
struct node *head;

__attribute__((noinline)) void tick(int k)
{
	counter++;
	if (head)
		head->n = counter * 10L;
}

int main(int argc, char **argv)
{
	int bug = argc > 1 && !strcmp(argv[1], "--bug");

	head = NULL;
	for (int k = 0; k < 20; k++) {
		if (k == 5) {
			head = calloc(1, sizeof(*head));
			head->n = counter * 10L;
		}
		if (bug && k == 12)
			counter++;
		tick(k);
	}
	printf("globals: ticks=20\n");
	return 0;
}
