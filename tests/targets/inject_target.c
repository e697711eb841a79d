/* What tests/unit/test_inject.c injects into: two threads call victim()
 * (42) in a tight loop, a third sleeps, the main thread waits in pause().
 * It prints "&victim tid1 tid2 tid3" on a line at start, then "43" once a
 * looping thread sees victim() return 43 (patched), and "alive" on
 * SIGUSR1. With an argument, it only prints "entry" and exits (run to
 * its entry by the test first). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pid_t tids[3];
static volatile int reported;

/* noipa: no call of it folded to 42, nor hoisted out of the loop */
__attribute__((noipa)) int victim(void)
{
	return 42;
}

static void *looper(void *arg)
{
	tids[(long)arg] = (pid_t)syscall(SYS_gettid);
	for (;;) {
		int r = victim();

		if (r == 43 && !__atomic_exchange_n(&reported, 1, __ATOMIC_SEQ_CST)) {
			printf("43\n");
			fflush(stdout);
		}
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	tids[2] = (pid_t)syscall(SYS_gettid);
	for (;;)
		sleep(1000);
	return NULL;
}

static void alive(int sig)
{
	static const char m[] = "alive\n";

	(void)sig;
	write(1, m, sizeof(m) - 1);
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	if (argc > 1) {
		printf("entry\n");
		return 0;
	}
	signal(SIGUSR1, alive);
	pthread_create(&t[0], NULL, looper, (void *)0L);
	pthread_create(&t[1], NULL, looper, (void *)1L);
	pthread_create(&t[2], NULL, sleeper, NULL);
	while (!__atomic_load_n(&tids[0], __ATOMIC_SEQ_CST) ||
	       !__atomic_load_n(&tids[1], __ATOMIC_SEQ_CST) ||
	       !__atomic_load_n(&tids[2], __ATOMIC_SEQ_CST))
		usleep(1000);
	printf("%p %d %d %d\n", (void *)victim, tids[0], tids[1], tids[2]);
	fflush(stdout);
	for (;;)
		pause();
}
