/* Hardware watchpoints for `write x`, `read x` and `access x`, opened on
 * a thread. Where each one goes is the plan's (plan/watch_plan.h);
 * user/probe/probe_watch.c arms them as perf breakpoint events with
 * bpf/vigil/watch.bpf.c's vg_watch attached. */
#ifndef VIGIL_PROBE_WATCH_H
#define VIGIL_PROBE_WATCH_H

#include <stdint.h>

#include "util/err.h"

/* Open a hardware breakpoint (x86 bp_type: write, or read/write for read
 * and access: the hardware has no read-only one) on thread tid, inherited
 * by the threads and processes it creates. Returns the perf fd or -1. */
int vg_watch_open(int tid, uint64_t addr, int len, int kind,
		  struct vg_err *e);

/* The breakpoint of perf fd (vg_watch_open's) moved to another place,
 * in its thread and in every thread that inherited it (Linux 5.13 and
 * later move those too): no close and open, no thread list. 0, or -1
 * with errno (the breakpoint is then where it was, or disabled). */
int vg_watch_move(int fd, uint64_t addr, int len, int kind);
/* The breakpoint disabled (in the threads that inherited it too): no
 * trap, its debug register kept. A move enables it again (measured on
 * Linux 6.18: a disabled breakpoint moved counts its next hit). 0, or -1
 * with errno. */
int vg_watch_disable(int fd);

/* Where the two calls above run (watch_near.c): from vg_watch_near(cpu)
 * on, on that CPU, the one a held thread waits on, by a thread of vigil's
 * pinned there (no IPI a call); after vg_watch_far, or for a CPU vigil
 * may not run on, here. A negative cpu: here. */
void vg_watch_near(int cpu);
void vg_watch_far(void);
/* ioctl(fd, req, arg), where vg_watch_near says */
int vg_watch_ioctl(int fd, unsigned long req, void *arg);
/* how many calls were made near, by the pinned threads */
uint64_t vg_watch_near_calls(void);

#endif
