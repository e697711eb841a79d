/* Two mutexes taken in both orders, for specs/lib/lock_order.vigil, in a
 * run that never deadlocks: the orders are taken in phases, one after the
 * other (pthread_join between them).
 *   phase 1: 3 threads, each 500 times: lock(A), lock(B), unlock both;
 *            under contention, with a third mutex C taken alone
 *   phase 2: one thread: lock(C), lock(A), unlock both (C before A: an
 *            order nobody reverses)
 *   phase 3: with --abba, one thread: lock(B), lock(A), the inversion;
 *            without, lock(A), lock(B) again
 * It prints the addresses of A and B and the tid of phase 3's thread. */
#define _GNU_SOURCE	/* gettid */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t A = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t B = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t C = PTHREAD_MUTEX_INITIALIZER;
static long under_b, under_c;	/* counted under B, under C */
static int abba;

static void *a_then_b(void *arg)
{
	for (int i = 0; i < 500; i++) {
		pthread_mutex_lock(&A);
		pthread_mutex_lock(&B);
		under_b++;
		pthread_mutex_unlock(&B);
		pthread_mutex_unlock(&A);
		pthread_mutex_lock(&C);
		under_c++;
		pthread_mutex_unlock(&C);
	}
	return NULL;
}

static void *c_then_a(void *arg)
{
	pthread_mutex_lock(&C);
	pthread_mutex_lock(&A);
	under_c++;
	pthread_mutex_unlock(&A);
	pthread_mutex_unlock(&C);
	return NULL;
}

static void *last(void *arg)
{
	printf("lockorder: phase 3 in tid %d\n", gettid());
	fflush(stdout);
	pthread_mutex_t *first = abba ? &B : &A, *second = abba ? &A : &B;

	pthread_mutex_lock(first);
	pthread_mutex_lock(second);	/* with --abba: the inversion */
	under_b++;
	pthread_mutex_unlock(second);
	pthread_mutex_unlock(first);
	return NULL;
}

static void phase(void *(*fn)(void *), int nthreads)
{
	pthread_t t[4];

	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, fn, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	abba = argc > 1 && !strcmp(argv[1], "--abba");
	printf("lockorder: A=%p B=%p\n", (void *)&A, (void *)&B);
	fflush(stdout);
	phase(a_then_b, 3);
	phase(c_then_a, 1);
	phase(last, 1);
	printf("lockorder: done, under_b=%ld under_c=%ld\n", under_b, under_c);
	return 0;
}
