/* A lock-order inversion over two static mutexes, then an exit at once:
 * the reports of specs/lib/lock_order.vigil must name &A and &B though
 * vigil reads the events after the program is gone. Two threads,
 * serialised by a barrier (no deadlock): the first takes A then B, the
 * second B then A; main exits as soon as they are done, with _exit, so
 * nothing after the inversion gives vigil time. */
#include <pthread.h>
#include <unistd.h>

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

static void *a_then_b(void *arg)
{
	lock2(&A, &B);
	pthread_barrier_wait(&turn);
	return arg;
}

static void *b_then_a(void *arg)
{
	pthread_barrier_wait(&turn);
	lock2(&B, &A);
	return arg;
}

int main(void)
{
	pthread_t t1, t2;

	pthread_barrier_init(&turn, NULL, 2);
	pthread_create(&t1, NULL, a_then_b, NULL);
	pthread_create(&t2, NULL, b_then_a, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	_exit(0);
}
