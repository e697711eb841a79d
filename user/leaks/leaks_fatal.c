/* The leak check when the program kills itself with a signal (leaks.h):
 * which of --leak-check's holds are the program raising a signal on
 * itself, whether that signal will kill it, and the line that says the
 * check did not run when the program died of a signal vigil could not
 * hold it at.
 *
 * abort() (glibc's heap checks, assert, std::terminate) is held at its
 * entry, before its own frame (whose uninitialised slots hold dead
 * pointers) is on the stack: there the program's memory is whole and
 * nothing has been torn down; after the check the hold is let go and the
 * signal kills it as it would have (core dump and exit status unchanged).
 * With a SIGABRT handler abort is let go unchecked: the handler may go on
 * (longjmp); if it returns, abort raises SIGABRT again with SIG_DFL, and
 * that raise is the check's. A failed assert is held at __assert_fail,
 * before the frames that format its message cover the program's dead
 * stack with their own.
 *
 * A fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL from the instruction itself)
 * has no such point: the kernel queues the signal in the fault handler
 * and takes it on the way back to user space before any other pending
 * signal (synchronous signals are dequeued first), so a SIGSTOP sent from
 * a tracepoint there (signal_generate) lands behind it and never stops
 * the thread; once the default action runs, the group is exiting and
 * ignores stops. sched_process_exit does run before exit_mm in this kernel
 * (6.16 and later), but in a program that cannot sleep or wait for user
 * space, so the scan would have to copy the whole writable image out of
 * the kernel in one go with reads that cannot fault pages in. Only a
 * tracer (ptrace for the whole run, which gdb then cannot attach to) or a
 * system-wide core_pattern pipe keeps such a process whole. */
#include "leaks.h"
#include "leaks_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum vg_leak_hold vg_leak_hold_kind(const char *event)
{
	if (!strcmp(event, "_exit"))
		return VG_LEAK_HOLD_EXIT;
	if (!strcmp(event, "abort"))
		return VG_LEAK_HOLD_ABORT;
	if (!strcmp(event, "__assert_fail"))
		return VG_LEAK_HOLD_ASSERT;
	if (!strcmp(event, "raise"))
		return VG_LEAK_HOLD_RAISE;
	if (!strcmp(event, "kill"))
		return VG_LEAK_HOLD_KILL;
	return VG_LEAK_HOLD_NONE;
}

int vg_leak_hold_signal(enum vg_leak_hold kind, pid_t pid, const uint64_t *slot)
{
	int sig;

	if (kind == VG_LEAK_HOLD_ABORT || kind == VG_LEAK_HOLD_ASSERT)
		sig = SIGABRT;
	else if (kind == VG_LEAK_HOLD_RAISE)
		sig = (int)slot[0];
	else if (kind == VG_LEAK_HOLD_KILL &&
		 ((int)slot[0] == pid || (int)slot[0] == 0))	/* its group */
		sig = (int)slot[1];
	else
		return 0;
	return sig > 0 && sig < 65 ? sig : 0;
}

/* a signal whose default action ends the process */
static bool default_kills(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGSTOP: case SIGTSTP:
	case SIGTTIN: case SIGTTOU: case SIGURG: case SIGWINCH:
		return false;
	default:
		return true;
	}
}

/* one of /proc/PID/task/TID/status's signal masks ("SigBlk:" ...) */
static int sig_mask(const char *path, const char *field, uint64_t *out)
{
	char line[256];
	size_t n = strlen(field);
	FILE *f = fopen(path, "r");
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n)) {
			*out = strtoull(line + n, NULL, 16);
			rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

bool vg_leak_signal_kills(enum vg_leak_hold kind, pid_t pid, pid_t tid,
			  int sig)
{
	char path[96];
	uint64_t blk, ign, cgt, bit;

	if (sig <= 0 || sig > 64 || !default_kills(sig))
		return false;
	if (sig == SIGKILL)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	if (sig_mask(path, "SigBlk:", &blk) || sig_mask(path, "SigIgn:", &ign) ||
	    sig_mask(path, "SigCgt:", &cgt))
		return false;
	bit = 1ull << (sig - 1);
	if (kind == VG_LEAK_HOLD_ABORT || kind == VG_LEAK_HOLD_ASSERT)
		return !(cgt & bit);
	/* a handler runs (abort's own second raise comes with SIG_DFL); a
	 * blocked one stays pending (raise restores the caller's mask) */
	return !(blk & bit) && !(ign & bit) && !(cgt & bit);
}

void vg_leaks_end(struct vg_leaks *l, bool exited, int sig)
{
	char name[32];

	if (!l || !l->o.leak_check || !exited || !sig ||
	    vg_leaks_ran_at_end(l))
		return;
	snprintf(name, sizeof(name), "%s",
		 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	fprintf(stderr, "vigil: the leak check did not run: the program died of SIG%s, %s; --leak-check holds it at _exit and where it raises a fatal signal itself (abort, raise, kill)\n",
		name,
		sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
		sig == SIGILL || sig == SIGTRAP
			? "a fault (or a signal from elsewhere): the kernel kills it before vigil can hold it with its memory whole"
			: "a signal it did not raise itself");
}
