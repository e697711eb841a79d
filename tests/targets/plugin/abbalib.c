/* libabbalib.so: two static mutexes of a shared library, taken in both
 * orders (tests/targets/abba_lib.c links it). A report must name them
 * (&A), (&B) from the library's symbol table at the bias it was loaded
 * with, though the program is gone by the time vigil reads the events. */
#include <pthread.h>

static pthread_mutex_t A = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t B = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t turn;

static void lock2(pthread_mutex_t *first, pthread_mutex_t *second)
{
	pthread_mutex_lock(first);
	pthread_mutex_lock(second);
	pthread_mutex_unlock(second);
	pthread_mutex_unlock(first);
}

void abba_init(void)
{
	pthread_barrier_init(&turn, NULL, 2);
}

void abba_a_then_b(void)
{
	lock2(&A, &B);
	pthread_barrier_wait(&turn);
}

void abba_b_then_a(void)
{
	pthread_barrier_wait(&turn);
	lock2(&B, &A);
}
