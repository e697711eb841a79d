/* The kernel's release of a run's probes, left to a process that outlives
 * vigil. Closing the last reference to a uprobe link (or a tracepoint's,
 * or a perf event's) waits in the kernel for a grace period, 40-110 ms
 * each on these machines, and vigil's exit waited for all of them. Once
 * the monitored processes are gone no thread can take those probes any
 * more, so nothing needs the wait: a child holds copies of every BPF and
 * perf descriptor, vigil's own closes are no longer the last and return
 * at once, and the child exits (its descriptors released, the waits
 * taken there) when vigil has let go. The probes are gone a grace period
 * after vigil; a target that still runs keeps the synchronous detach. */
#ifndef VIGIL_PROBE_LATE_RELEASE_H
#define VIGIL_PROBE_LATE_RELEASE_H

/* Start the holder: a grandchild named vigil-release (reparented to init at once, so no
 * process of vigil's, nor a gdb exec'd in its place, reaps it) with
 * copies of vigil's BPF and perf descriptors and none of the others
 * (stdout, sockets: nothing waits on it). Returns the descriptor to hand
 * to vg_late_release_go, or -1 when no holder could be made (then
 * vigil's own closes wait, as before). */
int vg_late_release_start(void);
/* vigil has closed its own: the holder exits and releases them */
void vg_late_release_go(int fd);

#endif
