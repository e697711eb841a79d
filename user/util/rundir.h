/* A directory only the invoking user can read, for the files vigil leaves
 * behind for the user (gdb command files, by default checkpoints). */
#ifndef VIGIL_RUNDIR_H
#define VIGIL_RUNDIR_H

#include <stddef.h>

#include "err.h"

/* ${TMPDIR:-/tmp}/vigil-UID, created 0700; refused when it exists but is
 * not a directory owned by us with mode 0700 (someone could read or plant
 * files there). The first call also removes the files there of processes
 * that are gone and that no vigil serves (gdb-PID.gdb, violation-PID.json,
 * session-PID, ctl-PID.sock). */
int vg_rundir(char *out, size_t len, struct vg_err *e);
/* The same under /dev/shm when it is a tmpfs (checkpoints: memory-speed
 * dumps, as the i-RV paper took them), else vg_rundir. */
int vg_memdir(char *out, size_t len, struct vg_err *e);
/* BASE/vigil-UID, with the same checks. */
int vg_private_dir(const char *base, char *out, size_t len, struct vg_err *e);
/* mkdir -p PATH: each missing directory on the way made with mode 0700
 * (the checkpoint directories, the DWARF cache's). 0, or -1 with e set
 * naming the directory that could not be made. */
int vg_mkdir_p(const char *path, struct vg_err *e);

#endif
