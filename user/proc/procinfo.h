/* Where a process lives on the machine: its pid inside its own pid
 * namespace, its cgroup, and its root directory as vigil reaches it.
 *
 * A process in a container names files (its executable, its libraries in
 * /proc/PID/maps) from its own root, which may be another mount namespace
 * after pivot_root: /lib/x86_64-linux-gnu/libc.so.6 there is not the
 * host's. vigil reads them through the process's root instead: an O_PATH
 * descriptor of /proc/PID/root, kept open, named /proc/self/fd/N, so that
 * the paths still resolve after the process exits (a leak's stack is
 * symbolized then) and /proc/PID is gone. */
#ifndef VIGIL_PROC_PROCINFO_H
#define VIGIL_PROC_PROCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_proc_where {
	pid_t ns_pid;		/* innermost NSpid (the pid itself when the
				 * process is in vigil's pid namespace) */
	char cgroup[256];	/* its cgroup v2 path ("/" at the root), or
				 * the v1 name=systemd one; "" unknown */
	bool other_root;	/* its root is not vigil's */
};

/* stat's st_dev as the kernel encodes a superblock's s_dev, which its
 * exec records and BPF programs give: major << 20 | minor */
static inline uint32_t vg_kernel_dev(dev_t d)
{
	return major(d) << 20 | minor(d);
}

/* Read now, while pid lives (/proc/PID/status, cgroup, root). */
int vg_proc_where(pid_t pid, struct vg_proc_where *out, struct vg_err *e);

/* Is pid's session led from outside its own pid namespace? Its innermost
 * NSsid is then 0: it was started, without setsid, under an init that has
 * no session of its own (a sandbox's pid 1, a container entered from the
 * host). CRIU cannot dump such a process, --shell-job or not. */
bool vg_proc_session_outside(pid_t pid);

/* The prefix of the paths pid names, from vigil: "" when its root is
 * vigil's, else "/proc/self/fd/N" (the descriptor is kept; a pid reused by
 * another process gets a new one). Returns 0, or -1 with e set. */
int vg_proc_root_prefix(pid_t pid, char *out, size_t len, struct vg_err *e);
/* pid has ended: close its root's descriptor (paths under its prefix stop
 * resolving). */
void vg_proc_root_forget(pid_t pid);

#endif
