/* malloc'ed blocks for specs/lib/leak.vigil: all freed by default; with
 * --leak, the blocks made by make_record() for odd i are never freed (5 of
 * them), nor is one block from posix_memalign, which hands it out through
 * its first argument. No stdio: its buffer would be a block libc keeps
 * until exit -- except with --libc, which prints with printf (stdout's
 * buffer) and starts a thread (its TLS blocks): blocks of libc's own,
 * which specs/lib/leak.vigil leaves out. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static char *make_record(int i)
{
	char *r = malloc(32 + i);

	memset(r, 'x', 32 + i);
	return r;
}

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int leak = argc > 1 && !strcmp(argv[1], "--leak");
	char *keep[10];
	void *aligned;

	for (int i = 0; i < 10; i++) {
		keep[i] = make_record(i);
		keep[i] = realloc(keep[i], 200 + i);
	}
	if (posix_memalign(&aligned, 64, 100))
		return 1;
	for (int i = 0; i < 10; i++)
		if (!leak || i % 2 == 0)
			free(keep[i]);
	if (!leak)
		free(aligned);
	if (argc > 1 && !strcmp(argv[argc - 1], "--libc")) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) ||
		    pthread_join(t, NULL))
			return 1;
		printf("leaky: with libc's own blocks\n");
		fflush(stdout);
	}
	write(1, "leaky: done\n", 12);
	return 0;
}
