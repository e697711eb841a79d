/* vigil run's start of the in-process tier (inject.h): the program
 * vigil forked, stopped before its exec, run to its entry point with a
 * temporary int3 there, as vg_proc_release_at_entry (user/proc/entry.c)
 * catches the exec, and held there seized. */
#include "inject_internal.h"
#include "proc/entry.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ENTRY_MS = 60000 };

/* AT_ENTRY of the program pid now runs */
static int auxv_entry(pid_t pid, uint64_t *entry, struct vg_err *e)
{
	char path[64];
	uint64_t av[2];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return vg_errf(e, "opening %s: %s", path, strerror(errno));
	*entry = 0;
	while (read(fd, av, sizeof(av)) == sizeof(av) && av[0])
		if (av[0] == 7 + 2)	/* AT_ENTRY (9) */
			*entry = av[1];
	close(fd);
	if (!*entry)
		return vg_errf(e, "%s has no AT_ENTRY", path);
	return 0;
}

/* From the exec to an int3 at the entry; thread 0 of in is the program's
 * only thread yet. Its own signals are delivered on the way. */
static int run_to(struct vg_inject *in, uint64_t entry, struct vg_err *e)
{
	struct user_regs_struct r;
	uint8_t orig, cc = 0xcc;
	int st = -1, sig = 0, rc = -1;	/* st != 0: stopped */
	long until = vg_inject_now_ms() + ENTRY_MS;

	if (vg_inject_read(in, entry, &orig, 1, e) ||
	    vg_inject_write(in, entry, &cc, 1, e))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_CONT, in->pid, 0, (void *)(long)sig)) {
			vg_errf(e, "pid %d: ptrace: %s", in->pid,
				strerror(errno));
			goto out;
		}
		if (vg_inject_wait(in, 0, &st, until - vg_inject_now_ms(), e))
			goto out;
		sig = st >> 16 ? 0 : WSTOPSIG(st);
		if (sig != SIGTRAP)
			continue;
		if (vg_inject_getregs(in, 0, &r, e))
			goto out;
		if (r.rip == entry + 1) {
			vg_inject_hazard("entry: the program stopped at the int3");
			break;
		}
	}
	r.rip = entry;
	rc = vg_inject_setregs(in, 0, &r, e);
out:
	if (rc && !in->t[0].gone && !st) {
		/* still running toward the entry: stopped for the detach,
		 * and not left after the int3 if it got there meanwhile */
		ptrace(PTRACE_INTERRUPT, in->pid, 0, 0);
		if (!vg_inject_wait(in, 0, &st, VG_INJECT_SEIZE_MS, NULL) &&
		    !vg_inject_getregs(in, 0, &r, NULL) && r.rip == entry + 1) {
			r.rip = entry;
			vg_inject_setregs(in, 0, &r, NULL);
		}
	}
	if (!in->t[0].gone && vg_inject_write(in, entry, &orig, 1, rc ? NULL : e))
		rc = -1;
	return rc;
}

int vg_inject_run_to_entry(pid_t pid, struct vg_inject **out,
			   struct vg_err *e)
{
	struct vg_inject *in;
	uint64_t entry;

	if (vg_proc_run_to_exec(pid, e))
		return -1;
	/* /proc/pid/mem is the new program's only once it has exec'ed */
	if (!(in = vg_inject_new(pid, e)) || vg_inject_add(in, pid)) {
		ptrace(PTRACE_DETACH, pid, 0, 0);
		if (!in)
			return -1;
		vg_inject_release(in);
		return vg_errf(e, "out of memory");
	}
	/* the exec is caught: no more exec stops, a seized thread as any.
	 * Killed with vigil (EXITKILL) until the detach: a thread let go by
	 * vigil's death from a trap of vigil's making in this phase may end
	 * by SIGTRAP (a core) before the guard kills it, as the program not
	 * let into its own code yet (seen once: signal 5, vigil SIGKILLed
	 * 0.17 s into its start) */
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		vg_errf(e, "pid %d: ptrace: %s", pid, strerror(errno));
		vg_inject_release(in);
		return -1;
	}
	if (auxv_entry(pid, &entry, e) || run_to(in, entry, e) ||
	    vg_inject_seize_all(in, e)) {
		vg_inject_release(in);
		return -1;
	}
	*out = in;
	return 0;
}
