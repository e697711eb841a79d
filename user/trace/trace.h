/* Traces: sequences of events read back offline by `vigil check`.
 *
 *  - CSV, the runtime-verification-competition format: one event a line,
 *    `name,value,value,...`; the spec declares `event name(a, b)` to give
 *    the fields positions. Values are integers (decimal, 0x hex, negative)
 *    or strings (bare or "quoted", "" for a quote inside).
 *  - vigil's own recordings (`vigil run --record FILE`): a header naming
 *    the events, then fixed-size binary records.
 */
#ifndef VIGIL_TRACE_H
#define VIGIL_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "monitor/monitor.h"

struct vg_trace;

/* The longest CSV line read: past it the file is not a CSV trace (a
 * binary file, a device), an error naming the file, line and byte. */
#define VG_TRACE_LINE_MAX 65536

/* Open a trace for the events of spec; the format is detected from the
 * first bytes. */
struct vg_trace *vg_trace_open(struct vg_spec *spec, const char *path,
			       struct vg_err *e);
void vg_trace_close(struct vg_trace *t);

/* Next event of the spec: 1 and *ev filled, 0 at the end, -1 with e set
 * (naming the file and line) on a malformed trace. Events the spec does
 * not use are skipped and counted. */
int vg_trace_next(struct vg_trace *t, struct vg_mon_event *ev,
		  struct vg_err *e);
uint64_t vg_trace_skipped(const struct vg_trace *t);
/* The first skipped line of a CSV trace, cut to ~50 characters, and its
 * number; NULL when none was (or the trace is a recording) */
const char *vg_trace_first_skipped(const struct vg_trace *t,
				   uint64_t *lineno);
bool vg_trace_is_csv(const struct vg_trace *t);

/* Parse one CSV line (without its newline) into ev; exposed for tests and
 * the fuzzer. Returns 1 on an event of the spec, 0 for a blank line or an
 * event the spec does not use, -1 (e set, "LINE: ...") when malformed. */
int vg_csv_parse_line(struct vg_spec *spec, const char *line, size_t len,
		      uint64_t lineno, struct vg_mon_event *ev,
		      struct vg_err *e);

/* --- recording ---------------------------------------------------------- */
#define VG_REC_MAGIC "VIGILREC"
#define VG_REC_VERSION 3	/* 2: captures (p->field values); 3: strings
				 * (str(p)); 2 is still read */

struct vg_recorder;

struct vg_recorder *vg_recorder_open(const struct vg_spec *spec,
				     const char *path, uint32_t pid,
				     struct vg_err *e);
int vg_recorder_write(struct vg_recorder *r, const struct vg_mon_event *ev);
int vg_recorder_close(struct vg_recorder *r, struct vg_err *e);

#endif
