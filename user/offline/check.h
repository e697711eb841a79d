/* `vigil check`: the monitor over a recorded or CSV trace, no kernel
 * involved. Same verdicts and JSON as a live run. */
#ifndef VIGIL_CHECK_H
#define VIGIL_CHECK_H

#include <stdint.h>

#include "spec/spec.h"

/* Returns VG_EXIT_OK or VG_EXIT_VIOLATION, or -1 with e set. */
int vg_check_trace(struct vg_spec *spec, const char *trace_path,
		   const char *json_path, struct vg_err *e);

/* For `vigil graph --trace`: run the trace through the monitor and mark,
 * per state (vg_dot_index order), whether some slice entered it and how
 * many slices ended in it. */
int vg_check_marks(struct vg_spec *spec, const char *trace_path,
		   uint8_t *reached, uint64_t *ended, struct vg_err *e);

#endif
