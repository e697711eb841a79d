/* Overflows through calls the in-process tier can patch (snprintf, read),
 * one per flag, for tests/specs/heap_overflow_fast.vigil
 * (tests/e2e/heap_overflow_fast.sh): the object map the agent keeps is
 * fed by malloc, calloc, realloc, posix_memalign, strdup and free, and
 * checked at each call. Without a flag: calls that stay inside their
 * objects, and some into a stack buffer (unknown memory); --wait: a block
 * allocated, then SIGUSR1 awaited (vigil attaches meanwhile), then 100
 * into that block of 50 (unknown to an attached vigil) and 200 into a
 * new one of 50. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char table[64];
static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

/* a value the compiler cannot see through */
__attribute__((noinline)) static size_t opaque(size_t v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

static void good(void)
{
	char stack[32];
	unsigned long sum = 0;

	for (int i = 0; i < 100; i++) {
		size_t n = opaque(16 + (size_t)i % 64);
		char *a = malloc(n), *c = calloc(2, n), *d = strdup("hello");
		void *v = NULL;

		snprintf(a, opaque(n), "%d", i);
		snprintf(c, opaque(2 * n), "%d", i);
		snprintf(c + n, opaque(n), "%d", i);	/* interior, to the end */
		snprintf(d, opaque(6), "%s", "bye");
		snprintf(table, opaque(sizeof(table)), "%d", i);
		snprintf(table + 32, opaque(32), "%d", i);
		if (!posix_memalign(&v, 64, opaque(40)))
			snprintf(v, opaque(40), "%d", i);
		a = realloc(a, opaque(n + 100));	/* moves, or grows */
		snprintf(a, opaque(n + 100), "%d", i);
		snprintf(stack, opaque(sizeof(stack)), "%d", i); /* unknown */
		sum += (unsigned char)a[0] + (unsigned char)stack[0];
		free(a);
		free(c);
		free(d);
		free(v);
	}
	printf("heapfast: good done %lu\n", sum);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char *b = NULL, small[8];
	void *v = NULL;

	if (!*mode) {
		good();
		return 0;
	}
	if (!strcmp(mode, "--heap")) {		/* says 200 of 50 */
		b = malloc(opaque(50));
		snprintf(b, opaque(200), "%s", "short");
	} else if (!strcmp(mode, "--global")) {	/* 80 into table[64] */
		snprintf(table, opaque(80), "%s", "short");
	} else if (!strcmp(mode, "--before")) {	/* 8 bytes before a block */
		b = malloc(opaque(50));
		snprintf(b - opaque(8), opaque(16), "%s", "x");
	} else if (!strcmp(mode, "--aligned")) {	/* 48 into 40 */
		if (posix_memalign(&v, 64, opaque(40)))
			return 2;
		snprintf(v, opaque(48), "%s", "x");
	} else if (!strcmp(mode, "--strdup")) {	/* 7 into "hello" */
		b = strdup("hello");
		snprintf(b, opaque(7), "%s", "x");
	} else if (!strcmp(mode, "--realloc")) {	/* 50 into 30 */
		b = realloc(malloc(opaque(50)), opaque(30));
		snprintf(b, opaque(50), "%s", "x");
	} else if (!strcmp(mode, "--freed")) {	/* into a freed block */
		b = malloc(opaque(50));
		free(b);
		snprintf(b, opaque(10), "%s", "x");
	} else if (!strcmp(mode, "--read")) {	/* 100 from a file into 50 */
		int fd = open("/dev/zero", O_RDONLY);

		b = malloc(opaque(50));
		if (fd < 0 || read(fd, b, opaque(100)) < 0)
			return 2;
	} else if (!strcmp(mode, "--wait")) {	/* before and after attach */
		char *old = malloc(opaque(50));

		signal(SIGUSR1, on_usr1);
		printf("heapfast: ready\n");
		fflush(stdout);
		while (!go)
			usleep(10000);
		snprintf(old, opaque(100), "%s", "x");
		printf("heapfast: the old block passed\n");
		fflush(stdout);
		b = malloc(opaque(50));
		snprintf(b, opaque(200), "%s", "x");
	} else if (!strcmp(mode, "--stack")) {	/* unknown memory */
		snprintf(small, opaque(100), "%s", "x");
	} else {
		fprintf(stderr, "heapfast: unknown flag %s\n", mode);
		return 2;
	}
	printf("heapfast: survived %s\n", mode);
	return 0;
}
