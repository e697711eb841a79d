/* Accesses after free through calls, past the 32 bytes debug registers
 * cover (tests/e2e/uaf_calls.sh): three 200-byte blocks freed, then
 *   memcpy from byte 100 of the first (a read),
 *   write(2) of 4 bytes from byte 40 of the second (the kernel reads),
 *   strlen from byte 150 of the third (a read);
 * with --clean none of them, and a copy between live buffers instead. The
 * blocks are held apart by a live one each, so none is handed out again.
 * Prints what it copied, so a harmed memcpy would show. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int clean = argc > 1 && !strcmp(argv[1], "--clean");
	char *b[3], *keep[3], dst[64];
	int fd = open("/dev/null", O_WRONLY);
	/* a call, not the move gcc makes of a small memcpy */
	void *(*volatile copy)(void *, const void *, size_t) = memcpy;
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		b[i] = malloc(200);
		keep[i] = malloc(200);
		memset(b[i], 'a' + i, 199);
		b[i][199] = 0;
		strcpy(keep[i], "live");
	}
	for (int i = 0; i < 3; i++)
		free(b[i]);
	if (clean) {
		copy(dst, keep[0], 5);
		n = strlen(keep[1]);
		if (write(fd, keep[2], 4) != 4)
			return 1;
	} else {
		copy(dst, b[0] + 100, 8);
		if (write(fd, b[1] + 40, 4) != 4)
			return 1;
		n = strlen(b[2] + 150);
		strcpy(dst, keep[0]);
	}
	printf("uafcalls: %s %zu\n", dst, n);
	for (int i = 0; i < 3; i++)
		free(keep[i]);
	close(fd);
	return 0;
}
