/* put(o) calls on objects that are only ever used, never made anew, for
 * the next-life rule (docs/LANGUAGE.md, Memory): N calls over K objects
 * drawn from a seeded generator (xorshift64*), so a run is the same every
 * time. --trace FILE writes each call as the CSV line "put,O" first, the
 * trace vigil check reads and the test counts by itself; with --no-calls
 * that is all it does.
 *   puts [--calls N] [--objects K] [--seed S] [--trace FILE] [--no-calls] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void put(long o)
{
	asm volatile("" : : "r"(o) : "memory");
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

int main(int argc, char **argv)
{
	long calls = 20000, objects = 2000;
	uint64_t seed = 32, s;
	const char *trace = NULL;
	int make_calls = 1;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--no-calls")) {
			make_calls = 0;
			continue;
		}
		if (!v)
			return 2;
		if (!strcmp(argv[i], "--calls"))
			calls = atol(v);
		else if (!strcmp(argv[i], "--objects"))
			objects = atol(v);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "--trace"))
			trace = v;
		else
			return 2;
		i++;
	}
	if (objects < 1 || calls < 0)
		return 2;
	if (trace) {	/* the trace of the calls to come, then the calls */
		if (!(f = fopen(trace, "w")))
			return 1;
		s = seed ? seed : 1;
		for (long i = 0; i < calls; i++)
			fprintf(f, "put,%lu\n",
				(unsigned long)(next(&s) % (uint64_t)objects + 1));
		fclose(f);
	}
	s = seed ? seed : 1;
	for (long i = 0; make_calls && i < calls; i++)
		put((long)(next(&s) % (uint64_t)objects + 1));
	printf("puts: %ld calls over %ld objects%s\n", calls, objects,
	       make_calls ? "" : " (written, not made)");
	return 0;
}
