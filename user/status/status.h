/* The status line: what a person watching a run on a terminal sees, its
 * last line redrawn at most 4 times a second (events/s, live slices per
 * property, lost events, probes attached). A feature of the session
 * (user/feature/feature.h): it takes stderr over before any other module
 * opens (its prepare hook), so that whatever vigil prints clears the line
 * first (term.h), draws no more once gdb has the terminal, and gives
 * stderr back last of all. Off a terminal, with --quiet, or with JSON
 * lines on the same terminal (the run's `live` option) it does nothing. */
#ifndef VIGIL_STATUS_H
#define VIGIL_STATUS_H

struct vg_feature;
extern const struct vg_feature vg_status_feature;

#endif
