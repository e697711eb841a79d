/* An access after free that the program dies of natively
 * (tests/e2e/uaf_fault.sh): glibc serves a 1 MiB malloc with its own
 * mapping and unmaps it at free, so reading byte 5000 of the freed block
 * (past the 32 bytes debug registers watch) raises SIGSEGV. memcheck keeps
 * the freed block mapped and reports the read; vigil reports it from the
 * fault, at the reading instruction, in read_late. --write: a store to
 * byte 7000 instead. --clean: the same reads of a live block, then a
 * SIGSEGV at an address that is no freed block's (not an access after
 * free). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (not leaves: each builds its frame, so the stack shows main) */
__attribute__((noinline)) static int read_late(volatile char *p)
{
	fflush(stdout);
	return p[5000];	/* the read */
}

__attribute__((noinline)) static void write_late(volatile char *p)
{
	fflush(stdout);
	p[7000] = 1;	/* the write */
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char *big = malloc(1 << 20);

	if (!big)
		return 1;
	memset(big, 7, 1 << 20);
	if (!strcmp(mode, "--clean")) {
		printf("uafbig: live %d\n", read_late(big));
		fflush(stdout);
		free(big);
		return read_late((volatile char *)16);	/* no block's */
	}
	printf("uafbig: freeing\n");
	fflush(stdout);
	free(big);
	if (!strcmp(mode, "--write"))
		write_late(big);
	else
		printf("uafbig: %d\n", read_late(big));
	return 0;
}
