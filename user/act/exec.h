/* The `exec "cmd"` action: run a command about the event that moved a
 * slice (page someone, collect a core) without holding up the monitor. */
#ifndef VIGIL_EXEC_H
#define VIGIL_EXEC_H

#include <sys/types.h>

#include "monitor/monitor.h"

/* Runs `sh -c cmd` detached (vigil does not wait for it; its output goes
 * to vigil's stderr) with, in its environment:
 *   VIGIL_PID       the target's pid
 *   VIGIL_TID       the thread of the event
 *   VIGIL_PROPERTY  the property's name
 *   VIGIL_STATE     the state the slice entered
 *   VIGIL_SLICE     the binding, "q=0x5614... i=3"
 *   VIGIL_JSON      all of it as one JSON object
 * Returns 0, or -1 with e set when the command could not be started. */
int vg_act_exec(const char *cmd, const struct vg_spec *spec, pid_t pid,
		const struct vg_slice_view *s, const struct vg_mon_event *ev,
		struct vg_err *e);

#endif
