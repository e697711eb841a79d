/* Fork snapshots, as gdb's `checkpoint` takes them: vigil makes the
 * stopped target call fork() and keeps the child stopped, a copy of the
 * process at that moment that costs only the pages either side writes
 * later. Restoring kills the target and hands over the child. Far cheaper
 * than a CRIU dump, but only for single-threaded targets (fork copies the
 * calling thread alone) and only within one vigil session. */
#ifndef VIGIL_SNAPSHOT_FORK_H
#define VIGIL_SNAPSHOT_FORK_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_fsnap;

/* keep: snapshots kept, the oldest killed past it (0 = 8) */
struct vg_fsnap *vg_fsnap_new(int keep);
/* Kill every kept snapshot but `spare` (the one a restore handed over). */
void vg_fsnap_free(struct vg_fsnap *s, pid_t spare);

/* Snapshot pid, which the caller has stopped (SIGSTOP) and which stays
 * stopped. Returns the child's pid, or -1 with e set: a multi-threaded
 * target, no `syscall` instruction to borrow, ptrace refused. */
pid_t vg_fsnap_take(struct vg_fsnap *s, pid_t pid, bool good,
		    struct vg_err *e);

/* The newest snapshot taken while good, or 0. */
pid_t vg_fsnap_last_good(const struct vg_fsnap *s);

#endif
