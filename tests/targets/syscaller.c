/* System calls for `syscall name(args)` events (tests/e2e/syscalls.sh):
 * opens /dev/null 5 times, writes one byte 3 times each time, closes it.
 * Prints "syscaller: opens=5 writes=15" (one more write: that line). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char path[32];

	strcpy(path, "/dev/null");	/* on the stack: see docs (str of a
					 * syscall argument) */
	for (int i = 0; i < 5; i++) {
		int fd = open(path, O_WRONLY);

		for (int k = 0; k < 3; k++)
			if (write(fd, "x", 1) != 1)
				return 1;
		close(fd);
	}
	printf("syscaller: opens=5 writes=15\n");
	return 0;
}
