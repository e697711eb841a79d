/* A target for timed properties (specs/lib/timeouts/*.vigil).
 *
 *   timely hold [LONG_MS]   thousands of short mutex holds on two threads,
 *                           and once, in the main thread, one of LONG_MS
 *                           (default 300) inside hold_long()
 *   timely wait [LONG_MS]   a thread waits for a mutex the main thread holds
 *                           for LONG_MS in hold_long()
 *   timely stuck            handle(r) answers requests 0..99 at once, but
 *                           request 42 never: the program hangs there
 *   timely slow [LONG_MS]   as stuck, but request 42 is answered after
 *                           LONG_MS, so the run ends (tier_agreement.sh)
 *   timely files [LONG_MS]  opens files and sockets and closes them at once,
 *                           one file kept open LONG_MS in keep_open()
 *   timely sockets [LONG_MS] the same, one socket kept open LONG_MS
 *   timely allocs [LONG_MS] thousands of short-lived blocks, one kept
 *                           LONG_MS in keep_block()
 *   timely exit             says it is ready (stdout's buffer, a block it
 *                           never frees, is then allocated), waits for a
 *                           line on stdin and exits (timeouts_exit.sh)
 *
 * Built with frame pointers (Makefile) so the stops show where it is. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;
static int long_ms = 300;
static int answer_late;	/* slow: request 42 takes long_ms, then returns */

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) static void hold_long(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	counter++;
	sleep_ms(long_ms);	/* the critical section that runs long */
	pthread_mutex_unlock(m);
}

static void *short_holds(void *arg)
{
	for (int i = 0; i < 3000; i++) {
		pthread_mutex_lock(&m2);
		counter++;
		pthread_mutex_unlock(&m2);
	}
	return arg;
}

static int hold(void)
{
	pthread_t t;

	pthread_create(&t, NULL, short_holds, NULL);
	for (int i = 0; i < 3000; i++) {
		if (i == 1500)
			hold_long(&m1);
		pthread_mutex_lock(&m1);
		counter++;
		pthread_mutex_unlock(&m1);
	}
	pthread_join(t, NULL);
	printf("timely: hold done, %lu\n", counter);
	return 0;
}

static void *waiter(void *arg)
{
	sleep_ms(20);
	pthread_mutex_lock(&m1);	/* waits for hold_long */
	counter++;
	pthread_mutex_unlock(&m1);
	return arg;
}

static int wait_for_lock(void)
{
	pthread_t t;

	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&m1);
		counter++;
		pthread_mutex_unlock(&m1);
	}
	pthread_create(&t, NULL, waiter, NULL);
	hold_long(&m1);
	pthread_join(t, NULL);
	printf("timely: wait done, %lu\n", counter);
	return 0;
}

__attribute__((noinline)) int handle(int r)
{
	if (r == 42 && answer_late)
		sleep_ms(long_ms);
	else if (r == 42)
		for (;;)
			pause();	/* never answered */
	counter += (unsigned long)r;
	return 0;
}

__attribute__((noinline)) static void keep_open(int fd)
{
	sleep_ms(long_ms);
	close(fd);
}

static int files(int keep_socket)
{
	for (int i = 0; i < 500; i++) {
		int fd = open("/dev/null", O_RDONLY);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);

		close(fd);
		close(s);
	}
	keep_open(keep_socket ? socket(AF_UNIX, SOCK_STREAM, 0)
			      : open("/dev/null", O_RDONLY));
	printf("timely: %s done\n", keep_socket ? "sockets" : "files");
	return 0;
}

__attribute__((noinline)) static void keep_block(char *p)
{
	sleep_ms(long_ms);
	free(p);
}

static int allocs(void)
{
	for (int i = 0; i < 5000; i++) {
		char *p = malloc(64 + (size_t)i % 100);

		p[0] = 1;
		counter += (unsigned long)p[0];
		free(p);
	}
	keep_block(malloc(4096));
	printf("timely: allocs done\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "hold";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2)
		long_ms = atoi(argv[2]);
	if (!strcmp(mode, "hold"))
		return hold();
	if (!strcmp(mode, "wait"))
		return wait_for_lock();
	if (!strcmp(mode, "files"))
		return files(0);
	if (!strcmp(mode, "sockets"))
		return files(1);
	if (!strcmp(mode, "allocs"))
		return allocs();
	if (!strcmp(mode, "exit")) {
		char c;

		printf("timely: ready\n");
		return read(0, &c, 1) < 0;
	}
	answer_late = !strcmp(mode, "slow");
	if (!strcmp(mode, "stuck") || answer_late) {
		for (int r = 0; r < 100; r++)
			handle(r);
		printf("timely: all answered\n");
		return 0;
	}
	fprintf(stderr, "usage: timely hold|wait|stuck|slow|files|sockets|allocs|exit [LONG_MS]\n");
	return 2;
}
