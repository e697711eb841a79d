/* --interactive: gdb joins the live session. On a terminal vigil starts
 * it (gdb owns the terminal; vigil keeps serving beside it and ends when
 * it quits, or, monitoring over first (`vigil detach`, the program's
 * end), waits for it: a vigil that exited would give the terminal back
 * to the shell, whose prompt and gdb's would then share it); off one, vigil says the command that joins and serves until
 * the program exits, so scripts drive gdb themselves (gdb -batch). */
#include "live_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/proc.h"

int vg_session_join_gdb(struct vg_run *r, struct vg_err *e)
{
	char cmd[4400];
	pid_t pid;

	if (vg_live_gdb_command(r, cmd, sizeof(cmd), e))
		return -1;
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		fprintf(stderr, "vigil: live session of pid %d; join it with:\n  %s\n",
			vg_run_pid(r), cmd);
		fflush(stderr);
		return 0;
	}
	/* the terminal is gdb's now: nothing drawn over it */
	vg_live_host_gdb_terminal(r);
	fflush(NULL);
	if ((pid = fork()) < 0)
		return vg_errf(e, "starting gdb: %s", strerror(errno));
	if (pid == 0) {
		vg_proc_unblock_signals();
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	/* (a part's gdb is the run's: it borrows the run's live side) */
	vg_live_host_state(r)->gdb_pid = pid;
	return 0;
}

/* The gdb vigil started, or 0 */
static pid_t gdb_pid(const struct vg_run *r)
{
	const struct vg_live *l = vg_live_host_state(r);

	return l ? l->gdb_pid : 0;
}

bool vg_live_gdb_running(const struct vg_run *r)
{
	return gdb_pid(r) > 0;
}

bool vg_session_gdb_gone(struct vg_run *r)
{
	pid_t pid = gdb_pid(r);
	int st;

	if (pid <= 0 || waitpid(pid, &st, WNOHANG) != pid)
		return false;
	vg_live_host_state(r)->gdb_pid = 0;
	fprintf(stderr, "vigil: gdb exited: monitoring ends, the program runs on\n");
	return true;
}

void vg_session_gdb_stays(struct vg_run *r)
{
	if (gdb_pid(r) <= 0 || vg_session_gdb_gone(r))
		return;
	fprintf(stderr, "vigil: monitoring ended; gdb stays attached (vigil exits with it)\n");
	fflush(stderr);
}

void vg_session_wait_gdb(struct vg_run *r)
{
	pid_t pid = gdb_pid(r);
	sigset_t term;
	int st;

	if (pid <= 0)
		return;
	/* the terminal's signals are gdb's (Ctrl-C interrupts what gdb
	 * does): they reach vigil too, in the same process group, and must
	 * not end it now; they stay blocked, vigil ends next */
	sigemptyset(&term);
	sigaddset(&term, SIGINT);
	sigaddset(&term, SIGQUIT);
	sigprocmask(SIG_BLOCK, &term, NULL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	vg_live_host_state(r)->gdb_pid = 0;
}
