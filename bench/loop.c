/* bench/loop.c - the target every benchmark runs: a loop that calls a no-op
 * function N times, with an optional calibrated amount of work between calls.
 *
 *   loop [--phase FN:N:K]... [--pidfile F] [--max-seconds S]
 *   loop [--fn op|ss] [--n N] [--work K] ...      (one phase)
 *   loop --calibrate
 *
 * A phase calls FN (op or ss) N times with K units of work after each call.
 * Phases run one after the other in one process, so one monitor start-up
 * serves many measurements.
 *
 * Two probed functions, so both uprobe paths of the kernel show:
 *   vg_bench_op     C, built with -fno-omit-frame-pointer: its first
 *                   instruction is `push %rbp`, which the kernel emulates.
 *   vg_bench_op_ss  assembly whose first instruction is `test %rdi,%rdi`,
 *                   which the kernel must single-step out of line.
 * Both take one argument x (i & 7 in the loop: eight distinct values, so a
 * property sliced on x keeps eight slices however long the run).
 *
 * Each phase times itself with CLOCK_MONOTONIC and prints one line
 *   loop: phase=P fn=op n=N work=K ns=T parent_cpu_ns=C
 * so the monitor's start-up and tear-down are not counted; C is the CPU
 * time the parent process (the observer) used during the phase.
 *
 * Before the first phase the loop calls each function the phases use once
 * for each value of x
 * (warm-up: a process's first uprobe hit maps the kernel's out-of-line
 * area, a monitor's first event of a slice creates it, gdb's first stop
 * loads its thread support) and says so: "loop: warmup op=8 ss=0". An
 * observer therefore sees the sum of the phases' N plus the warm-up calls.
 *
 * The work between calls is a fixed number of dependent multiply-adds (not
 * a deadline spin, which would absorb the probe's cost); --calibrate prints
 * its cost per unit.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_PROG "loop"
#include "bench_loop.h"

/* noipa: the call must stay a real call even though the body does nothing.
 * The volatile local gives it a stack frame, so that with frame pointers
 * it starts with push %rbp (gcc drops the frame of an empty function). */
__attribute__((noinline, noipa)) void vg_bench_op(long x)
{
	volatile long v = x;

	(void)v;
}

void vg_bench_op_ss(long x);
__asm__(".text\n"
	".globl vg_bench_op_ss\n"
	".type vg_bench_op_ss, @function\n"
	"vg_bench_op_ss:\n"
	"	test %rdi, %rdi\n"	/* first instruction: not emulated */
	"	ret\n"
	".size vg_bench_op_ss, .-vg_bench_op_ss\n");

/* CPU time used so far by our parent (the observer: vigil, gdb, bpftrace,
 * the floor loader), all its threads, in ns from /proc/PID/task/T/schedstat.
 * It shows what an observer costs on the other CPUs, which the loop's own
 * wall time does not. 0 when it cannot be read. */
static uint64_t parent_cpu_ns(void)
{
	char path[64];
	uint64_t sum = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)getppid());
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		char f[384];
		unsigned long long t;
		FILE *fp;

		if (d->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s/schedstat", path, d->d_name);
		fp = fopen(f, "r");
		if (!fp)
			continue;
		if (fscanf(fp, "%llu", &t) == 1)
			sum += t;
		fclose(fp);
	}
	closedir(dir);
	return sum;
}

#define WARMUP 8		/* untimed calls of each used function first */
#define MAX_PHASES 64

static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ns per work unit: the least of 7 runs of about 20 ms each, in thread CPU
 * time, so that a neighbour taking our CPU for a while does not inflate it
 * (the benchmark measures the real native time per call at each gap anyway;
 * this only chooses the number of units). */
static int calibrate(void)
{
	long k = 1000;
	double best = 0;
	uint64_t acc = 1;

	for (;;) {		/* grow k until one run takes >= 20 ms */
		uint64_t t0 = cpu_ns();

		acc = work(acc, k);
		if (cpu_ns() - t0 >= 20000000u)
			break;
		k *= 2;
	}
	for (int i = 0; i < 7; i++) {
		uint64_t t0 = cpu_ns();
		double r;

		acc = work(acc, k);
		r = (double)(cpu_ns() - t0) / (double)k;
		if (i == 0 || r < best)
			best = r;
	}
	sink = acc;
	printf("calib: ns_per_unit=%.6f units=%ld\n", best, k);
	return 0;
}

struct phase {
	int ss;			/* 0: vg_bench_op, 1: vg_bench_op_ss */
	long n, k;		/* calls, work units between calls */
};

static int parse_fn(const char *s)
{
	if (!strcmp(s, "op"))
		return 0;
	if (!strcmp(s, "ss"))
		return 1;
	fprintf(stderr, "loop: function must be op or ss, not '%s'\n", s);
	exit(2);
}

/* FN:N:K */
static struct phase parse_phase(const char *s)
{
	struct phase p;
	char fn[8], *end;
	const char *c = strchr(s, ':');

	if (!c || c - s >= (long)sizeof(fn)) {
		fprintf(stderr, "loop: --phase wants FN:N:K, not '%s'\n", s);
		exit(2);
	}
	memcpy(fn, s, c - s);
	fn[c - s] = 0;
	p.ss = parse_fn(fn);
	p.n = arg_long("--phase N", c + 1, &end);
	if (*end != ':') {
		fprintf(stderr, "loop: --phase wants FN:N:K, not '%s'\n", s);
		exit(2);
	}
	p.k = arg_long("--phase K", end + 1, NULL);
	return p;
}

static const char *const fn_name[2] = { "op", "ss" };

int main(int argc, char **argv)
{
	static struct phase ph[MAX_PHASES];
	int nph = 0, used[2] = { 0, 0 };
	struct phase one = { 0, 1000000, 0 };
	int have_one = 0;
	const char *pidfile = NULL;
	long max_s = 0;
	uint64_t acc = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--calibrate"))
			return calibrate();
		if (i + 1 >= argc) {
			fprintf(stderr, "loop: %s needs a value (or unknown option)\n", a);
			return 2;
		}
		if (!strcmp(a, "--phase")) {
			if (nph == MAX_PHASES) {
				fprintf(stderr, "loop: at most %d phases\n", MAX_PHASES);
				return 2;
			}
			ph[nph++] = parse_phase(argv[++i]);
		} else if (!strcmp(a, "--fn")) {
			one.ss = parse_fn(argv[++i]);
			have_one = 1;
		} else if (!strcmp(a, "--n")) {
			one.n = arg_long(a, argv[++i], NULL);
			have_one = 1;
		} else if (!strcmp(a, "--work")) {
			one.k = arg_long(a, argv[++i], NULL);
			have_one = 1;
		} else if (!strcmp(a, "--pidfile"))
			pidfile = argv[++i];
		else if (!strcmp(a, "--max-seconds"))
			max_s = arg_long(a, argv[++i], NULL);
		else {
			fprintf(stderr, "loop: unknown option %s\n", a);
			return 2;
		}
	}
	if (have_one && nph) {
		fprintf(stderr, "loop: --phase and --fn/--n/--work do not mix\n");
		return 2;
	}
	if (!nph)
		ph[nph++] = one;
	if (bench_guard(pidfile, max_s))
		return 2;

	for (int p = 0; p < nph; p++)
		used[ph[p].ss] = 1;
	for (long i = 0; i < WARMUP; i++) {
		if (used[0])
			vg_bench_op(i & 7);
		if (used[1])
			vg_bench_op_ss(i & 7);
	}
	printf("loop: warmup op=%d ss=%d\n", used[0] ? WARMUP : 0, used[1] ? WARMUP : 0);

	for (int p = 0; p < nph; p++) {
		long n = ph[p].n, k = ph[p].k;
		uint64_t c0 = parent_cpu_ns(), t0 = now_ns(), t1, c1;

		if (!ph[p].ss) {
			for (long i = 0; i < n; i++) {
				vg_bench_op(i & 7);
				acc = work(acc, k);
			}
		} else {
			for (long i = 0; i < n; i++) {
				vg_bench_op_ss(i & 7);
				acc = work(acc, k);
			}
		}
		t1 = now_ns();
		c1 = parent_cpu_ns();
		printf("loop: phase=%d fn=%s n=%ld work=%ld ns=%llu parent_cpu_ns=%llu\n", p,
		       fn_name[ph[p].ss], n, k, (unsigned long long)(t1 - t0),
		       (unsigned long long)(c1 - c0));
	}
	sink = acc;
	return 0;
}
