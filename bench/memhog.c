/* The checkpoint benchmark's target: N MB of touched anonymous memory,
 * single-threaded, then a slow loop that dirties one page now and then, as
 * a mostly idle service would. Prints "ready" once the memory is touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	size_t len = mb << 20;
	char *p = malloc(len);

	if (!p)
		return 1;
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (char)i;
	printf("ready\n");
	fflush(stdout);
	for (unsigned long n = 0;; n++) {
		p[(n * 4096) % len]++;
		usleep(1000);
	}
}
