/* Up-front privilege checks, so a missing capability is named before
 * anything is loaded. */
#ifndef VIGIL_CAPS_H
#define VIGIL_CAPS_H

#include "err.h"

/* Checks CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (or root), perf events
 * (perf_event_paranoid, said with a missing capability), the BTF file and
 * uprobe events. On failure e says exactly what is missing; exit_code is
 * VG_EXIT_RUNTIME. */
int vg_check_privileges(struct vg_err *e);

#endif
