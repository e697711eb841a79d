/* A target for the symbol and type layer (user/sym/, tests/unit/test_sym.c):
 * functions whose parameters exercise every case of the x86-64 SysV
 * argument classification, structs with nested, anonymous and bit-field
 * members, typedef chains, globals, a static function and a function that
 * is inlined everywhere.
 *
 * The unit test builds this file itself in several ways (-O1 -g as the top
 * Makefile does, PIE and non-PIE, -O2, without DWARF, stripped with a
 * separate debug file), so every function here must stay meaningful under
 * all of them: each is called from main with values only known at run time,
 * and is noinline unless the test is about inlining. With the argument
 * "wait" it prints run-time addresses and waits instead. */
#include <complex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, used))

enum color { RED, GREEN, BLUE = 7 };

struct inner {
	short s;
	char c;
	long l;			/* offset 8 */
};

struct queue {
	int cap;		/* 0 */
	int count;		/* 4 */
	struct inner in;	/* 8: in.s 8, in.c 10, in.l 16 */
	struct {
		int x, y;	/* pos.x 24, pos.y 28 */
	} pos;
	union {			/* anonymous: u1 and u2 at 32 */
		int u1;
		float u2;
	};
	unsigned flag : 3;	/* bit-fields in the word at 36 */
	unsigned bits : 5;
	long *items;		/* 40 */
	const char *name;	/* 48 */
	enum color color;	/* 56 */
	bool ok;		/* 60 */
	double ratio;		/* 64 */
	struct queue *next;	/* 72 */
	int arr[4];		/* 80 */
};

typedef struct queue queue_t;
typedef const volatile queue_t *cq_ptr;
typedef unsigned long my_size;

struct small { long a; double b; };	/* INTEGER + SSE: two registers */
struct pair { long a, b; };		/* INTEGER + INTEGER */
struct big { long a, b, c; };		/* 24 bytes: MEMORY */
struct fpair { float x, y; };		/* one SSE eightbyte */

/* globals */
int g_counter = 3;
struct queue g_queue;
static long s_hidden[10];
const char *g_name = "sym";
my_size g_size = 42;
__thread int t_local;	/* thread-local: no single address */

NOINLINE int queue_push(struct queue *q, long v)
{
	if (q->count >= q->cap)
		return -1;
	q->items[q->count++] = v;
	return 0;
}

NOINLINE long typed_ptr(cq_ptr cq, my_size n)
{
	return cq->count + (long)n;
}

/* seven and eight integer arguments: g and h go on the stack */
NOINLINE long many(int a, long b, char c, short d, unsigned e, void *f,
		   int g, long h)
{
	return a + b + c + d + e + (long)f + g + h;
}

/* a: rdi, x: xmm0, y: xmm1, b: rsi, s: rdx+xmm2, bg: stack, ok: rcx,
 * c: r8, fp: xmm3 */
NOINLINE double mixed(int a, double x, float y, long b, struct small s,
		      struct big bg, bool ok, enum color c, struct fpair fp)
{
	return a + x + y + b + s.a + s.b + bg.a + bg.c + ok + c + fp.x;
}

/* the struct is returned in memory: the hidden pointer takes rdi */
NOINLINE struct big ret_big(int a, long b)
{
	struct big r = { a, b, a + b };
	return r;
}

NOINLINE struct small ret_small(long a)
{
	struct small r = { a, (double)a };
	return r;
}

/* five integers fill rdi..r8; p needs two integer registers and only r9 is
 * left, so p goes to the stack whole and g still gets r9 */
NOINLINE long exhaust(long a, long b, long c, long d, long e, struct pair p,
		      long g)
{
	return a + b + c + d + e + p.a + p.b + g;
}

/* nine doubles: the ninth goes to the stack */
NOINLINE double nine(double a, double b, double c, double d, double e,
		     double f, double g, double h, double i)
{
	return a + b + c + d + e + f + g + h + i;
}

/* long double is X87 class: passed in memory; __int128 takes two
 * registers, or 16-byte aligned stack */
NOINLINE long wide(long double ld, __int128 w, long x)
{
	return (long)ld + (long)w + x;
}

/* registers full: s1 at the first stack slot, ld 16-aligned after a
 * padding slot, s2 after it */
NOINLINE long stack_align(long a, long b, long c, long d, long e, long f,
			  long s1, long double ld, long s2)
{
	return a + b + c + d + e + f + s1 + (long)ld + s2;
}

/* complex double: two SSE eightbytes; complex long double: memory */
NOINLINE double cplx(double _Complex z, long double _Complex lz, int k)
{
	return __real__ z + __imag__ z + (double)__real__ lz + k;
}

NOINLINE int vfunc(const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++)
		n += va_arg(ap, int);
	va_end(ap);
	return n;
}

NOINLINE static int helper_static(int x)
{
	return x * 3 + g_counter;
}

/* always_inline is honoured even under -fno-inline: no out-of-line copy */
static inline __attribute__((always_inline)) int always_inl(int x)
{
	return x * 7 + 1;
}

/* an alias: a second symbol at real_impl's address, which DWARF knows
 * only by real_impl's name (glibc's malloc is __libc_malloc this way) */
NOINLINE int real_impl(int count)
{
	return count + 11;
}
int alias_fn(int) __attribute__((alias("real_impl")));

NOINLINE void no_params(void)
{
	s_hidden[g_counter % 10]++;
}

int main(int argc, char **argv)
{
	long items[8];
	struct queue q = { .cap = 8, .items = items, .name = "q" };
	struct small s = { argc, argc * 0.5 };
	struct big bg = { argc, 2, 3 };
	struct pair p = { argc, 4 };
	struct fpair fp = { 1.5f, 2.5f };
	long r = 0;

	/* "wait": print run-time addresses for the load-bias test, then
	 * block until stdin closes */
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		char buf[16];

		printf("%p %p %p %p\n", (void *)queue_push, (void *)&g_counter,
		       (void *)malloc, (void *)helper_static);
		fflush(stdout);
		while (fread(buf, 1, sizeof(buf), stdin) > 0)
			;
		return t_local;
	}
	r += queue_push(&q, argc);
	r += typed_ptr(&q, argc);
	r += many(argc, 2, 3, 4, 5, &q, 7, 8);
	r += (long)mixed(argc, 1.0, 2.0f, 3, s, bg, argc > 1, GREEN, fp);
	r += ret_big(argc, 5).c;
	r += ret_small(argc).a;
	r += exhaust(argc, 1, 2, 3, 4, p, 6);
	r += (long)nine(argc, 1, 2, 3, 4, 5, 6, 7, 8);
	r += wide(argc, argc, 3);
	r += vfunc("ab", 1, 2);
	r += stack_align(argc, 2, 3, 4, 5, 6, 7, 8.0L, 9);
	r += (long)cplx(argc + 2.0 * _Complex_I, 3.0L + argc * _Complex_I, 4);
	r += helper_static(argc);
	r += always_inl(argc);
	r += alias_fn(argc);
	no_params();
	g_queue.count = (int)r;
	printf("%ld %s %lu\n", r + s_hidden[3], g_name, g_size);
	return 0;
}
