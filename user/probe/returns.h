/* The pending return addresses of a process's threads: where each
 * function with a pending uretprobe really returns to (bpf/returns.bpf.h).
 * gdb's extension asks for them to show the real callers. */
#ifndef VG_PROBE_RETURNS_H
#define VG_PROBE_RETURNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "vigil_returns.h"
#include "util/err.h"

struct vg_probe;

/* The pending returns of every thread of pid, newest first per thread,
 * into out[max]; returns how many, or -1 with e set. 0 when the spec has
 * no return probe (nothing can be pending through vigil). */
int vg_probe_returns(struct vg_probe *p, pid_t pid, struct vg_pending_ret *out,
		     int max, struct vg_err *e);

/* The uretprobe trampoline's address in pid ([uprobes] page), or 0. */
uint64_t vg_returns_trampoline(pid_t pid);

/* Put the trampoline's address back in every slot of pid's pending
 * returns that holds the real return address instead (gdb's extension
 * writes those while it has the process stopped, vigil_returns.py): for
 * when gdb went away before it could. to_real: the other way, the real
 * addresses in place of the trampoline's, for a process vigil leaves
 * stopped for gdb as it detaches (no `after` event is wanted any more,
 * and gdb then unwinds to the real callers). The process must be
 * stopped. Returns how many slots were written. */
int vg_returns_mend(struct vg_probe *p, pid_t pid, bool to_real);

#endif
