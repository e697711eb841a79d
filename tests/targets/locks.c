/* pthread mutexes, used right (default) or wrong:
 *   --wrong-thread  a thread unlocks a mutex another thread holds
 *   --double-lock   a thread locks a mutex it already holds (an
 *                   error-checking mutex, so the program reports EDEADLK
 *                   instead of hanging when nobody stops it first)
 *   --exit-held     a thread exits while holding a mutex
 * The clean run also waits on a condition variable, which releases and
 * re-takes the mutex inside libc. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, mode;
enum { CLEAN, WRONG_THREAD, DOUBLE_LOCK, EXIT_HELD };

static void *waiter(void *arg)
{
	pthread_mutex_lock(&m);
	while (!ready)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *worker(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *holder(void *arg)
{
	pthread_mutex_lock(&m);
	if (mode == EXIT_HELD)
		return NULL;	/* the bug: exits with m held */
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *unlocker(void *arg)
{
	pthread_mutex_unlock(&m);	/* the bug: m is not ours */
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_mutexattr_t a;
	pthread_t t[4];

	if (argc > 1)
		mode = !strcmp(argv[1], "--wrong-thread") ? WRONG_THREAD :
		       !strcmp(argv[1], "--double-lock") ? DOUBLE_LOCK :
		       !strcmp(argv[1], "--exit-held") ? EXIT_HELD : CLEAN;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m, &a);

	pthread_create(&t[0], NULL, waiter, NULL);
	pthread_create(&t[1], NULL, worker, NULL);
	pthread_create(&t[2], NULL, worker, NULL);
	usleep(20000);
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);

	if (mode == DOUBLE_LOCK) {
		pthread_mutex_lock(&m);
		int r = pthread_mutex_lock(&m);	/* the bug */
		printf("locks: second lock returned %s\n",
		       r == EDEADLK ? "EDEADLK" : "0");
		pthread_mutex_unlock(&m);
	} else if (mode == WRONG_THREAD) {
		pthread_mutex_lock(&m);
		pthread_create(&t[3], NULL, unlocker, NULL);
		pthread_join(t[3], NULL);
		pthread_mutex_unlock(&m);
	} else {
		pthread_create(&t[3], NULL, holder, NULL);
		pthread_join(t[3], NULL);
	}
	printf("locks: done\n");
	return 0;
}
