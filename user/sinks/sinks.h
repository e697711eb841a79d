/* --metrics ADDR:PORT and --journal[=FILE]: where operators look (docs/
 * OPERATIONS.md). A feature of the session (user/feature/feature.h):
 * the Prometheus body of the run's counts, built about once a second and
 * served by user/metrics/ (or written to the agent's --metrics-file), and
 * each violation, checkpoint, start and end sent to journald with
 * VIGIL_* fields (user/report/oplog.h). */
#ifndef VIGIL_SINKS_H
#define VIGIL_SINKS_H

struct vg_feature;
extern const struct vg_feature vg_sinks_feature;

#endif
