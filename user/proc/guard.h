/* The guard: a small process, forked by vigil as soon as the target is
 * known, that outlives vigil to resume a target it left stopped.
 *
 * vigil's probes stop the target on their own (a hold while a watchpoint
 * or a --dynamic probe is armed, a fork child held until its probes are
 * in) and vigil resumes it a moment later. If vigil is SIGKILLed or
 * crashes in that moment, nothing else would: the kernel takes the probes
 * away with vigil's descriptors, but a stopped process stays stopped. The
 * guard waits on a socket pair whose other end only vigil holds; when it
 * reads the end of it it sends SIGCONT to each guarded process that is stopped,
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

/* Guard another process too (a fork the target made, --follow-fork; a
 * watched process). Ended ones make room when the guard's list (256) is
 * full. */
void vg_guard_add(struct vg_guard *g, pid_t pid);
/* pid was left stopped for the user (a stop reaction under vigil watch):
 * vigil's death does not resume it. */
void vg_guard_keep(struct vg_guard *g, pid_t pid);

/* When vigil dies, and once it has exited (its probes gone with its
 * descriptors, so that none can stop a process any more), the guard also
 * calls fn with its own copies of fds[0..nfds) (at most 4, sent now):
 * for what only vigil's side knows it holds stopped, such as processes a
 * BPF program stopped at their exec or fork whose record vigil had not
 * handled yet. fn runs in the guard, a fork of vigil without an exec, so
 * vigil's own function; it must not return to vigil's code paths (it is
 * called once, then the guard exits). At vigil's normal end (vg_guard_end)
 * too: vigil has let go of everything by then, and fn finds nothing. */
typedef void (*vg_guard_fn)(const int *fds, int nfds);
int vg_guard_on_death(struct vg_guard *g, vg_guard_fn fn, const int *fds,
		      int nfds, struct vg_err *e);

/* vigil ends normally: keep_stopped says the user asked for the target
 * to stay stopped. Waits for the guard to finish. NULL is fine. */
void vg_guard_end(struct vg_guard *g, bool keep_stopped);

#endif
