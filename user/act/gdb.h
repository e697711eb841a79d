/* The gdb hand-off: what a user types to debug a target vigil stopped. */
#ifndef VIGIL_GDB_H
#define VIGIL_GDB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/err.h"

/* Write a gdb command file (private to the user) that, once gdb attaches
 * to the stopped pid:
 *  - lets the process run again under gdb: gdb cannot resume a
 *    SIGSTOPped process until it gets SIGCONT (DESIGN.md), so SIGCONT is
 *    passed silently and sent;
 *  - selects thread tid, the one that hit the violation, so `bt`,
 *    `next` and `step` start at the bad call;
 *  - prints `why` (one line, the violation).
 * cmd receives the command to type: "gdb -p PID -x FILE". */
int vg_gdb_prepare(pid_t pid, pid_t tid, const char *why, char *cmd,
		   size_t len, struct vg_err *e);
/* RUNDIR/name, a gdb command file only the user can read (it names the
 * target), opened for writing; its path into path. NULL with e set. */
FILE *vg_gdb_cmdfile(const char *name, char *path, size_t plen,
		     struct vg_err *e);
/* The same, for a thread an exact stop left at the call into the
 * function (step_to: the probed address, 0 = none): the file steps the
 * call first, so that gdb shows the function with none of it run. */
int vg_gdb_prepare_at(pid_t pid, pid_t tid, const char *why,
		      uint64_t step_to, char *cmd, size_t len,
		      struct vg_err *e);

/* A stop that landed at a jmp's target (probe/jmp_stop.h): when the
 * thread's pc is target, the file sets it back to jmp, which the jmp
 * alone had changed. */
struct vg_gdb_pc_mend {
	uint64_t target, jmp;
};
#define VG_GDB_MAX_MENDS 8
/* vg_gdb_prepare_at with up to VG_GDB_MAX_MENDS of them */
int vg_gdb_prepare_mend(pid_t pid, pid_t tid, const char *why,
			uint64_t step_to, const struct vg_gdb_pc_mend *m,
			int nmend, char *cmd, size_t len, struct vg_err *e);

#endif
