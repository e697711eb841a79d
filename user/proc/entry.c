/* The exec is caught with ptrace (PTRACE_O_TRACEEXEC): the tracee stops
 * right after it, before the loader's first instruction; vigil detaches
 * after queuing a SIGSTOP, so that it stays stopped there, in an ordinary group stop
 * gdb can attach to. vigil traces it for that moment only. */
#include "entry.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
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

int vg_proc_release_at_entry(pid_t pid, struct vg_err *e)
{
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
