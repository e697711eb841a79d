/* Frees a block its library (tests/targets/plugin/earlyblock.c) allocated
 * in its constructor, before the program's entry: a good free, of a block
 * vigil's in-process tier, which comes in at the entry, never saw filed.
 *   --interior  free 8 bytes into it instead (the bug) */
#include <string.h>
#include <unistd.h>

void early_release(int interior);

int main(int argc, char **argv)
{
	early_release(argc > 1 && !strcmp(argv[1], "--interior"));
	if (write(1, "early_free: done\n", 17) < 0)
		return 1;
	return 0;
}
