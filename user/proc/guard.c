/* The guard process (guard.h). */
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

#define GUARD_MAX 256		/* processes one guard watches at once */
#define GUARD_HOOKS 4		/* vg_guard_on_death's */
#define GUARD_HOOK_FDS 4

/* what vigil tells the guard, one message at a time on a SOCK_SEQPACKET
 * pair (each message whole, and the end of vigil's side read as such) */
struct msg {
	char op;		/* 'A': guard pid too; 'R': the launched target
				 * was released; 'K': keep them stopped; 'k':
				 * keep pid stopped; 'H': a hook, its
				 * descriptors with it (SCM_RIGHTS) */
	int32_t pid;
	vg_guard_fn fn;		/* 'H' */
};

struct vg_guard {
	pid_t pid;		/* the guard's */
	int fd;			/* vigil's end of the pair */
};

struct hook {
	vg_guard_fn fn;
	int fds[GUARD_HOOK_FDS], nfds;
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

/* Resume each of the n processes that is in a group stop. A thread
 * vigil's death let go of runs back into the group stop it was in (the
 * kernel wakes it for that): seen T only a moment later, so after a death
 * (abnormal) they are looked at again for a while, each until it is
 * resumed or has ended. */
static void resume_stopped(const pid_t *pids, const int *pidfds, int n,
			   bool abnormal)
{
	bool done[GUARD_MAX] = { false };

	for (int round = 0; round < (abnormal ? 20 : 1); round++) {
		int left = 0;

		if (round)
			usleep(10000);
		for (int i = 0; i < n; i++) {
			struct pollfd p = { .fd = pidfds[i], .events = POLLIN };

			if (done[i] || poll(&p, 1, 0) == 1) {	/* ended */
				done[i] = true;
				continue;
			}
			/* the pidfd makes sure it is still the same process */
			if (!group_stopped(pids[i]) ||
			    syscall(SYS_pidfd_send_signal, pidfds[i], SIGCONT,
				    NULL, 0)) {
				left++;
				continue;
			}
			done[i] = true;
			dprintf(2, "vigil: (guard) vigil ended while pid %d was stopped by its probes: resumed it\n",
				pids[i]);
		}
		if (!left)
			break;
	}
}

/* One message, and the descriptors that came with it (nfds of them). */
static ssize_t receive(int in, struct msg *m, int *fds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(GUARD_HOOK_FDS * sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = c.buf,
			    .msg_controllen = sizeof(c.buf) };
	ssize_t r = recvmsg(in, &h, MSG_CMSG_CLOEXEC);

	*nfds = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&h); r > 0 && cm;
	     cm = CMSG_NXTHDR(&h, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			*nfds = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(fds, CMSG_DATA(cm), *nfds * sizeof(int));
		}
	return r;
}

/* The list is full: drop the processes that have ended (a watch sees
 * thousands come and go); true if room was made. */
static bool prune(pid_t *pids, int *pidfds, int *n)
{
	int kept = 0;

	for (int i = 0; i < *n; i++) {
		struct pollfd p = { .fd = pidfds[i], .events = POLLIN };

		if (i > 0 && poll(&p, 1, 0) == 1) {	/* ended (the target,
							 * 0, stays first) */
			close(pidfds[i]);
			continue;
		}
		pids[kept] = pids[i];
		pidfds[kept++] = pidfds[i];
	}
	*n = kept;
	return kept < GUARD_MAX;
}

/* The guard's whole life: until vigil's end of the pair closes. */
static void guard_main(int in, pid_t target, bool launched, int vigil_pidfd)
{
	pid_t pids[GUARD_MAX];
	int pidfds[GUARD_MAX], n = 0, nhooks = 0, fds[GUARD_HOOK_FDS], nfds;
	struct hook hooks[GUARD_HOOKS];
	bool keep = false, released = !launched, ended = false;
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
	while ((r = receive(in, &m, fds, &nfds)) == sizeof(m) ||
	       (r < 0 && errno == EINTR)) {
		if (r < 0)
			continue;
		if (m.op == 'K') {
			keep = true;
		} else if (m.op == 'R') {
			released = true;
		} else if (m.op == 'E') {	/* vigil ends normally, having
						 * let go of all it held */
			nhooks = 0;
			ended = true;
		} else if (m.op == 'A' && (n < GUARD_MAX ||
					   prune(pids, pidfds, &n)) &&
			   (pidfds[n] = pidfd_of(m.pid)) >= 0) {
			pids[n++] = m.pid;
		} else if (m.op == 'k') {	/* the user's now: not ours */
			for (int i = 0; i < n; i++)
				if (pids[i] == m.pid) {
					close(pidfds[i]);
					pids[i] = pids[--n];
					pidfds[i] = pidfds[n];
					break;
				}
		} else if (m.op == 'H' && nhooks < GUARD_HOOKS) {
			hooks[nhooks].fn = m.fn;
			hooks[nhooks].nfds = nfds;
			memcpy(hooks[nhooks++].fds, fds, nfds * sizeof(int));
			nfds = 0;
		}
		for (int i = 0; i < nfds; i++)	/* not taken */
			close(fds[i]);
	}
	if (!released && n) {	/* never run the program unmonitored */
		syscall(SYS_pidfd_send_signal, pidfds[0], SIGKILL, NULL, 0);
		_exit(0);
	}
	if ((nhooks || !ended) && vigil_pidfd >= 0) {
		struct pollfd p = { .fd = vigil_pidfd, .events = POLLIN };

		/* vigil's probes go as its descriptors close, before its
		 * pidfd says it has exited: from then on none can stop a
		 * process (bounded: a vigil that closed its side of the pair
		 * but lives on is not waited for longer). And a vigil that
		 * died holding a thread with ptrace (the in-process tier's
		 * rewind of a thread its stub stopped, user/fast/) lets it go
		 * after its descriptors: the thread is in a tracing stop (t)
		 * until then, and goes back into the group stop (T) after,
		 * which is what is looked for below */
		poll(&p, 1, 2000);
	}
	for (int i = 0; i < nhooks; i++)
		hooks[i].fn(hooks[i].fds, hooks[i].nfds);
	if (!keep)
		resume_stopped(pids, pidfds, n, !ended);
	_exit(0);
}

struct vg_guard *vg_guard_start(pid_t target, bool launched,
				struct vg_err *e)
{
	struct vg_guard *g = calloc(1, sizeof(*g));
	pid_t vigil = getpid();
	int p[2];

	if (!g) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p)) {
		vg_errf(e, "socketpair: %s", strerror(errno));
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
		/* Only the pair and stderr stay open: a BPF link, a perf event
		 * or a pipe the caller waits on must not live on in us. */
		int vfd;

		if (dup2(p[0], 3) < 0)
			_exit(1);
		syscall(SYS_close_range, 4, ~0U, 0);
		close(0);
		close(1);
		/* vigil's pidfd, to know when it is gone (the hooks); none
		 * if it is gone already */
		vfd = pidfd_of(vigil);
		if (vfd >= 0 && getppid() != vigil) {
			close(vfd);
			vfd = -1;
		}
		guard_main(3, target, launched, vfd);
	}
	close(p[0]);
	g->fd = p[1];
	return g;
}

static void say(struct vg_guard *g, char op, pid_t pid)
{
	struct msg m = { .op = op, .pid = (int32_t)pid };

	if (g && send(g->fd, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
		fprintf(stderr, "vigil: cannot reach the guard process: %s\n",
			strerror(errno));
}

void vg_guard_keep(struct vg_guard *g, pid_t pid)
{
	say(g, 'k', pid);
}

int vg_guard_on_death(struct vg_guard *g, vg_guard_fn fn, const int *fds,
		      int nfds, struct vg_err *e)
{
	union {
		char buf[CMSG_SPACE(GUARD_HOOK_FDS * sizeof(int))];
		struct cmsghdr align;
	} c;
	struct msg m = { .op = 'H', .fn = fn };
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (!g)
		return 0;
	if (nfds < 0 || nfds > GUARD_HOOK_FDS)
		return vg_errf(e, "the guard takes at most %d descriptors a hook",
			       GUARD_HOOK_FDS);
	memset(&c, 0, sizeof(c));
	if (nfds) {
		h.msg_control = c.buf;
		h.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&h);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	if (sendmsg(g->fd, &h, MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		return vg_errf(e, "cannot reach the guard process: %s",
			       strerror(errno));
	return 0;
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
	say(g, 'E', 0);
	close(g->fd);
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(g);
}
