/* Shared by inject.c and inject_mem.c only. */
#ifndef VIGIL_FAST_INJECT_INTERNAL_H
#define VIGIL_FAST_INJECT_INTERNAL_H

#include <stdbool.h>
#include <sys/user.h>

#include "inject.h"

#define VG_INJECT_PAD 512	/* bytes of the pad */

struct vg_inject_thr {
	pid_t tid;
	bool gone;		/* exited while seized: nothing to detach */
	/* signals that arrived while vigil ran the thread (a step, a system
	 * call): held back then, sent again before the detach */
	uint64_t held;
};

struct vg_inject {
	pid_t pid;
	int memfd;		/* /proc/pid/mem */
	int n, cap;
	struct vg_inject_thr *t;
	/* where system calls run (inject_pad.c): 0 when no place was found,
	 * and a call borrows the thread's pc */
	uint64_t pad;
	bool pad_tried;
	uint8_t pad_orig[VG_INJECT_PAD];	/* its bytes before */
	uint64_t (*mover)(void *ctx, uint64_t pc);	/* vg_inject_set_mover */
	void *mover_ctx;
};

enum { VG_INJECT_SEIZE_MS = 5000 };

long vg_inject_now_ms(void);
struct vg_inject *vg_inject_new(pid_t pid, struct vg_err *e);
int vg_inject_add(struct vg_inject *in, pid_t tid);
/* Seize the threads not held yet, until a pass finds none */
int vg_inject_seize_all(struct vg_inject *in, struct vg_err *e);
/* Wait up to ms for thread i to stop: 0 and its status; -1 when it ended
 * (marked gone) or did not stop in time (*st = 0). */
int vg_inject_wait(struct vg_inject *in, int i, int *st, int ms,
		   struct vg_err *e);
int vg_inject_setregs(struct vg_inject *in, int i,
		      const struct user_regs_struct *r, struct vg_err *e);
int vg_inject_getregs(struct vg_inject *in, int i,
		      struct user_regs_struct *r, struct vg_err *e);

/* inject_pad.c: the pad's address in *at (written on first use), -1
 * when there is none */
int vg_inject_pad(struct vg_inject *in, uint64_t *at);
/* The registers the pad's code restores after its system call: r's, but
 * rip and rax as given (a system call to restart) */
int vg_inject_pad_set(struct vg_inject *in, const struct user_regs_struct *r,
		      uint64_t rip, uint64_t rax, struct vg_err *e);
/* the pad's bytes back to zeros (the threads still held) */
void vg_inject_pad_undo(struct vg_inject *in);

/* A test's way to kill vigil at the Nth point where it holds a thread
 * in a state of its own making (VG_DBG_DIE_AT=N; -1: each point named on
 * stderr): tests/e2e/fast_kill.sh */
void vg_inject_hazard(const char *where);

#endif
