/* Objects whose fields tests watch per slice (tests/e2e/watch_slice.sh).
 *
 *   objects first N      obj_open(o), then at once o->count = 1, 2 .. N in
 *                        the same thread, then obj_close(o)
 *   objects threads N T  one object; T threads, half started before
 *                        obj_open(o) and half after, each adds 1 to
 *                        o->count N times (under a lock)
 *   objects many K       K objects opened at once, each written once, then
 *                        closed (one debug register each)
 *   objects cycle N      N times: obj_open(o), o->count = i, obj_close(o),
 *                        1 ms apart; says "objects: cycling" after the
 *                        first (tests/e2e/never_harm.sh)
 *
 * Prints "objects: count=C" (the last object's count). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct obj {
	long id;
	long count;
	char name[16];
};

__attribute__((noinline)) void obj_open(struct obj *o)
{
	__asm__ volatile("" ::"r"(o) : "memory");
}

__attribute__((noinline)) void obj_close(struct obj *o)
{
	__asm__ volatile("" ::"r"(o) : "memory");
}

static struct obj *shared;
static long n = 100;
static volatile int go;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *adder(void *arg)
{
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&lock);
		shared->count = shared->count + 1;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "first";
	struct obj *o;

	if (argc > 2)
		n = atol(argv[2]);
	if (!strcmp(mode, "first")) {
		o = calloc(1, sizeof(*o));
		obj_open(o);
		for (long i = 1; i <= n; i++)
			((volatile struct obj *)o)->count = i;
		obj_close(o);
		printf("objects: count=%ld\n", o->count);
	} else if (!strcmp(mode, "threads")) {
		int nt = argc > 3 ? atoi(argv[3]) : 8;
		pthread_t t[64];

		shared = o = calloc(1, sizeof(*o));
		for (int i = 0; i < nt / 2; i++)
			pthread_create(&t[i], NULL, adder, NULL);
		obj_open(o);
		for (int i = nt / 2; i < nt && i < 64; i++)
			pthread_create(&t[i], NULL, adder, NULL);
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < nt && i < 64; i++)
			pthread_join(t[i], NULL);
		obj_close(o);
		printf("objects: count=%ld\n", o->count);
	} else if (!strcmp(mode, "cycle")) {
		struct timespec ms = { 0, 1000000 };

		o = calloc(1, sizeof(*o));
		for (long i = 1; i <= n; i++) {
			obj_open(o);
			((volatile struct obj *)o)->count = i;
			obj_close(o);
			if (i == 1) {
				printf("objects: cycling\n");
				fflush(stdout);
			}
			nanosleep(&ms, NULL);
		}
		printf("objects: count=%ld\n", o->count);
	} else {
		struct obj *all[16];
		int k = (int)(n < 16 ? n : 16);

		for (int i = 0; i < k; i++) {
			all[i] = calloc(1, sizeof(*all[i]));
			obj_open(all[i]);
		}
		for (int i = 0; i < k; i++)
			((volatile struct obj *)all[i])->count = 1;
		for (int i = 0; i < k; i++)
			obj_close(all[i]);
		printf("objects: count=%ld\n", all[k - 1]->count);
	}
	return 0;
}
