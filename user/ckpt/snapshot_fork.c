/* Injecting fork() into a stopped target with ptrace.
 *
 * The target executes one `syscall` instruction that vigil borrows from
 * its own executable mappings (libc has many), with the registers set for
 * fork(). PTRACE_O_TRACEFORK stops the child before it runs a single
 * instruction; both get back the registers the target had, so the parent
 * goes on as if nothing happened and the child, once resumed, goes on from
 * the very same point. orig_rax is part of those registers: a target
 * stopped inside a blocking syscall (sleep, read) restarts it, in either
 * process, exactly as it would have without the snapshot. */
#include "ckpt.h"
#include "proc/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_KEEP 8

struct vg_fsnap {
	int keep, n;
	pid_t *child;
	bool *good;
};

struct vg_fsnap *vg_fsnap_new(int keep)
{
	struct vg_fsnap *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->keep = keep > 0 ? keep : DEFAULT_KEEP;
	s->child = calloc(s->keep, sizeof(pid_t));
	s->good = calloc(s->keep, sizeof(bool));
	if (!s->child || !s->good) {
		vg_fsnap_free(s, 0);
		return NULL;
	}
	return s;
}

void vg_fsnap_free(struct vg_fsnap *s, pid_t spare)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		if (s->child[i] != spare)
			kill(s->child[i], SIGKILL);
	free(s->child);
	free(s->good);
	free(s);
}

pid_t vg_fsnap_last_good(const struct vg_fsnap *s)
{
	for (int i = s->n - 1; i >= 0; i--)
		if (s->good[i])
			return s->child[i];
	return 0;
}

/* The address of a `syscall` instruction (0f 05) in an executable mapping
 * of pid, libc's first: executing it from there is what any libc wrapper
 * does. 0 if none. */
static uint64_t find_syscall_insn(pid_t pid)
{
	char path[64], line[512];
	uint64_t found = 0;
	FILE *maps;
	int mem;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	if (!maps || mem < 0)
		goto out;
	for (int pass = 0; pass < 2 && !found; pass++) {
		rewind(maps);
		while (!found && fgets(line, sizeof(line), maps)) {
			unsigned long lo, hi;
			char perms[8];
			static unsigned char buf[1 << 16];

			if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 ||
			    perms[2] != 'x' || strstr(line, "[uprobes]") ||
			    (pass == 0 && !strstr(line, "libc")))
				continue;
			for (unsigned long a = lo; a < hi && !found; a += sizeof(buf) - 1) {
				size_t want = hi - a < sizeof(buf) ? hi - a : sizeof(buf);
				ssize_t got = pread(mem, buf, want, (off_t)a);

				for (ssize_t i = 0; i + 1 < got; i++)
					if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
						found = a + i;
						break;
					}
				if (got <= 0)
					break;
			}
		}
	}
out:
	if (maps)
		fclose(maps);
	if (mem >= 0)
		close(mem);
	return found;
}

static int wait_stop(pid_t pid, int *status)
{
	while (waitpid(pid, status, __WALL) < 0)
		if (errno != EINTR)
			return -1;
	return WIFSTOPPED(*status) ? 0 : -1;
}

/* Single-step, passing over group-stops: the target was stopped with
 * SIGSTOP, maybe twice (the probe's and vigil's), and a pending one is
 * reported (and dropped) before the step. */
static int step(pid_t pid, int *status)
{
	for (int i = 0; i < 8; i++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) || wait_stop(pid, status))
			return -1;
		/* a SIGSTOP, as a group-stop or a signal-delivery-stop: step
		 * on with no signal (the stop is put back at the detach) */
		if (WSTOPSIG(*status) != SIGSTOP)
			return 0;
	}
	errno = EAGAIN;
	return -1;
}

/* Run fork() in the seized, stopped target; returns the child, stopped
 * and traced, or -1. */
static pid_t inject_fork(pid_t pid, const struct user_regs_struct *saved,
			 uint64_t insn, struct vg_err *e)
{
	struct user_regs_struct r = *saved;
	unsigned long msg = 0;
	int st;

	r.rip = insn;
	r.rax = SYS_fork;
	r.orig_rax = (unsigned long long)-1;	/* no syscall to restart */
	if (ptrace(PTRACE_SETREGS, pid, 0, &r))
		return vg_errf(e, "fork snapshot: setting registers: %s",
			       strerror(errno));
	if (step(pid, &st))
		return vg_errf(e, "fork snapshot: running fork(): %s",
			       strerror(errno));
	if (st >> 8 != (SIGTRAP | (PTRACE_EVENT_FORK << 8)))
		return vg_errf(e, "fork snapshot: the target stopped with status %#x instead of forking",
			       st);
	ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg);
	/* finish the syscall instruction in the parent */
	if (step(pid, &st))
		return vg_errf(e, "fork snapshot: after fork(): %s",
			       strerror(errno));
	return (pid_t)msg;
}

pid_t vg_fsnap_take(struct vg_fsnap *s, pid_t pid, bool good,
		    struct vg_err *e)
{
	struct user_regs_struct saved;
	uint64_t insn;
	pid_t child = -1;
	int st, n = vg_proc_threads(pid, NULL, 0);

	if (n != 1)
		return vg_errf(e, "fork snapshot: pid %d has %d threads; fork() copies one thread only, so fork snapshots are for single-threaded targets: use CRIU checkpoints (--snapshot=criu)",
			       pid, n);
	insn = find_syscall_insn(pid);
	if (!insn)
		return vg_errf(e, "fork snapshot: no syscall instruction found in pid %d's executable mappings",
			       pid);
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEFORK))
		return vg_errf(e, "fork snapshot: ptrace of pid %d: %s (is gdb or strace attached?)",
			       pid, strerror(errno));
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) || wait_stop(pid, &st) ||
	    ptrace(PTRACE_GETREGS, pid, 0, &saved)) {
		vg_errf(e, "fork snapshot: stopping pid %d: %s", pid,
			strerror(errno));
		goto detach;
	}
	child = inject_fork(pid, &saved, insn, e);
	ptrace(PTRACE_SETREGS, pid, 0, &saved);
	if (child > 0) {
		/* the child: the target's registers, then stopped, untraced,
		 * the same way as the parent below */
		if (wait_stop(child, &st) ||
		    ptrace(PTRACE_SETREGS, child, 0, &saved) ||
		    kill(child, SIGSTOP) ||
		    ptrace(PTRACE_DETACH, child, 0, 0)) {
			vg_errf(e, "fork snapshot: preparing child %d: %s",
				child, strerror(errno));
			kill(child, SIGKILL);
			child = -1;
		}
	}
detach:
	/* back to the stop the caller put it in: a SIGSTOP left pending is
	 * taken before the process runs a single instruction (PTRACE_DETACH's
	 * own signal is dropped from an event-stop) */
	kill(pid, SIGSTOP);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	if (child <= 0)
		return -1;
	if (s->n == s->keep) {
		kill(s->child[0], SIGKILL);
		memmove(s->child, s->child + 1, (s->keep - 1) * sizeof(pid_t));
		memmove(s->good, s->good + 1, (s->keep - 1) * sizeof(bool));
		s->n--;
	}
	s->child[s->n] = child;
	s->good[s->n++] = good;
	return child;
}
