/* bench/runtime.c - LD_PRELOAD shim timing a program from its first
 * constructor to its exit, for the "real programs" table
 * (bench/real_bench.py).
 *
 * A run under vigil or valgrind also pays their start-up (loading BPF,
 * reading DWARF, attaching; valgrind's own loading) and vigil its exit
 * (detaching every uprobe): the wall time of the whole command shows what
 * a user waits, this shows what the program itself lost while it ran.
 *
 *   LD_PRELOAD=build/bench/runtime.so VG_BENCH_RUNTIME=FILE \
 *   VG_BENCH_RUNTIME_EXE=xz  COMMAND...
 *
 * Only a process whose argv[0] ends in /VG_BENCH_RUNTIME_EXE (or is it)
 * writes (vigil itself gets the preload too), two lines appended to FILE:
 *   start pid=P ns=T     at load (CLOCK_MONOTONIC), so that the driver
 *                        knows the pid even of a program that never ends
 *   end pid=P ns=T       at exit (destructor: exit() or return from main)
 * No malloc and no stdio: a malloc would be seen by the properties being
 * measured. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int mine;

static void note(const char *what)
{
	const char *path = getenv("VG_BENCH_RUNTIME");
	struct timespec ts;
	char line[96];
	int fd, n;

	if (!path)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "%s pid=%d ns=%lld\n", what, (int)getpid(),
		     (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, n) != n)
		(void)0;	/* the driver reports a missing line */
	close(fd);
}

/* glibc passes argc, argv and envp to constructors. */
__attribute__((constructor)) static void runtime_start(int argc, char **argv)
{
	const char *want = getenv("VG_BENCH_RUNTIME_EXE"), *base;

	if (!want || argc < 1 || !argv[0])
		return;
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	mine = !strcmp(base, want);
	if (mine)
		note("start");
}

__attribute__((destructor)) static void runtime_end(void)
{
	if (mine)
		note("end");
}
