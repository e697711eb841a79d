/* The target's threads held with ptrace (seized, as gdb does) while vigil
 * runs system calls in it and patches its code (inject.h). Memory access,
 * mappings and the shared region are inject_mem.c's; running a new
 * program to its entry, inject_entry.c's.
 *
 * A system call runs from the pad (inject_pad.c: a `syscall` followed by
 * code that restores the thread, in the padding of an executable
 * mapping), or, where no mapping has such padding, from a `syscall`
 * written over the thread's own pc for the moment of the call, its bytes
 * restored after: every other thread is stopped, so none can run the
 * borrowed bytes. Either way the thread runs the call between syscall
 * stops and ends in an event stop (settle), so that a vigil that dies at
 * any point lets it go with no signal of vigil's making; from the pad, it
 * also finds its own registers again. */
#include "inject_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/proc.h"

enum { MAX_THREADS = 65536, SYSCALL_MS = 5000,
       STEP_MS = 200, STEP_BOUND = 20000 };

/* the errors a system call interrupted by a stop is restarted with */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

pid_t vg_inject_pid(const struct vg_inject *in)
{
	return in->pid;
}

long vg_inject_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void vg_inject_hazard(const char *where)
{
	static long n;
	const char *s = getenv("VG_DBG_DIE_AT");
	long at = s ? atol(s) : 0;

	if (!at)
		return;
	n++;
	if (at < 0)
		fprintf(stderr, "vigil: hazard %ld: %s\n", n, where);
	else if (n == at)
		raise(SIGKILL);
}

static int ended(struct vg_inject *in, int i, int st, struct vg_err *e)
{
	in->t[i].gone = true;
	if (WIFSIGNALED(st))
		return vg_errf(e, "pid %d (thread %d) was killed by signal %d (%s) while vigil held it",
			       in->pid, in->t[i].tid, WTERMSIG(st),
			       strsignal(WTERMSIG(st)));
	return vg_errf(e, "pid %d (thread %d) exited (status %d) while vigil held it",
		       in->pid, in->t[i].tid, WEXITSTATUS(st));
}

/* Wait up to ms for thread i to stop: 0 and its status; -1 when it ended
 * (marked gone) or did not stop in time (*st = 0). */
int vg_inject_wait(struct vg_inject *in, int i, int *st, int ms,
		    struct vg_err *e)
{
	long until = vg_inject_now_ms() + ms;

	for (int k = 0;; k++) {
		pid_t r = waitpid(in->t[i].tid, st, __WALL | WNOHANG);

		if (r == in->t[i].tid) {
			if (WIFSTOPPED(*st))
				return 0;
			if (WIFEXITED(*st) || WIFSIGNALED(*st))
				return ended(in, i, *st, e);
			continue;
		}
		if (r < 0 && errno != EINTR) {
			in->t[i].gone = errno == ECHILD;
			return vg_errf(e, "pid %d: waiting for thread %d: %s",
				       in->pid, in->t[i].tid, strerror(errno));
		}
		if (vg_inject_now_ms() > until) {
			*st = 0;
			return vg_errf(e, "pid %d: thread %d did not stop within %d ms",
				       in->pid, in->t[i].tid, ms);
		}
		usleep(k < 100 ? 20 : 1000);
	}
}

int vg_inject_add(struct vg_inject *in, pid_t tid)
{
	if (in->n == in->cap) {
		int cap = in->cap ? in->cap * 2 : 16;
		void *p = realloc(in->t, cap * sizeof(*in->t));

		if (!p)
			return -1;
		in->t = p;
		in->cap = cap;
	}
	in->t[in->n++] = (struct vg_inject_thr){ .tid = tid };
	return 0;
}

static bool have_tid(const struct vg_inject *in, pid_t tid)
{
	for (int i = 0; i < in->n; i++)
		if (in->t[i].tid == tid)
			return true;
	return false;
}

/* Thread i was just interrupted: wait for its PTRACE_EVENT_STOP (a group
 * stop, or the interrupt's trap). A signal it was about to take is
 * delivered, as without vigil; the interrupt stays pending meanwhile. */
static int wait_interrupted(struct vg_inject *in, int i, struct vg_err *e)
{
	int st;

	for (int k = 0; k < 64; k++) {
		if (vg_inject_wait(in, i, &st, VG_INJECT_SEIZE_MS, e))
			return -1;
		if (st >> 16 == PTRACE_EVENT_STOP)
			return 0;
		if (st >> 16)	/* another event: go on to the stop */
			ptrace(PTRACE_CONT, in->t[i].tid, 0, 0);
		else
			ptrace(PTRACE_CONT, in->t[i].tid, 0,
			       (void *)(long)WSTOPSIG(st));
	}
	return vg_errf(e, "pid %d: thread %d kept taking signals instead of stopping",
		       in->pid, in->t[i].tid);
}

/* Seize the threads of in->pid not held yet until a pass finds none:
 * a thread created meanwhile is found by the next pass, and once all are
 * stopped, none can make another. */
int vg_inject_seize_all(struct vg_inject *in, struct vg_err *e)
{
	pid_t *tids = malloc(MAX_THREADS * sizeof(*tids));
	int ret = -1;

	if (!tids)
		return vg_errf(e, "out of memory");
	for (int pass = 0; pass < 1000; pass++) {
		int n = vg_proc_threads(in->pid, tids, MAX_THREADS), added = 0;

		if (n <= 0) {
			vg_errf(e, "pid %d is gone", in->pid);
			goto out;
		}
		for (int k = 0; k < n && k < MAX_THREADS; k++) {
			/* a leader that exited before its threads: a zombie
			 * never stops for a tracer */
			if (have_tid(in, tids[k]) ||
			    vg_proc_state(tids[k]) == 'Z')
				continue;
			/* TRACESYSGOOD: a syscall stop's own signal is then
			 * no signal, should vigil die there (vg_inject_syscall) */
			if (ptrace(PTRACE_SEIZE, tids[k], 0,
				   PTRACE_O_TRACESYSGOOD)) {
				if (errno == ESRCH)	/* it exited */
					continue;
				vg_errf(e, "seizing thread %d of pid %d: ptrace: %s (CAP_SYS_PTRACE, kernel.yama.ptrace_scope, or another tracer)",
					tids[k], in->pid, strerror(errno));
				goto out;
			}
			if (vg_inject_add(in, tids[k])) {
				ptrace(PTRACE_DETACH, tids[k], 0, 0);
				vg_errf(e, "out of memory");
				goto out;
			}
			added++;
			if (ptrace(PTRACE_INTERRUPT, tids[k], 0, 0) ||
			    wait_interrupted(in, in->n - 1, e)) {
				if (in->t[in->n - 1].gone)
					continue;	/* it exited: fine */
				goto out;
			}
		}
		if (!added) {
			ret = 0;
			goto out;
		}
	}
	vg_errf(e, "pid %d keeps making threads", in->pid);
out:
	free(tids);
	return ret;
}

struct vg_inject *vg_inject_new(pid_t pid, struct vg_err *e)
{
	struct vg_inject *in = calloc(1, sizeof(*in));
	char path[64];

	if (!in) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	in->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	in->memfd = open(path, O_RDWR | O_CLOEXEC);
	if (in->memfd < 0) {
		vg_errf(e, "opening %s: %s", path, strerror(errno));
		free(in);
		return NULL;
	}
	return in;
}

/* the leader first: the thread vg_inject_syscall uses */
static void leader_first(struct vg_inject *in)
{
	for (int i = 1; i < in->n; i++) {
		if (in->t[i].tid == in->pid) {
			struct vg_inject_thr t = in->t[0];

			in->t[0] = in->t[i];
			in->t[i] = t;
		}
	}
}

int vg_inject_seize(pid_t pid, struct vg_inject **out, struct vg_err *e)
{
	struct vg_inject *in = vg_inject_new(pid, e);

	if (!in)
		return -1;
	if (vg_inject_seize_all(in, e)) {
		vg_inject_release(in);
		return -1;
	}
	leader_first(in);
	*out = in;
	return 0;
}

/* A thread in a group stop goes back into it at the detach: the kernel
 * sets it stop-pending again while the group's stop is in effect
 * (SIGNAL_STOP_STOPPED stays until a SIGCONT). Signals held back while
 * vigil ran a thread are sent again first. */
void vg_inject_release(struct vg_inject *in)
{
	if (!in)
		return;
	vg_inject_pad_undo(in);
	for (int i = 0; i < in->n; i++) {
		struct vg_inject_thr *t = &in->t[i];

		if (t->gone)
			continue;
		for (int s = 1; s < 64; s++)
			if (t->held & (1ull << s))
				syscall(SYS_tgkill, in->pid, t->tid, s);
		ptrace(PTRACE_DETACH, t->tid, 0, 0);
	}
	if (in->memfd >= 0)
		close(in->memfd);
	free(in->t);
	free(in);
}

/* A ptrace request on thread i failed: when the thread is gone (killed,
 * the process exited), say so, from its exit status. The others are
 * reaped meanwhile: a leader's end is told once the rest are reaped. */
static int lost(struct vg_inject *in, int i, const char *what,
		struct vg_err *e)
{
	int err = errno, st;

	for (int k = 0; err == ESRCH && k < 1000; k++) {
		for (int j = 0; j < in->n; j++) {
			if (in->t[j].gone ||
			    waitpid(in->t[j].tid, &st, __WALL | WNOHANG) !=
				    in->t[j].tid ||
			    WIFSTOPPED(st))
				continue;
			if (j == i)
				return ended(in, i, st, e);
			in->t[j].gone = true;
		}
		usleep(1000);
	}
	return vg_errf(e, "pid %d: %s of thread %d: %s", in->pid, what,
		       in->t[i].tid, strerror(err));
}

int vg_inject_getregs(struct vg_inject *in, int i, struct user_regs_struct *r,
		      struct vg_err *e)
{
	if (ptrace(PTRACE_GETREGS, in->t[i].tid, 0, r))
		return lost(in, i, "reading the registers", e);
	return 0;
}

int vg_inject_setregs(struct vg_inject *in, int i,
		   const struct user_regs_struct *r, struct vg_err *e)
{
	if (ptrace(PTRACE_SETREGS, in->t[i].tid, 0, r))
		return lost(in, i, "writing the registers", e);
	return 0;
}

/* Thread i, in a signal's stop or a syscall stop, taken to an event stop
 * (PTRACE_EVENT_STOP) with no instruction of its own run: the interrupt
 * is pending when the thread goes on, the signal (SIGTRAP) dropped, and
 * the thread traps in the kernel before it returns to user space. Why: a
 * thread detached by vigil's death in a signal's stop is given that
 * signal, and a step's SIGTRAP kills the process; from an event stop it
 * just goes on. */
static int settle(struct vg_inject *in, int i, struct vg_err *e)
{
	pid_t tid = in->t[i].tid;
	int st;

	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0))
		return lost(in, i, "an interrupt", e);
	for (int k = 0; k < 64; k++) {
		if (ptrace(PTRACE_CONT, tid, 0, 0))
			return lost(in, i, "a resume", e);
		if (vg_inject_wait(in, i, &st, VG_INJECT_SEIZE_MS, e))
			return -1;
		if (st >> 16 == PTRACE_EVENT_STOP)
			return 0;
		if (!(st >> 16) && (WSTOPSIG(st) & 0x7f) != SIGTRAP)
			in->t[i].held |= 1ull << WSTOPSIG(st);
	}
	return vg_errf(e, "pid %d: thread %d does not stop", in->pid, tid);
}

/* Thread i, resumed to do what, did not stop within ms (a wait that
 * failed with st): still running, it is stopped again whatever it does,
 * a signal it took then held back for it. -1 with e set. */
static int overdue(struct vg_inject *in, int i, int st, int ms,
		   const char *what, struct vg_err *e)
{
	pid_t tid = in->t[i].tid;

	if (in->t[i].gone || st)
		return -1;
	ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	if (vg_inject_wait(in, i, &st, VG_INJECT_SEIZE_MS, e))
		return -1;
	/* (a syscall stop is SIGTRAP | 0x80) */
	if (!(st >> 16) && (WSTOPSIG(st) & 0x7f) != SIGTRAP)
		in->t[i].held |= 1ull << WSTOPSIG(st);
	return vg_errf(e, "pid %d: thread %d did not finish %s in %d ms",
		       in->pid, tid, what, ms);
}

/* One single step of thread i: 0 when it trapped after it. A signal that
 * comes first is held back (sent again at the release) and the step
 * retried; a stop of the group is left for the step to go on. A step
 * that does not end in ms (a system call that blocks) is interrupted:
 * -1, the thread stopped again. */
static int step(struct vg_inject *in, int i, int ms, struct vg_err *e)
{
	pid_t tid = in->t[i].tid;
	int st;

	for (int k = 0; k < 64; k++) {
		if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0))
			return lost(in, i, "a step", e);
		if (vg_inject_wait(in, i, &st, ms, e))
			return overdue(in, i, st, ms,
				       "a step (a blocking system call)", e);
		if (st >> 16)
			continue;	/* a group stop, an event: step on */
		if (WSTOPSIG(st) == SIGTRAP) {
			vg_inject_hazard("step");
			return settle(in, i, e);
		}
		in->t[i].held |= 1ull << WSTOPSIG(st);
	}
	return vg_errf(e, "pid %d: thread %d takes signals instead of stepping",
		       in->pid, tid);
}

static int first_live(struct vg_inject *in, struct vg_err *e)
{
	for (int i = 0; i < in->n; i++)
		if (!in->t[i].gone)
			return i;
	return vg_errf(e, "pid %d: no thread left to run in", in->pid);
}

/* Thread i run to its next syscall stop (entry or exit): signals that
 * come first are held back, a group stop is left for it to go on. A
 * call that does not end within ms (it blocks) is interrupted: -1. */
static int to_syscall_stop(struct vg_inject *in, int i, int ms,
			   struct vg_err *e)
{
	pid_t tid = in->t[i].tid;
	int st;

	for (int k = 0; k < 64; k++) {
		vg_inject_hazard("syscall: the thread runs");
		if (ptrace(PTRACE_SYSCALL, tid, 0, 0))
			return lost(in, i, "a system call", e);
		if (vg_inject_wait(in, i, &st, ms, e))
			return overdue(in, i, st, ms, "a system call", e);
		if (WSTOPSIG(st) == (SIGTRAP | 0x80) && !(st >> 16)) {
			vg_inject_hazard("syscall: at a syscall stop");
			return 0;
		}
		if (!(st >> 16))
			in->t[i].held |= 1ull << WSTOPSIG(st);
	}
	return vg_errf(e, "pid %d: thread %d takes signals instead of its system call",
		       in->pid, tid);
}

/* Will the kernel restart the system call the thread was stopped in? */
static bool restarts(const struct user_regs_struct *r)
{
	long ax = (long)r->rax;

	return (long)r->orig_rax >= 0 &&
	       (ax == -ERESTARTSYS || ax == -ERESTARTNOINTR ||
		ax == -ERESTARTNOHAND || ax == -ERESTART_RESTARTBLOCK);
}

/* Where the thread goes on when it is let go as it is: its pc, or the
 * system call it was stopped in, restarted (as the kernel does when no
 * handler runs) */
static void going_on(const struct user_regs_struct *r, uint64_t *rip,
		     uint64_t *rax)
{
	*rip = r->rip;
	*rax = r->rax;
	if (!restarts(r))
		return;
	*rip -= 2;
	*rax = (long)r->rax == -ERESTART_RESTARTBLOCK ? SYS_restart_syscall
						      : r->orig_rax;
}

/* The call runs from the pad (inject_pad.c) when there is one, else from
 * a `syscall` written over the thread's own pc. Run with syscall stops,
 * not a single step: a thread let go at one by vigil's death gets no
 * signal (TRACESYSGOOD), and from the pad it finds its own registers
 * again. After the call, the thread is taken to an event stop (settle):
 * the registers set back there restart a system call it was stopped in,
 * as they would have at its first stop. */
int vg_inject_syscall(struct vg_inject *in, long *ret, long nr, long a1,
		      long a2, long a3, long a4, long a5, long a6,
		      struct vg_err *e)
{
	static const uint8_t insn[2] = { 0x0f, 0x05 };	/* syscall */
	struct user_regs_struct saved, r;
	uint8_t orig[2];
	int i = first_live(in, e), rc = -1;
	uint64_t at, rip, rax;
	bool borrow;

	if (i < 0 || vg_inject_getregs(in, i, &saved, e))
		return -1;
	borrow = vg_inject_pad(in, &at) != 0;
	if (borrow) {
		at = saved.rip;
		if (vg_inject_read(in, at, orig, 2, e))
			return -1;
		if (vg_inject_write(in, at, insn, 2, e)) {
			vg_inject_write(in, at, orig, 2, NULL);	/* a byte went in */
			return -1;
		}
	} else {
		going_on(&saved, &rip, &rax);
		if (vg_inject_pad_set(in, &saved, rip, rax, e))
			return -1;
	}
	r = saved;
	r.rip = at;
	r.rax = nr;
	r.rdi = a1;
	r.rsi = a2;
	r.rdx = a3;
	r.r10 = a4;
	r.r8 = a5;
	r.r9 = a6;
	/* no restart of a system call the thread was stopped in: the
	 * saved registers bring that back at the end */
	r.orig_rax = -1;
	if (vg_inject_setregs(in, i, &r, e))
		goto bytes;
	if (to_syscall_stop(in, i, SYSCALL_MS, e) ||	/* its entry */
	    to_syscall_stop(in, i, SYSCALL_MS, e) ||	/* its exit */
	    settle(in, i, e))
		goto regs;
	vg_inject_hazard("syscall: done, not restored");
	if (vg_inject_getregs(in, i, &r, e))
		goto regs;
	if (r.rip != at + 2) {
		vg_errf(e, "pid %d: thread %d stopped at 0x%llx, not after the system call at 0x%llx",
			in->pid, in->t[i].tid, r.rip, (unsigned long long)at);
		goto regs;
	}
	*ret = (long)r.rax;
	rc = 0;
regs:
	if (!in->t[i].gone && vg_inject_setregs(in, i, &saved, rc ? NULL : e))
		rc = -1;
bytes:
	if (borrow && !in->t[i].gone &&
	    vg_inject_write(in, at, orig, 2, rc ? NULL : e))
		rc = -1;
	return rc;
}

static bool pc_bad(uint64_t pc, const uint64_t *addr, const uint32_t *len,
		   int n, uint64_t busy_lo, uint64_t busy_hi)
{
	if (busy_lo < busy_hi && pc >= busy_lo && pc < busy_hi)
		return true;
	for (int k = 0; k < n; k++)
		if (pc > addr[k] && pc < addr[k] + len[k])
			return true;
	return false;
}

/* Where the thread runs next: its pc, and the system call instruction
 * before it when the kernel will restart the call it was stopped in. */
static bool thr_bad(const struct user_regs_struct *r, const uint64_t *addr,
		    const uint32_t *len, int n, uint64_t lo, uint64_t hi)
{
	return pc_bad(r->rip, addr, len, n, lo, hi) ||
	       (restarts(r) && pc_bad(r->rip - 2, addr, len, n, lo, hi));
}

void vg_inject_set_mover(struct vg_inject *in,
			 uint64_t (*where)(void *ctx, uint64_t pc), void *ctx)
{
	in->mover = where;
	in->mover_ctx = ctx;
}

/* Thread i moved (vg_inject_set_mover) to where it goes on as from its
 * pc: 1 when it was, 0 when there is nowhere, -1 with e */
static int move(struct vg_inject *in, int i, struct user_regs_struct *r,
		struct vg_err *e)
{
	uint64_t to;

	if (!in->mover || restarts(r) || !(to = in->mover(in->mover_ctx, r->rip)))
		return 0;
	r->rip = to;
	if (vg_inject_setregs(in, i, r, e))
		return -1;
	return 1;
}

/* Move thread i out of every range, or else step it until it is out: a
 * bounded number of steps, each bounded in time. */
static int step_out(struct vg_inject *in, int i, const uint64_t *addr,
		    const uint32_t *len, int n, uint64_t lo, uint64_t hi,
		    struct vg_err *e)
{
	struct user_regs_struct r;
	uint64_t first = 0;

	for (int k = 0; k <= STEP_BOUND; k++) {
		if (vg_inject_getregs(in, i, &r, e))
			return -1;
		if (!thr_bad(&r, addr, len, n, lo, hi))
			return 0;
		if (!k)
			first = r.rip;
		switch (move(in, i, &r, e)) {
		case -1:
			return -1;
		case 1:
			continue;	/* looked at again where it is now */
		}
		if (k == STEP_BOUND || restarts(&r))
			break;
		if (step(in, i, STEP_MS, e)) {
			if (!in->t[i].gone)
				vg_errf(e, "cannot patch: thread %d of pid %d, at 0x%llx (from 0x%llx), is in a range being patched and blocks in a system call there",
					in->t[i].tid, in->pid, r.rip,
					(unsigned long long)first);
			return -1;
		}
	}
	return vg_errf(e, "cannot patch: thread %d of pid %d is at 0x%llx (it was at 0x%llx), inside a range being patched%s",
		       in->t[i].tid, in->pid, r.rip, (unsigned long long)first,
		       restarts(&r) ? " (a system call there will restart)"
				    : ", after a bound of steps");
}

int vg_inject_patch(struct vg_inject *in, const uint64_t *addr,
		    const uint8_t *const *bytes, const uint32_t *len, int n,
		    uint64_t busy_lo, uint64_t busy_hi, struct vg_err *e)
{
	uint8_t **orig = calloc(n ? n : 1, sizeof(*orig));
	int k = 0, rc = -1;

	if (!orig)
		return vg_errf(e, "out of memory");
	for (int i = 0; i < in->n; i++)
		if (!in->t[i].gone &&
		    step_out(in, i, addr, len, n, busy_lo, busy_hi, e))
			goto out;
	/* what was there, put back when a later patch cannot be written */
	for (k = 0; k < n; k++) {
		if (!(orig[k] = malloc(len[k] ? len[k] : 1))) {
			vg_errf(e, "out of memory");
			goto out;
		}
		if (vg_inject_read(in, addr[k], orig[k], len[k], e))
			goto out;
	}
	for (k = 0; k < n; k++) {
		vg_inject_hazard("patch: a function's bytes");
		if (vg_inject_write(in, addr[k], bytes[k], len[k], e))
			break;
	}
	if (k == n)
		rc = 0;
	for (int j = k < n ? k : -1; j >= 0; j--)
		vg_inject_write(in, addr[j], orig[j], len[j], NULL);
out:
	for (int j = 0; j < n; j++)
		free(orig[j]);
	free(orig);
	return rc;
}

int vg_inject_step_clear(struct vg_inject *in, const uint64_t *lo,
			 const uint64_t *hi, int n, struct vg_err *e)
{
	uint64_t *addr = calloc(n ? n : 1, sizeof(*addr));
	uint32_t *len = calloc(n ? n : 1, sizeof(*len));
	int rc = -1;

	if (!addr || !len) {
		vg_errf(e, "out of memory");
		goto out;
	}
	/* [lo, hi) is what step_out calls strictly inside (lo - 1, hi) */
	for (int k = 0; k < n; k++) {
		addr[k] = lo[k] - 1;
		len[k] = (uint32_t)(hi[k] - lo[k] + 1);
	}
	for (int i = 0; i < in->n; i++)
		if (!in->t[i].gone &&
		    step_out(in, i, addr, len, n, 0, 0, e))
			goto out;
	rc = 0;
out:
	free(addr);
	free(len);
	return rc;
}

int vg_inject_thread(struct vg_inject *in, int i, pid_t *tid, uint64_t *pc)
{
	struct user_regs_struct r;

	if (i < 0 || i >= in->n)
		return -1;
	*tid = in->t[i].tid;
	*pc = 0;
	if (!in->t[i].gone && !ptrace(PTRACE_GETREGS, in->t[i].tid, 0, &r))
		*pc = r.rip;
	return 0;
}
