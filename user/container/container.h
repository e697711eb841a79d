/* vigil attach to a process in other namespaces (a container): the
 * reports name it by its pid there and its cgroup too, and say so once
 * at the start. A feature of the session (user/feature/feature.h): its
 * start hook reads where the target lives (proc/procinfo.h) and, when
 * that is not vigil's own namespaces, names processes in the run's
 * report (report/report.h's process namer); released frees it, after
 * the report is gone. vigil run and vigil watch (which names its
 * processes itself, user/watch/) leave it idle. */
#ifndef VIGIL_CONTAINER_H
#define VIGIL_CONTAINER_H

struct vg_feature;
extern const struct vg_feature vg_container_feature;

#endif
