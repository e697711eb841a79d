/* vigil gone: the agent takes its patches back (inproc/takeback.c) when
 * the process has one thread, keeps them (inert) while it has more, and
 * each process takes back its own copy. In this very process, with the
 * fixture of test_inproc.c (fast_fixture.h): the test functions' first 5
 * bytes patched to jump to their stubs, the hooks given the original and
 * patch bytes as vigil gives them. */
#include <elf.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

/* (the fixture has helpers only test_inproc.c uses) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fast_fixture.h"

/* what vigil writes in each hook at install (fast_hooks.c) */
static int setup_back(void **state)
{
	setup_ring(1 << 20);
	for (int h = 0; h < NHOOKS; h++) {
		/* the fixture keeps the original prologue at 256 */
		memcpy(T.sh->hooks[h].orig, T.code + 512 * h + 256, PATCH);
		memcpy(T.sh->hooks[h].patch, fns[h], PATCH);
		assert_int_equal(T.sh->hooks[h].patch[0], 0xe9);
	}
	return 0;
}

static struct vg_fast_threads_hdr *hdr(void)
{
	return (struct vg_fast_threads_hdr *)((char *)T.sh + T.sh->threads_off);
}

static int is_patched(int h)
{
	return !memcmp(fns[h], T.sh->hooks[h].patch, PATCH);
}

static int is_orig(int h)
{
	return !memcmp(fns[h], T.sh->hooks[h].orig, PATCH);
}

/* the protection of the mapping at addr, as /proc/self/maps says */
static void perms_at(const void *addr, char out[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char p[5];

	strcpy(out, "?");
	assert_non_null(f);
	while (fscanf(f, "%lx-%lx %4s%*[^\n]", &lo, &hi, p) == 3)
		if ((uintptr_t)addr >= lo && (uintptr_t)addr < hi)
			strcpy(out, p);
	fclose(f);
}

static void vigil_dies(void)
{
	*T.owner |= 0x40000000;	/* FUTEX_OWNER_DIED */
}

/* One thread: the first call after vigil died writes every patched
 * function's bytes back, the page as it was (r-x); the calls go on
 * right, no longer through the stubs */
static void test_one_thread(void **state)
{
	char before[5], after[5];
	uint64_t orphans;

	perms_at(fns[H_ADD], before);
	assert_int_equal(vgt_add(1, 2), 3);
	for (int h = 0; h < NHOOKS; h++)
		assert_true(is_patched(h));
	vigil_dies();
	assert_int_equal(vgt_add(2, 3), 5);
	assert_int_equal(hdr()->back, VG_BACK_DONE);
	for (int h = 0; h < NHOOKS; h++)
		assert_true(is_orig(h));
	perms_at(fns[H_ADD], after);
	assert_string_equal(before, after);
	assert_string_equal(after, "r-xp");
	/* no stub in the way any more: the agent sees no call */
	orphans = T.sh->cnt[VG_FCNT_ORPHAN];
	assert_int_equal(vgt_add(20, 22), 42);
	assert_int_equal(vgt_sum(10), 55);
	assert_int_equal(vgt_mix(1, 1, 1, 1, 1, 1, 1), 28);
	assert_int_equal(T.sh->cnt[VG_FCNT_ORPHAN], orphans);
}

/* A return hijacked before vigil died comes back through its stub after
 * the take-back, which happened inside that very call */
static long dies_inside(long arg)
{
	vigil_dies();
	return vgt_add(arg, 1);	/* this call takes the patches back */
}

static void test_owed_return(void **state)
{
	assert_int_equal(vgt_call(dies_inside, 41), 42);
	assert_int_equal(hdr()->back, VG_BACK_DONE);
	assert_true(is_orig(H_CALL));
	assert_true(is_orig(H_ADD));
	assert_int_equal(vgt_call(dies_inside, 1), 2);
}

static volatile int holding;

static void *hold(void *arg)
{
	while (__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

/* Two threads: the patches stay (inert), the calls right; once the other
 * thread is gone, a later try takes them back */
static void test_two_threads(void **state)
{
	struct timespec t0, t1;
	pthread_t other;
	long bad = 0, n = 0;

	holding = 1;
	assert_int_equal(pthread_create(&other, NULL, hold, NULL), 0);
	vigil_dies();
	for (long i = 0; i < 2000; i++)
		if (vgt_add(i, 1) != i + 1)
			bad++;
	assert_int_equal(bad, 0);
	for (int h = 0; h < NHOOKS; h++)
		assert_true(is_patched(h));
	assert_int_equal(hdr()->back, VG_BACK_NONE);
	assert_true(hdr()->back_next != 0);
	__atomic_store_n(&holding, 0, __ATOMIC_RELEASE);
	pthread_join(other, NULL);
	/* within a few tries (each 256th call, 50 ms apart) */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (vgt_add(n, 2) != n + 2)
			bad++;
		n++;
		if (!(n & 1023))
			usleep(1000);
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (is_patched(H_ADD) && t1.tv_sec - t0.tv_sec < 3);
	assert_int_equal(bad, 0);
	assert_true(is_orig(H_ADD));
	assert_true(is_orig(H_SUM));
	assert_int_equal(hdr()->back, VG_BACK_DONE);
}

/* Bytes that are not the patch any more (a breakpoint, another mapping
 * there): left as they are */
static void test_changed(void **state)
{
	T.sh->hooks[H_SUM].patch[4] ^= 0xff;	/* not what is there */
	vigil_dies();
	assert_int_equal(vgt_add(1, 1), 2);
	assert_int_equal(hdr()->back, VG_BACK_DONE);
	assert_true(is_orig(H_ADD));
	assert_false(is_orig(H_SUM));
	T.sh->hooks[H_SUM].patch[4] ^= 0xff;
	assert_true(is_patched(H_SUM));
	assert_int_equal(vgt_sum(4), 10);	/* inert, right */
}

/* --follow-fork: a child takes back its own copy of the code; its
 * parent's (the same region, the same dead owner) is its own business,
 * taken back at its own next call */
static void test_fork(void **state)
{
	int status;
	pid_t pid;

	T.sh->follow = 1;
	pid = fork();
	if (pid == 0) {
		vigil_dies();
		if (vgt_add(1, 2) != 3)
			_exit(1);
		for (int h = 0; h < NHOOKS; h++)
			if (!is_orig(h))
				_exit(2);
		_exit(hdr()->back == VG_BACK_DONE ? 0 : 3);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* the parent's code and state: untouched by the child's */
	assert_true(*T.owner & 0x40000000);
	for (int h = 0; h < NHOOKS; h++)
		assert_true(is_patched(h));
	assert_int_equal(hdr()->back, VG_BACK_NONE);
	assert_int_equal(vgt_add(3, 4), 7);
	for (int h = 0; h < NHOOKS; h++)
		assert_true(is_orig(h));
	T.sh->follow = 0;
}

/* A seccomp filter (which could kill on mprotect): the patches stay */
static void test_seccomp(void **state)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	int status;
	pid_t pid;

	T.sh->follow = 1;
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(10);
		vigil_dies();
		if (vgt_add(1, 2) != 3)
			_exit(1);
		if (!is_patched(H_ADD))
			_exit(2);
		_exit(hdr()->back == VG_BACK_DONE ? 0 : 3);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	T.sh->follow = 0;
}

/* A seccomp filter when vigil installed the tier: no system call made,
 * the patches stay */
static void test_seccomp_at_install(void **state)
{
	T.sh->seccomp = 1;
	vigil_dies();
	assert_int_equal(vgt_add(1, 2), 3);
	assert_int_equal(hdr()->back, VG_BACK_DONE);
	for (int h = 0; h < NHOOKS; h++)
		assert_true(is_patched(h));
	assert_int_equal(vgt_sum(3), 6);
}

/* vigil there: nothing taken back, whatever the thread count */
static void test_alive(void **state)
{
	for (long i = 0; i < 1000; i++)
		assert_int_equal(vgt_add(i, i), 2 * i);
	assert_int_equal(hdr()->back, VG_BACK_NONE);
	assert_int_equal(hdr()->back_next, 0);
	for (int h = 0; h < NHOOKS; h++)
		assert_true(is_patched(h));
	/* vigil's own end (enabled 0, then the mutex let go): vigil takes
	 * them out itself, the agent leaves them */
	__atomic_store_n(&T.sh->enabled, 0, __ATOMIC_RELEASE);
	*T.owner = 0;
	assert_int_equal(vgt_add(1, 1), 2);
	assert_int_equal(hdr()->back, VG_BACK_NONE);
	assert_true(is_patched(H_ADD));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_alive, setup_back,
						teardown),
		cmocka_unit_test_setup_teardown(test_one_thread, setup_back,
						teardown),
		cmocka_unit_test_setup_teardown(test_owed_return, setup_back,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_threads, setup_back,
						teardown),
		cmocka_unit_test_setup_teardown(test_changed, setup_back,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork, setup_back,
						teardown),
		cmocka_unit_test_setup_teardown(test_seccomp, setup_back,
						teardown),
		cmocka_unit_test_setup_teardown(test_seccomp_at_install,
						setup_back, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
