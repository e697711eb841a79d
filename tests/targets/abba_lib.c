/* abba_exit.c's inversion, with the mutexes in a shared library the
 * program links (tests/targets/plugin/abbalib.c, libabbalib.so): two
 * threads, serialised by the library's barrier, take A then B and B then
 * A; main _exits as soon as they are done. The names (&A), (&B) come
 * from the library's symbols at its load bias, which vigil must take
 * while the library is mapped, not when it reports; so does that of
 * libc's stdout, flushed just before the exit. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

void abba_init(void);
void abba_a_then_b(void);
void abba_b_then_a(void);

static void *first(void *arg)
{
	abba_a_then_b();
	return arg;
}

static void *second(void *arg)
{
	abba_b_then_a();
	return arg;
}

int main(void)
{
	pthread_t t1, t2;

	abba_init();
	pthread_create(&t1, NULL, first, NULL);
	pthread_create(&t2, NULL, second, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	fflush(stdout);	/* a global of libc's: &_IO_2_1_stdout_ */
	_exit(0);
}
