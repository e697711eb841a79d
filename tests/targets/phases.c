/* Phases for --dynamic (tests/e2e/dynamic.sh):
 *   1. noise(k) N times while no session is open: nothing needs it;
 *   2. open_session, then at once noise(0..999) inside the session: the
 *      first call comes right after open_session returns, so its probe
 *      must be in place by then;
 *   3. close_session, a pause (vigil detaches what no slice needs), and
 *      noise N times again.
 *   4. with C given, C more sessions, each opened, given noise(0..9) at
 *      once and closed, with pauses of 0, 150 or 300 ms between them, so
 *      that probes are detached and attached again many times.
 *   phases [N [C]]    (default 20000, 0)
 * Prints "phases: noise=2N+1000+10C inside=1000+10C". */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) long open_session(long id)
{
	sink += id;
	return id;
}

__attribute__((noinline)) void noise(long k)
{
	sink += k;
}

__attribute__((noinline)) void close_session(long id)
{
	sink -= id;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000, s;
	long cycles = argc > 2 ? atol(argv[2]) : 0;

	for (long k = 0; k < n; k++)
		noise(-1);
	s = open_session(7);
	for (long k = 0; k < 1000; k++)
		noise(k);
	close_session(s);
	usleep(600000);
	for (long k = 0; k < n; k++)
		noise(-1);
	for (long c = 0; c < cycles; c++) {
		s = open_session(100 + c);
		for (long k = 0; k < 10; k++)
			noise(k);
		close_session(s);
		usleep((c % 3) * 150000);
	}
	printf("phases: noise=%ld inside=%ld\n", 2 * n + 1000 + 10 * cycles,
	       1000 + 10 * cycles);
	return 0;
}
