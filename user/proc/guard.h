/* The guard: a small process, forked by vigil as soon as the target is
 * known, that outlives vigil to resume a target it left stopped.
 *
 * vigil's probes stop the target on their own (a hold while a watchpoint
 * or a --dynamic probe is armed, a fork child held until its probes are
 * in) and vigil resumes it a moment later. If vigil is SIGKILLed or
 * crashes in that moment, nothing else would: the kernel takes the probes
 * away with vigil's descriptors, but a stopped process stays stopped. The
 * guard waits on a pipe whose only writer is vigil; when it reads the end
 * of the pipe it sends SIGCONT to each guarded process that is stopped,
 * unless vigil said first that the user asked for it to stay stopped (a
 * `stop` reaction, --on-violation=stop or gdb). */
#ifndef VIGIL_PROC_GUARD_H
#define VIGIL_PROC_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_guard;

/* Fork the guard for target. It holds no descriptor of vigil's but its
 * end of the pipe and a pidfd of each process it guards (a pid reused
 * after the target's exit is never signalled). launched: vigil started
 * the target, stopped before its exec; should vigil die before
 * vg_guard_released, the guard kills it rather than let the program run
 * unmonitored. */
struct vg_guard *vg_guard_start(pid_t target, bool launched,
				struct vg_err *e);
/* The launched target was let go into its program. */
void vg_guard_released(struct vg_guard *g);

/* Guard another process too (a fork the target made, --follow-fork). */
void vg_guard_add(struct vg_guard *g, pid_t pid);

/* vigil ends normally: keep_stopped says the user asked for the target
 * to stay stopped. Waits for the guard to finish. NULL is fine. */
void vg_guard_end(struct vg_guard *g, bool keep_stopped);

#endif
