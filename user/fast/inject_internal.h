/* Shared by inject.c and inject_mem.c only. */
#ifndef VIGIL_FAST_INJECT_INTERNAL_H
#define VIGIL_FAST_INJECT_INTERNAL_H

#include <stdbool.h>
#include <sys/user.h>

#include "inject.h"

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
};

int vg_inject_getregs(struct vg_inject *in, int i,
		      struct user_regs_struct *r, struct vg_err *e);

#endif
