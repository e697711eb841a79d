/* Frees a block its library (tests/targets/plugin/earlyblock.c) allocated
 * in its constructor, before the program's entry: a good free, of a block
 * vigil's in-process tier, which comes in at the entry, never saw filed.
 *   --interior   free 8 bytes into it instead (the bug)
 *   --wait FILE  for vigil attach: says "ready", waits (30 s at most)
 *                for FILE to exist, then frees a block malloc gave before
 *                (good) and a local array (the bug; glibc aborts) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void early_release(int interior);

__attribute__((noinline)) static void release(void *p)
{
	free(p);
}

static int late(const char *file)
{
	char local[32], *before = malloc(40);

	memset(local, 0, sizeof(local));
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 3000 && access(file, F_OK); i++)
		usleep(10000);
	release(before);
	release(local);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--wait"))
		return late(argv[2]);
	early_release(argc > 1 && !strcmp(argv[1], "--interior"));
	if (write(1, "early_free: done\n", 17) < 0)
		return 1;
	return 0;
}
