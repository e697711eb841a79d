/* Where operators look (--journal): verdicts and lifecycle messages as
 * journald entries with structured fields (VIGIL_PROPERTY, VIGIL_SLICE,
 * VIGIL_STATE, VIGIL_PID, VIGIL_CONTAINER, ...) when journald runs (its
 * socket, /run/systemd/journal/socket, exists when vigil starts), and as
 * JSON lines with the same fields otherwise (a file, or stdout). */
#ifndef VIGIL_OPLOG_H
#define VIGIL_OPLOG_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct vg_oplog;

/* json_path: the JSON lines' file when journald is not there ("-" or
 * NULL: stdout); force_json: JSON lines even when it is. */
struct vg_oplog *vg_oplog_open(const char *json_path, int force_json,
			       struct vg_err *e);
/* "journald" or "JSON lines on PATH": said once at start. */
const char *vg_oplog_where(const struct vg_oplog *l);

/* One entry: priority as syslog's (3 error, 4 warning, 5 notice, 6
 * info), the human message, then field names (upper case, journald's
 * rules) and values: "VIGIL_PID", "123", ..., NULL. */
void vg_oplog_send(struct vg_oplog *l, int priority, const char *message,
		   ...);
void vg_oplog_close(struct vg_oplog *l);

#endif
