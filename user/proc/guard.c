/* The guard process (guard.h). */
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

#define GUARD_MAX 256		/* processes one guard watches */

/* what vigil tells the guard, one fixed-size message at a time (a pipe
 * write this small is atomic) */
struct msg {
	char op;		/* 'A': guard pid too; 'R': the launched target
				 * was released; 'K': keep them stopped */
	int32_t pid;
};

struct vg_guard {
	pid_t pid;		/* the guard's */
	int fd;			/* vigil's end of the pipe */
};

static int pidfd_of(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Is some thread of pid in a group stop (T)? A tracing stop (t) is a
 * debugger's business, not ours. */
static bool group_stopped(pid_t pid)
{
	pid_t tids[512];
	int n = vg_proc_threads(pid, tids, 512);

	for (int i = 0; i < n && i < 512; i++)
		if (vg_proc_state(tids[i]) == 'T')
			return true;
	return false;
}

/* The guard's whole life: until vigil's end of the pipe closes. */
static void guard_main(int in, pid_t target, bool launched)
{
	pid_t pids[GUARD_MAX];
	int pidfds[GUARD_MAX], n = 0;
	bool keep = false, released = !launched;
	struct msg m;
	ssize_t r;

	/* ^C at the terminal goes to the whole process group: vigil handles
	 * it and ends, and then so do we */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	pids[0] = target;
	if ((pidfds[0] = pidfd_of(target)) >= 0)
		n = 1;
	while ((r = read(in, &m, sizeof(m))) == sizeof(m) ||
	       (r < 0 && errno == EINTR)) {
		if (r < 0)
			continue;
		if (m.op == 'K') {
			keep = true;
		} else if (m.op == 'R') {
			released = true;
		} else if (m.op == 'A' && n < GUARD_MAX &&
			   (pidfds[n] = pidfd_of(m.pid)) >= 0) {
			pids[n++] = m.pid;
		}
	}
	if (!released && n) {	/* never run the program unmonitored */
		syscall(SYS_pidfd_send_signal, pidfds[0], SIGKILL, NULL, 0);
		_exit(0);
	}
	for (int i = 0; !keep && i < n; i++) {
		/* the pidfd makes sure it is still the same process */
		if (!group_stopped(pids[i]) ||
		    syscall(SYS_pidfd_send_signal, pidfds[i], SIGCONT, NULL, 0))
			continue;
		dprintf(2, "vigil: (guard) vigil ended while pid %d was stopped by its probes: resumed it\n",
			pids[i]);
	}
	_exit(0);
}

struct vg_guard *vg_guard_start(pid_t target, bool launched,
				struct vg_err *e)
{
	struct vg_guard *g = calloc(1, sizeof(*g));
	int p[2];

	if (!g) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	if (pipe2(p, O_CLOEXEC)) {
		vg_errf(e, "pipe: %s", strerror(errno));
		free(g);
		return NULL;
	}
	fflush(NULL);		/* nothing buffered is written twice */
	g->pid = fork();
	if (g->pid < 0) {
		vg_errf(e, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		free(g);
		return NULL;
	}
	if (g->pid == 0) {
		/* Only the pipe and stderr stay open: a BPF link, a perf event
		 * or a pipe the caller waits on must not live on in us. */
		if (dup2(p[0], 3) < 0)
			_exit(1);
		syscall(SYS_close_range, 4, ~0U, 0);
		close(0);
		close(1);
		guard_main(3, target, launched);
	}
	close(p[0]);
	g->fd = p[1];
	return g;
}

static void say(struct vg_guard *g, char op, pid_t pid)
{
	struct msg m = { .op = op, .pid = (int32_t)pid };

	if (g && write(g->fd, &m, sizeof(m)) != sizeof(m))
		fprintf(stderr, "vigil: cannot reach the guard process: %s\n",
			strerror(errno));
}

void vg_guard_released(struct vg_guard *g)
{
	say(g, 'R', 0);
}

void vg_guard_add(struct vg_guard *g, pid_t pid)
{
	say(g, 'A', pid);
}

void vg_guard_end(struct vg_guard *g, bool keep_stopped)
{
	if (!g)
		return;
	if (keep_stopped)
		say(g, 'K', 0);
	close(g->fd);
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(g);
}
