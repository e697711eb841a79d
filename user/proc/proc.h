/* The target process: starting it under vigil's control, watching it end,
 * stopping and resuming it. */
#ifndef VIGIL_PROC_H
#define VIGIL_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

/* Fork a child that will exec argv[0] (already resolved to an absolute
 * path in `path`). The child is left stopped before exec, so probes can be
 * attached before its first instruction; vg_proc_release lets it go.
 *
 * The child runs in a session of its own: when vigil exits and leaves it
 * stopped for a debugger, no SIGHUP/SIGCONT from an orphaned process group
 * may wake or kill it. no_aslr: run it without address-space layout
 * randomization, so addresses repeat from run to run. */
pid_t vg_proc_spawn_stopped(const char *path, char *const argv[],
			    bool no_aslr, struct vg_err *e);
int vg_proc_release(pid_t pid, struct vg_err *e);

/* In a child about to exec: unblock every signal. vigil blocks the ones
 * it takes through a signalfd (and SIGUSR1/SIGUSR2 from its start), and a
 * blocked mask survives exec. */
void vg_proc_unblock_signals(void);

/* Kill a child we started and wait for it. */
void vg_proc_kill_child(pid_t pid);

/* The executable of a running process, absolute (PATH_MAX bytes). Fails
 * with a clear message when the process does not exist or may not be
 * traced by us. */
/* The threads of pid into out[0..max) (out may be NULL: count only):
 * how many it has, or -1 when it is gone. */
int vg_proc_threads(pid_t pid, pid_t *out, int max);

/* A thread of pid (stopped) whose next instruction is in the [uprobes]
 * page (a uretprobe's return trampoline), or 0. CRIU does not restore
 * that page, so an image taken then would crash on restore. */
int vg_proc_in_uprobe_page(pid_t pid);

/* The [uprobes] page of pid (the uretprobe trampoline is at its start):
 * [lo, hi), or false when it has none yet. */
bool vg_proc_uprobes_page(pid_t pid, uint64_t *lo, uint64_t *hi);

int vg_proc_exe(pid_t pid, char *out, struct vg_err *e);

/* A pollable descriptor that becomes readable when pid exits. */
int vg_proc_pidfd(pid_t pid, struct vg_err *e);

/* Reap a child that exited; fills exit code or signal. Returns 1 when it
 * has exited, 0 if not yet, -1 on error. */
int vg_proc_reap(pid_t pid, int *code, int *sig);

/* A pid field of /proc/PID/status ("TracerPid:", "PPid:"), or 0. */
pid_t vg_proc_status_pid(pid_t pid, const char *field);
/* The process tracing pid (TracerPid: gdb, say), or 0. */
pid_t vg_proc_tracer(pid_t pid);

/* Is a SIGSTOP pending for pid or one of its threads (about to stop it)? */
bool vg_proc_stop_pending(pid_t pid);

/* The state letter of /proc/ID/stat (R, S, T, t, Z...) of a process or
 * of one of its threads (a thread id works too); 0 when it is gone. */
char vg_proc_state(pid_t id);

/* Field N (proc(5)'s numbering, 3 or more: 22 starttime, 47 start_brk)
 * of /proc/ID/stat as a number; 0 when it is gone or has none. */
uint64_t vg_proc_stat_u64(pid_t id, int field);

/* Is the process in a stopped state (T) right now? */
bool vg_proc_is_stopped(pid_t pid);

/* Stop every thread of the process (SIGSTOP) and wait until it is; fails
 * when the process is exiting and cannot stop any more. */
int vg_proc_stop(pid_t pid, struct vg_err *e);

#endif
