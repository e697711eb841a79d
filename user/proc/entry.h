/* vigil run --interactive: the program stopped at its first instruction,
 * as `gdb --args` + `starti` leaves it, for gdb to attach to. */
#ifndef VIGIL_PROC_ENTRY_H
#define VIGIL_PROC_ENTRY_H

#include <sys/types.h>

#include "util/err.h"

/* pid is vigil's child, stopped before its exec (vg_proc_spawn_stopped):
 * let it exec and leave it in a group stop (SIGSTOP) at the first
 * instruction of the new program, untraced. */
int vg_proc_release_at_entry(pid_t pid, struct vg_err *e);
/* Its first half: pid seized (PTRACE_SEIZE, PTRACE_O_TRACEEXEC), let
 * exec, and left in the exec's event stop, still traced by the caller
 * (the in-process tier runs it on to the entry point, user/fast/) */
int vg_proc_run_to_exec(pid_t pid, struct vg_err *e);

#endif
