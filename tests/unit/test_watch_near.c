/* Unit tests of where the breakpoints' calls run (user/probe/watch_near.c):
 * after vg_watch_near(cpu), by a thread of vigil's pinned to that CPU,
 * with the call's own answer and errno; after vg_watch_far, here. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe/watch.h"

/* a CPU this process may run on other than the current one; -1: none */
static int other_cpu(void)
{
	cpu_set_t set;
	int me = sched_getcpu();

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != me && CPU_ISSET(c, &set))
			return c;
	return -1;
}

/* A line of /proc/self/task/TID/status, its value in out */
static int task_status(const char *tid, const char *key, char *out,
		       size_t size)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	FILE *f;
	int found = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%s/status", tid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			char *v = line + klen + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = 0;
			snprintf(out, size, "%s", v);
			found = 0;
		}
	fclose(f);
	return found;
}

/* The armer threads: how many, and the tid of the one on cpu */
static int armers(int cpu, char *tid, size_t size)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	char want[16], v[64];
	int n = 0;

	snprintf(want, sizeof(want), "%d", cpu);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    !task_status(de->d_name, "Name", v, sizeof(v)) &&
		    !strcmp(v, "vigil-armer")) {
			n++;
			if (!task_status(de->d_name, "Cpus_allowed_list", v,
					 sizeof(v)) && !strcmp(v, want))
				snprintf(tid, size, "%s", de->d_name);
		}
	closedir(d);
	return n;
}

static long switches(const char *tid)
{
	char v[64];

	return task_status(tid, "voluntary_ctxt_switches", v, sizeof(v))
	       ? -1 : atol(v);
}

/* what the armer said, as the call would: three bytes in a pipe; a bad
 * descriptor's EBADF; a request a pipe does not know (ENOTTY) */
static void answers(void)
{
	int fds[2], n = -1;

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "abc", 3), 3);
	assert_int_equal(vg_watch_ioctl(fds[0], FIONREAD, &n), 0);
	assert_int_equal(n, 3);
	errno = 0;
	assert_int_equal(vg_watch_ioctl(-1, FIONREAD, &n), -1);
	assert_int_equal(errno, EBADF);
	errno = 0;
	assert_int_equal(vg_watch_ioctl(fds[0], TCGETS, &(char[64]){ 0 }), -1);
	assert_int_equal(errno, ENOTTY);
	close(fds[0]);
	close(fds[1]);
}

/* near another CPU: one armer, pinned there, that ran (it woke and went
 * back to sleep: voluntary switches) and gave the calls' answers */
static void test_near_other_cpu(void **state)
{
	int cpu = other_cpu();
	char tid[300] = "";
	long before, after = -1;
	uint64_t calls;

	if (cpu < 0)
		skip();	/* one CPU: nowhere else to run */
	vg_watch_near(cpu);
	vg_watch_far();	/* made, woken, let go */
	assert_int_equal(armers(cpu, tid, sizeof(tid)), 1);
	assert_string_not_equal(tid, "");
	before = switches(tid);
	calls = vg_watch_near_calls();
	vg_watch_near(cpu);
	answers();
	vg_watch_far();
	assert_int_equal(vg_watch_near_calls(), calls + 3);	/* by it */
	for (int i = 0; i < 200 && (after = switches(tid)) <= before; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	assert_true(after > before);
	/* the same CPU again: the same thread */
	vg_watch_near(cpu);
	vg_watch_far();
	assert_int_equal(armers(cpu, tid, sizeof(tid)), 1);
}

/* nowhere to go (no CPU, or one past any): the calls made here */
static void test_far(void **state)
{
	char tid[300];
	int before = armers(-1, tid, sizeof(tid));
	uint64_t calls = vg_watch_near_calls();

	vg_watch_near(-1);
	answers();
	vg_watch_near(CPU_SETSIZE + 5);
	answers();
	vg_watch_far();
	answers();
	assert_int_equal(armers(-1, tid, sizeof(tid)), before);
	assert_int_equal(vg_watch_near_calls(), calls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_near_other_cpu),
		cmocka_unit_test(test_far),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
