/* --leak-check's holds where the program kills itself (leaks_fatal.c):
 * which events they are, which signal a raise/kill/abort hold sends to the
 * process itself, and whether it kills it, read from this very process's
 * signal masks (a handler, SIG_IGN, a blocked signal, a default action
 * that stops or does nothing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <unistd.h>

#include "leaks/leaks.h"

static void on_signal(int sig)
{
	(void)sig;
}

static void test_kinds(void **st)
{
	(void)st;
	assert_int_equal(vg_leak_hold_kind("_exit"), VG_LEAK_HOLD_EXIT);
	assert_int_equal(vg_leak_hold_kind("abort"), VG_LEAK_HOLD_ABORT);
	assert_int_equal(vg_leak_hold_kind("__assert_fail"), VG_LEAK_HOLD_ASSERT);
	assert_int_equal(vg_leak_hold_kind("raise"), VG_LEAK_HOLD_RAISE);
	assert_int_equal(vg_leak_hold_kind("kill"), VG_LEAK_HOLD_KILL);
	assert_int_equal(vg_leak_hold_kind("exit"), VG_LEAK_HOLD_NONE);
	assert_int_equal(vg_leak_hold_kind("malloc"), VG_LEAK_HOLD_NONE);
}

static void test_signal_of_hold(void **st)
{
	uint64_t raise6[2] = { 6, 0 }, self[2] = { 4242, 15 },
		 group[2] = { 0, 9 }, other[2] = { 4243, 15 },
		 bad[2] = { (uint64_t)-1, 0 };

	(void)st;
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_RAISE, 4242, raise6), 6);
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_ABORT, 4242, bad), SIGABRT);
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_ASSERT, 4242, bad), SIGABRT);
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_KILL, 4242, self), 15);
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_KILL, 4242, group), 9);
	/* another process, a signal number out of range, no signal */
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_KILL, 4242, other), 0);
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_RAISE, 4242, bad), 0);
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_KILL, 4242, (uint64_t[2]){ 4242, 0 }), 0);
	assert_int_equal(vg_leak_hold_signal(VG_LEAK_HOLD_EXIT, 4242, raise6), 0);
}

static void test_kills(void **st)
{
	pid_t pid = getpid(), tid = gettid();
	struct sigaction sa = { .sa_handler = on_signal }, old_usr1, old_pipe,
			 old_abrt;
	sigset_t set, old_mask;

	(void)st;
	assert_true(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGTERM));
	assert_true(vg_leak_signal_kills(VG_LEAK_HOLD_KILL, pid, tid, SIGKILL));
	assert_true(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGRTMIN + 1));
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGCHLD));
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGSTOP));
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGWINCH));
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, 0));

	sigaction(SIGUSR1, &sa, &old_usr1);		/* caught */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old_pipe);		/* ignored */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGABRT);
	sigaddset(&set, SIGKILL);
	sigprocmask(SIG_BLOCK, &set, &old_mask);	/* blocked */
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGUSR1));
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGPIPE));
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGUSR2));
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGABRT));
	assert_true(vg_leak_signal_kills(VG_LEAK_HOLD_KILL, pid, tid, SIGKILL));
	/* abort unblocks SIGABRT itself: blocked, it still kills... */
	assert_true(vg_leak_signal_kills(VG_LEAK_HOLD_ABORT, pid, tid, SIGABRT));
	assert_true(vg_leak_signal_kills(VG_LEAK_HOLD_ASSERT, pid, tid, SIGABRT));
	/* ...but a handler runs first */
	sa.sa_handler = on_signal;
	sigaction(SIGABRT, &sa, &old_abrt);
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_ABORT, pid, tid, SIGABRT));
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_ASSERT, pid, tid, SIGABRT));
	/* a process that is not there: no check */
	assert_false(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, 0x7ffffff0, 0x7ffffff0, SIGTERM));

	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGUSR1, &old_usr1, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	sigaction(SIGABRT, &old_abrt, NULL);
	assert_true(vg_leak_signal_kills(VG_LEAK_HOLD_RAISE, pid, tid, SIGUSR1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_signal_of_hold),
		cmocka_unit_test(test_kills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
