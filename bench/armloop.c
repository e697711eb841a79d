/* bench/armloop.c - the target of the watchpoint arming benchmark
 * (bench/watch_bench.py): an object opened and closed in a loop, the
 * functions a spec slices on, and its `count` field the spec watches.
 *
 *   armloop cycle [--n N] [--threads T] [--pidfile F] [--max-seconds S]
 *       N times: obj_open(o); o->count = i; obj_close(o). Under a spec
 *       that watches o->count while the object is open, every cycle arms
 *       the watchpoint (in every thread) and disarms it.
 *   armloop hits [--n N] [--work K] [--threads T] [--pidfile F] ...
 *       obj_open(o) once, then N writes o->count = i (never negative) with
 *       K units of work between them, then obj_close(o).
 *
 * T idle threads (blocked in read() on a pipe nobody writes) are started
 * first: a breakpoint goes into every thread, and a SIGSTOP stops them all.
 * An untimed warm-up (4 cycles, or 8 writes inside the open) creates the
 * slice and pays vigil's first-time costs; then the timed loop prints
 *   armloop: warmup=W threads=T
 *   armloop: mode=M n=N ns=T
 * so the observer's start-up and tear-down are not counted. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_PROG "armloop"
#include "bench_loop.h"

struct obj {
	long id;
	long count;		/* 8 bytes, aligned: one debug register */
	char name[16];
};

/* As bench/loop.c's vg_bench_op: the volatile local gives each a stack
 * frame, so that (built with frame pointers) it starts with push %rbp,
 * which the kernel's uprobe emulates; a bare ret would be single-stepped,
 * ~10 us a call, and drown the floor. */
__attribute__((noinline, noipa)) void obj_open(struct obj *o)
{
	struct obj *volatile v = o;

	(void)v;
}

__attribute__((noinline, noipa)) void obj_close(struct obj *o)
{
	struct obj *volatile v = o;

	(void)v;
}

static volatile uint64_t sink;
static int idle_pipe[2];

static void *idle(void *arg)
{
	char c;

	(void)arg;
	while (read(idle_pipe[0], &c, 1) < 0 && errno == EINTR)
		;		/* a SIGSTOP/SIGCONT may interrupt it */
	return NULL;
}

int main(int argc, char **argv)
{
	long n = 1000, k = 20, nt = 0, max_s = 0, warm;
	const char *pidfile = NULL, *mode = argc > 1 ? argv[1] : "";
	volatile struct obj *o;
	uint64_t acc = 1, t0, t1;
	pthread_t t;

	if (strcmp(mode, "cycle") && strcmp(mode, "hits")) {
		fprintf(stderr, "usage: armloop cycle|hits [--n N] [--work K] [--threads T] [--pidfile F] [--max-seconds S]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (i + 1 >= argc) {
			fprintf(stderr, "armloop: %s needs a value (or unknown option)\n", a);
			return 2;
		}
		if (!strcmp(a, "--n"))
			n = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--work"))
			k = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--threads"))
			nt = arg_long(a, argv[++i], NULL);
		else if (!strcmp(a, "--pidfile"))
			pidfile = argv[++i];
		else if (!strcmp(a, "--max-seconds"))
			max_s = arg_long(a, argv[++i], NULL);
		else {
			fprintf(stderr, "armloop: unknown option %s\n", a);
			return 2;
		}
	}
	if (bench_guard(pidfile, max_s))
		return 2;
	if (pipe(idle_pipe)) {
		perror("armloop: pipe");
		return 2;
	}
	for (long i = 0; i < nt; i++)
		if (pthread_create(&t, NULL, idle, NULL)) {
			fprintf(stderr, "armloop: cannot start thread %ld\n", i);
			return 2;
		}
	o = calloc(1, sizeof(*o));
	if (!o)
		return 2;

	if (!strcmp(mode, "cycle")) {
		warm = 4;
		for (long i = 0; i < warm; i++) {
			obj_open((struct obj *)o);
			o->count = i;
			obj_close((struct obj *)o);
		}
		printf("armloop: warmup=%ld threads=%ld\n", warm, nt);
		t0 = now_ns();
		for (long i = 0; i < n; i++) {
			obj_open((struct obj *)o);
			o->count = i;
			obj_close((struct obj *)o);
		}
		t1 = now_ns();
	} else {
		warm = 8;
		obj_open((struct obj *)o);
		for (long i = 0; i < warm; i++)
			o->count = i;
		printf("armloop: warmup=%ld threads=%ld\n", warm, nt);
		t0 = now_ns();
		for (long i = 0; i < n; i++) {
			o->count = i;
			acc = work(acc, k);
		}
		t1 = now_ns();
		obj_close((struct obj *)o);
	}
	sink = acc;
	printf("armloop: mode=%s n=%ld ns=%llu\n", mode, n,
	       (unsigned long long)(t1 - t0));
	fflush(stdout);
	_exit(0);		/* the idle threads end with us */
}
