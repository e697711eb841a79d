/* The monitor's state beside a checkpoint image: every slice (its
 * property, binding, state and variables), every global, from both tiers.
 * A process restored from an image must be monitored from the same moment,
 * or the verdicts are wrong: a queue restored with 8 items in it and a
 * monitor that counts 0 would never see the overflow.
 *
 * Text, one record a line, names rather than indices so that a state file
 * is refused (not misread) by a spec whose properties or states differ:
 *   vigil-monitor-state 1
 *   slice PROP MASK STATE INCONC P0 P1 P2 P3 V0 V1 ...
 *   global PROP INDEX VALUE
 *   unloaded PROP                (a property given at the start and
 *                                 unloaded since: live_load.c)
 * then, for each spec file added with `vigil load` (live_load.c), a
 * section of its own, which vg_monstate_load stops at (the session's
 * spec has not those properties):
 *   loaded /abs/path/of/spec.vigil
 *   define NAME=VALUE            (its -D, as given; any number)
 *   properties NAME...           (the properties the file has)
 *   slice ... / global ...       (as above, that file's properties)
 */
#ifndef VIGIL_MONSTATE_H
#define VIGIL_MONSTATE_H

#include <stdbool.h>
#include <stdio.h>

#include "monitor/monitor.h"
#include "probe/probe.h"

/* kernel[prop]: the property runs in the kernel tier; its slices are read
 * from (and written to) the probe's slice table, the others from the
 * monitor. probe may be NULL when no property is in the kernel tier. */
int vg_monstate_write(FILE *out, const struct vg_spec *spec,
		      struct vg_monitor *mon, const struct vg_probe *probe,
		      const bool *kernel, struct vg_err *e);
/* vigil watch: the state of one watched process, as a one-process
 * state (vg_monstate_load reads it like any): mon is its monitor, and of
 * the kernel table (slices keyed by process) only its slices. */
int vg_monstate_write_proc(FILE *out, const struct vg_spec *spec,
			   struct vg_monitor *mon, const struct vg_probe *probe,
			   const bool *kernel, pid_t tgid, struct vg_err *e);
int vg_monstate_load(const char *path, const struct vg_spec *spec,
		     struct vg_monitor *mon, struct vg_probe *probe,
		     const bool *kernel, struct vg_err *e);

#endif
