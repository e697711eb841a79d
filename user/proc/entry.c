/* The exec is caught with ptrace (PTRACE_O_TRACEEXEC): the tracee stops
 * right after it, before the loader's first instruction; vigil detaches
 * after queuing a SIGSTOP, so that it stays stopped there, in an ordinary group stop
 * gdb can attach to. vigil traces it for that moment only. */
#include "entry.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

int vg_proc_run_to_exec(pid_t pid, struct vg_err *e)
{
	int st;

	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)PTRACE_O_TRACEEXEC))
		return vg_errf(e, "holding pid %d at its entry: ptrace: %s (CAP_SYS_PTRACE, or kernel.yama.ptrace_scope)",
			       pid, strerror(errno));
	kill(pid, SIGCONT);
	for (;;) {
		if (waitpid(pid, &st, __WALL) != pid) {
			if (errno == EINTR)
				continue;
			return vg_errf(e, "holding pid %d at its entry: %s", pid,
				       strerror(errno));
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return vg_errf(e, "the program ended before its first instruction (exit status %d)",
				       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		if (!WIFSTOPPED(st))
			continue;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			return 0;
		/* the group stop it was in, SIGCONT's delivery: on it goes;
		 * a group stop (PTRACE_EVENT_STOP) passes no signal */
		ptrace(PTRACE_CONT, pid, 0,
		       (void *)(long)(st >> 16 == PTRACE_EVENT_STOP ? 0
				      : WSTOPSIG(st) == SIGSTOP ? 0
				      : WSTOPSIG(st)));
	}
}

/* Has vigil's child exec'd already? Before its exec it is a copy of
 * vigil: the same executable file. */
static bool execd(pid_t pid)
{
	struct stat me, it;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	return !stat("/proc/self/exe", &me) && !stat(path, &it) &&
	       (me.st_dev != it.st_dev || me.st_ino != it.st_ino);
}

int vg_proc_release_at_entry(pid_t pid, struct vg_err *e)
{
	/* the in-process tier ran it to the program's entry point to patch
	 * it (user/fast/inject_entry.c), and left it there in a group
	 * stop: gdb finds it there, the libraries loaded (its SIGSTOP,
	 * queued as the tier let go of it, may not have landed yet) */
	if (execd(pid)) {
		for (int i = 0; i < 1000 && !vg_proc_is_stopped(pid); i++)
			usleep(1000);
		if (!vg_proc_is_stopped(pid))
			return vg_errf(e, "pid %d did not stop at its entry", pid);
		return 0;
	}
	if (vg_proc_run_to_exec(pid, e))
		return -1;
	/* a detach from an event stop injects no signal: the SIGSTOP is
	 * queued first and lands as the tracee goes */
	kill(pid, SIGSTOP);
	if (ptrace(PTRACE_DETACH, pid, 0, 0))
		return vg_errf(e, "leaving pid %d at its entry: ptrace: %s", pid,
			       strerror(errno));
	for (int i = 0; i < 1000 && !vg_proc_is_stopped(pid); i++)
		usleep(1000);
	if (!vg_proc_is_stopped(pid))
		return vg_errf(e, "pid %d did not stop at its entry", pid);
	return 0;
}
