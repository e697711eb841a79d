/* What a person watching a run sees of it, two features of the session
 * (user/feature/feature.h).
 *
 * The status line (status.c): its last line redrawn at most 4 times a
 * second (events/s, live slices per property, lost events, probes
 * attached). It takes stderr over before any other module opens (its
 * prepare hook), so that whatever vigil prints clears the line first
 * (term.h), draws no more once gdb has the terminal, and gives stderr
 * back last of all. Off a terminal, with --quiet, or with JSON lines on
 * the same terminal (the run's `live` option) it does nothing.
 *
 * The monitor on demand (monitor_dump.c): `kill -USR1` on a running
 * vigil prints every live slice of every monitored process on stderr;
 * registered before the features whose dump follows it (the leak
 * check's). */
#ifndef VIGIL_STATUS_H
#define VIGIL_STATUS_H

struct vg_feature;
extern const struct vg_feature vg_status_feature;
extern const struct vg_feature vg_monitor_dump_feature;

#endif
