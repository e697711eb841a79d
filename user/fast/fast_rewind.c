/* A thread the in-process tier stopped at a call, put back on the call
 * (fast_internal.h, vg_fast_rewind).
 *
 * The entry stub stops its thread itself (tramp.c, entry_stop) once the
 * agent has said so, with the registers of the call in the frame it
 * pushed and %rsp at that frame: so vigil can set them all back and the
 * pc on the function's first instruction. gdb then finds the thread
 * where the program called the function, its arguments in their
 * registers, `bt` the call's stack; `x/i $pc` shows the patch's jmp,
 * which the thread takes when it goes on, into the stub and the agent,
 * which knows the call (vigil_fast.h, vg_fast_rewound) and does not
 * report it again. */
#include "fast_internal.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#include "fast/inject.h"
#include "fast/inject_internal.h"
#include "proc/proc.h"
#include "vigil_fast.h"

#define SETTLE_MS 200		/* for the stub's SIGSTOP to land */

/* the frame at a stopped stub's %rsp: the flags, then struct
 * vg_fast_regs */
struct frame {
	uint64_t flags;
	struct vg_fast_regs r;
};

static void settle(pid_t tid)
{
	struct timespec nap = { 0, 1000000 };

	for (int i = 0; i < SETTLE_MS && vg_proc_state(tid) == 'R'; i++)
		nanosleep(&nap, NULL);
}

/* note the rewound call in the region, for the agent */
static int note(struct vg_fast_shared *sh, pid_t tid, int hook, uint64_t rsp)
{
	for (int i = 0; i < VG_FAST_REWOUND; i++)	/* said once */
		if (sh->rewound[i].tid == (uint32_t)tid &&
		    sh->rewound[i].hook == (uint32_t)hook + 1 &&
		    sh->rewound[i].rsp == rsp)
			return 0;
	for (int i = 0; i < VG_FAST_REWOUND; i++) {
		struct vg_fast_rewound *w = &sh->rewound[i];

		if (w->tid)
			continue;
		w->hook = (uint32_t)hook + 1;
		w->rsp = rsp;
		__atomic_store_n(&w->tid, (uint32_t)tid, __ATOMIC_RELEASE);
		__atomic_fetch_add(&sh->nrewound, 1, __ATOMIC_RELEASE);
		return 0;
	}
	return -1;
}

int vg_fast_note_rewound(struct vg_fast_run *f, pid_t tid, int hook,
			 uint64_t rsp)
{
	if (!f || hook < 0 || hook >= vg_fast_nhooks(f))
		return -1;
	return note(vg_fast_region(f), tid, hook, rsp);
}

int vg_fast_rewind(struct vg_fast_run *f, pid_t tid, struct vg_err *e)
{
	struct user_regs_struct regs;
	struct vg_inject *in;
	struct frame fr;
	uint64_t fn;
	int hook, rc = -1;

	if (!f)
		return 0;
	/* a live gdb session holds the thread (its own ptrace stop): its
	 * extension puts it back on the call, with the registers gdb has
	 * (scripts/gdb/vigil.py, _fast_rewind) */
	if (vg_proc_tracer(tid) > 0 && vg_proc_tracer(tid) != getpid())
		return 0;
	settle(tid);
	if (vg_inject_seize(vg_fast_pid(f), &in, e))
		return -1;
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs)) {
		vg_errf(e, "reading thread %d's registers: %s", tid,
			strerror(errno));
		goto out;
	}
	hook = vg_fast_stopped_hook(f, regs.rip, &fn);
	if (hook < 0) {		/* not stopped by a stub */
		rc = 0;
		goto out;
	}
	if (vg_inject_read(in, regs.rsp, &fr, sizeof(fr), e))
		goto out;
	regs.rdi = fr.r.rdi;
	regs.rsi = fr.r.rsi;
	regs.rdx = fr.r.rdx;
	regs.rcx = fr.r.rcx;
	regs.r8 = fr.r.r8;
	regs.r9 = fr.r.r9;
	regs.rax = fr.r.rax;
	regs.r10 = fr.r.r10;
	regs.r11 = fr.r.r11;
	regs.rsp = fr.r.rsp;
	regs.eflags = fr.flags & ~0x100ull;	/* no trap flag (tramp.c) */
	regs.rip = fn;
	regs.orig_rax = (uint64_t)-1;	/* no system call to restart */
	if (ptrace(PTRACE_SETREGS, tid, 0, &regs)) {
		vg_errf(e, "setting thread %d's registers: %s", tid,
			strerror(errno));
		goto out;
	}
	/* with no room to say so, the call is stepped again when it goes
	 * on: the same violation again, which the kernel tier absorbs */
	note(vg_fast_region(f), tid, hook, fr.r.rsp);
	vg_inject_hazard("rewind: the thread put back");
	rc = 0;
out:
	vg_inject_release(in);
	return rc;
}
