/* --interactive: gdb joins the live session. On a terminal vigil starts
 * it (gdb owns the terminal; vigil keeps serving beside it and ends when
 * it quits, or, monitoring over first (`vigil detach`, the program's
 * end), waits for it: a vigil that exited would give the terminal back
 * to the shell, whose prompt and gdb's would then share it); off one, vigil says the command that joins and serves until
 * the program exits, so scripts drive gdb themselves (gdb -batch). And
 * at the end of a run that left the target stopped at a violation, the
 * hand-off to gdb: how to debug it, or gdb run in vigil's place. */
#include "live_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "act/gdb.h"
#include "act/scenario.h"
#include "ckpt/ckpt.h"
#include "load/load.h"
#include "probe/jmp_stop.h"
#include "probe/probe.h"
#include "probe/returns.h"
#include "proc/proc.h"

int vg_live_join_gdb(struct vg_run *r, struct vg_err *e)
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

bool vg_live_gdb_gone(struct vg_run *r)
{
	pid_t pid = gdb_pid(r);
	int st;

	if (pid <= 0 || waitpid(pid, &st, WNOHANG) != pid)
		return false;
	vg_live_host_state(r)->gdb_pid = 0;
	fprintf(stderr, "vigil: gdb exited: monitoring ends, the program runs on\n");
	return true;
}

void vg_live_gdb_stays(struct vg_run *r)
{
	if (gdb_pid(r) <= 0 || vg_live_gdb_gone(r))
		return;
	fprintf(stderr, "vigil: monitoring ended; gdb stays attached (vigil exits with it)\n");
	fflush(stderr);
}

void vg_live_wait_gdb(struct vg_run *r)
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

void vg_live_handoff(struct vg_run *r, struct vg_ckpt_run *ckpt,
		     int stop_event, char *exec, size_t len)
{
	/* (a failed restore left nothing to debug: said already); a loaded
	 * property's stop is handed over as the session's own */
	struct vg_scenario *sc = vg_scenario_target_stopped(vg_run_scenario(r))
				 ? vg_run_scenario(r) : vg_load_stopped(r);
	struct vg_probe *probe = vg_run_probe(r);
	struct vg_gdb_pc_mend mend[VG_GDB_MAX_MENDS];
	const char *restored_from, *why;
	bool restored = vg_ckpt_run_restored(ckpt, &restored_from);
	struct vg_err ge = { 0 };
	uint64_t step_to = 0;
	pid_t tid, spid;
	char gdb[4200], line[1024];
	int nmend;

	if (!sc || (restored && !restored_from[0]))
		return;
	tid = vg_scenario_stop_tid(sc, &why);
	spid = vg_scenario_stop_pid(sc);
	if (!vg_probe_rewound(probe, tid ? tid : spid, &step_to))
		step_to = 0;
	/* its probes go with vigil: gdb's bt and finish get the real
	 * callers of functions with a pending return probe */
	vg_returns_mend(probe, spid, true);
	nmend = step_to || !stop_event ? 0 :
		vg_jmp_stop_mends(probe, spid, stop_event - 1, mend,
				  VG_GDB_MAX_MENDS);
	if (why) {
		vg_live_stop_line(spid, why, line, sizeof(line));
		why = line;
	}
	if (vg_gdb_prepare_mend(spid, tid ? tid : spid, why, step_to, mend,
				nmend, gdb, sizeof(gdb), &ge))
		fprintf(stderr, "vigil: %s\n", ge.msg);
	else if (restored)
		fprintf(stderr,
			"vigil: target pid %d is restored from %s and left stopped there. Debug it with:\n  %s\n",
			vg_run_pid(r), restored_from, gdb);
	else
		fprintf(stderr,
			"vigil: target pid %d is left stopped at the violation. Debug it with:\n  %s\n",
			spid, gdb);
	if (ge.msg[0] || !vg_scenario_want_gdb(sc))
		return;
	if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO))
		snprintf(exec, len, "%s", gdb);
	else
		fprintf(stderr, "vigil: not on a terminal: gdb not started\n");
}
