/* Heap and global overflows through the C library, one per flag, for
 * specs/lib/heap_overflow.vigil (tests/e2e/heap_overflow*.sh). Sizes come
 * through opaque() so that the compiler cannot check or inline the
 * calls. Without a flag: many calls that stay inside their objects (and
 * some into a stack buffer, which vigil does not know); --many N: N
 * copies between two heap blocks, all inside; --memsets N: N memsets
 * inside heap blocks, and callocs large enough that glibc clears them
 * with memset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

char table[64];
static char buf[32];	/* a static: .symtab's local symbol, or DWARF's */

/* a value the compiler cannot see through */
__attribute__((noinline)) static size_t opaque(size_t v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

__attribute__((noinline)) static char *make_buf(size_t n)
{
	return malloc(opaque(n));
}

static void good(void)
{
	char stack[32], src[200], *b, *z;
	unsigned long sum = 0;

	memset(src, 'x', sizeof(src));
	for (int i = 0; i < 200; i++) {
		size_t n = opaque(16 + (size_t)i % 64);
		char *c = make_buf(n + 1);

		b = make_buf(n);

		memcpy(b, src, opaque(n));
		memmove(c + 1, b, opaque(n));
		memset(b, 0, opaque(n));
		/* nothing at the block's end: an empty range touches nothing */
		memset(b + n, 0, opaque(0));
		memcpy(b + n, src, opaque(0));
		/* calloc's own memset, into a block not yet returned */
		z = calloc(opaque(n), 64);
		sum += z ? (unsigned char)z[n] : 0;
		free(z);
		snprintf(c, opaque(n + 1), "%d", i);
		memcpy(table, b, opaque(n < sizeof(table) ? n : sizeof(table)));
		memcpy(table + 8, src, opaque(56));
		/* a stack buffer: unknown, never a violation */
		memcpy(stack, src, opaque(sizeof(stack)));
		sum += (unsigned char)b[0] + (unsigned char)c[0] +
		       (unsigned char)stack[3];
		free(b);
		free(c);
	}
	/* realloc's own copy, into a block not yet returned, is its own */
	b = make_buf(8);
	memcpy(b, src, opaque(8));
	for (int k = 1; k <= 32; k++) {
		char *blocker = make_buf(16);	/* the next grow moves it */

		b = realloc(b, opaque(64 * (size_t)k));
		memcpy(b + 64 * (k - 1), src, opaque(64));
		free(blocker);
	}
	sum += (unsigned char)b[64 * 31];
	free(b);
	printf("heapov: good done %lu\n", sum);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char src[256];
	char *b;

	memset(src, 'y', sizeof(src));
	src[sizeof(src) - 1] = 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!*mode) {
		good();
		return 0;
	}
	if (!strcmp(mode, "--memcpy")) {		/* 100 into 50 */
		b = make_buf(50);
		memcpy(b, src, opaque(100));
	} else if (!strcmp(mode, "--big")) {		/* 2 MB into 1 MB */
		char *from = make_buf(2u << 20);

		if (!from)
			return 1;
		memset(from, 'z', 2u << 20);
		b = make_buf(1u << 20);	/* glibc maps it apart */
		memcpy(b, from, opaque(2u << 20));
	} else if (!strcmp(mode, "--many")) {	/* N copies, all inside */
		long n = argc > 2 ? atol(argv[2]) : 1000000;
		unsigned long sum = 0;
		char *from = make_buf(192);	/* the heap's: known too */

		if (!from)
			return 1;
		memcpy(from, src, 192);
		b = make_buf(64);
		for (long i = 0; i < n; i++) {
			memcpy(b, from + (i & 127), opaque(64));
			sum += (unsigned char)b[i & 63];
		}
		/* said from the heap block too (printf's own buffer is on
		 * the stack: memory vigil does not know) */
		n = snprintf(from, 192, "heapov: many done %ld %lu\n", n, sum);
		return write(1, from, opaque((size_t)n)) == n ? 0 : 1;
	} else if (!strcmp(mode, "--memsets")) {	/* N, all inside */
		long n = argc > 2 ? atol(argv[2]) : 100000;
		unsigned long sum = 0;

		b = make_buf(256);
		for (long i = 0; i < n; i++) {
			char *z = i % 100 ? NULL : calloc(opaque(64), 64);

			memset(b + (i & 127), (int)i, opaque(128));
			sum += (unsigned char)b[i & 255] + (z ? z[i & 4095] : 0);
			free(z);
		}
		printf("heapov: memsets done %ld %lu\n", n, sum);
		return 0;
	} else if (!strcmp(mode, "--memset")) {	/* 100 into 50 */
		b = make_buf(50);
		memset(b, 'y', opaque(100));
	} else if (!strcmp(mode, "--one")) {		/* 2 into 1 */
		b = make_buf(1);
		memcpy(b, src, opaque(2));
	} else if (!strcmp(mode, "--global")) {		/* 80 into table[64] */
		memcpy(table, src, opaque(80));
	} else if (!strcmp(mode, "--snprintf")) {	/* says 200 of 50 */
		b = make_buf(50);
		snprintf(b, opaque(200), "%s", "short");
	} else if (!strcmp(mode, "--before")) {	/* 8 bytes before */
		b = make_buf(50);
		memcpy(b - opaque(8), src, opaque(16));
	} else if (!strcmp(mode, "--strcpy")) {	/* 255 + 1 into 100 */
		b = make_buf(100);
		strcpy(b, src);
	} else if (!strcmp(mode, "--aligned")) {	/* 48 into 40 */
		void *v;

		if (posix_memalign(&v, 16, opaque(40)))
			return 1;
		memcpy(v, src, opaque(48));
	} else if (!strcmp(mode, "--read")) {		/* 100 from a file into 50 */
		int fd = open("/dev/zero", O_RDONLY);

		b = make_buf(50);
		if (read(fd, b, opaque(100)) < 0)
			return 1;
	} else if (!strcmp(mode, "--strlen")) {	/* no NUL in 16 */
		b = make_buf(16);
		memset(b, 'y', opaque(16));
		printf("heapov: strlen %zu\n", strlen(b));
	} else if (!strcmp(mode, "--memcmp")) {	/* reads 60 of 40 */
		b = make_buf(40);
		memset(b, 'y', 40);
		printf("heapov: memcmp %d\n", memcmp(src, b, opaque(60)) != 0);
	} else if (!strcmp(mode, "--stack")) {		/* unknown memory */
		char small[16];

		memcpy(small, src, opaque(8));
		printf("heapov: stack %d\n", small[0]);
	} else if (!strcmp(mode, "--static")) {	/* 40 at buf+8 of 32 */
		memcpy(buf + opaque(8), src, opaque(40));
		printf("heapov: static %d\n", buf[8]);
	} else if (!strcmp(mode, "--libglobal")) {	/* 250 into libc's */
		/* stdout's FILE, a global of libc (_IO_2_1_stdout_), not of
		 * the program: 250 bytes over it (its own, not past it, when
		 * the copy is not stopped: the same bytes back) */
		static char save[250];
		const volatile char *f = (const volatile char *)stdout;

		for (int i = 0; i < 250; i++)	/* loads, not a call */
			save[i] = f[i];
		memcpy((void *)stdout, save, opaque(250));
		printf("heapov: libglobal\n");
	} else {
		fprintf(stderr, "heapov: unknown flag %s\n", mode);
		return 2;
	}
	printf("heapov: survived %s\n", mode);
	return 0;
}
