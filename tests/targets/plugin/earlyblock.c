/* A library that allocates a block in its constructor, before the
 * program's entry, and lets the program free it (tests/targets/
 * early_free.c) */
#include <stdlib.h>

static char *early;

__attribute__((constructor)) static void early_init(void)
{
	early = malloc(100);
}

/* free the constructor's block, or (interior) a pointer 8 bytes into it */
void early_release(int interior)
{
	free(early + (interior ? 8 : 0));
}
