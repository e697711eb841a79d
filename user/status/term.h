/* The status line on the terminal (private to user/status/, whose
 * status.c writes its figures): the last line of the terminal while vigil
 * runs, redrawn in place (carriage return, clear to the end of the line)
 * at most 4 times a second.
 *
 * Everything else vigil says goes to stderr too, from many modules
 * (reports, warnings, libbpf). So the status takes stderr over: while it
 * lives, `stderr` is a stream that clears the status line before it
 * writes, and the next redraw puts the line back under what was written.
 * Lines never mix, and no module needs to know about the status. */
#ifndef VIGIL_STATUS_TERM_H
#define VIGIL_STATUS_TERM_H

#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"

#define VG_STATUS_GAP_NS 250000000ull	/* at most 4 redraws a second */

struct vg_status;

/* Take stderr over; stderr must be a terminal (the caller checks). NULL
 * with e set when the stream cannot be made. */
struct vg_status *vg_status_new(struct vg_err *e);
/* Clear the line and give stderr back. NULL is fine. Only at the end:
 * modules keep the stream they were given (a report's `text`), so it
 * lives as long as they do. */
void vg_status_free(struct vg_status *st);
/* Clear the line and draw it no more (the terminal is gdb's now); stderr
 * stays this stream, which only passes writes on, until vg_status_free.
 * NULL is fine. */
void vg_status_hide(struct vg_status *st);

/* The columns a status line may take (the terminal's, less one). */
int vg_status_width(const struct vg_status *st);
/* Is a redraw due at now_ns (CLOCK_MONOTONIC)? */
bool vg_status_due(const struct vg_status *st, uint64_t now_ns);
/* Show text (one line, no newline) as the status, cut to the terminal's
 * width so that it never wraps; now_ns starts the next gap. Not drawn
 * while some other output has left a line unfinished. */
void vg_status_show(struct vg_status *st, const char *text, uint64_t now_ns);

#endif
