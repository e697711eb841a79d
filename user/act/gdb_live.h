/* gdb joining a live session (vigil run/attach --interactive, the `gdb`
 * reaction under --interactive): a command file that loads vigil's gdb
 * extension (scripts/gdb/vigil.py), connects it to the session's control
 * socket and makes vigil's SIGSTOPs breakpoint-like stops. */
#ifndef VIGIL_GDB_LIVE_H
#define VIGIL_GDB_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

/* Write RUNDIR/gdb-live-PID.gdb for the session of pid whose control
 * socket is sock; cmd gets the command that starts gdb with it. */
int vg_gdb_prepare_live(pid_t pid, const char *sock, char *cmd, size_t len,
			struct vg_err *e);
/* scripts/gdb/vigil.py beside the vigil binary (act/gdb.c). */
bool vg_gdb_find_extension(char *out, size_t len);

#endif
