/* Bounded line reading for the text readers (CSV traces, the monitor state
 * of a checkpoint): a file with an endless line (a binary file, a device
 * such as /dev/zero) must end in a clear error, not in memory use without
 * bound. */
#ifndef VIGIL_UTIL_LINES_H
#define VIGIL_UTIL_LINES_H

#include <stdio.h>
#include <sys/types.h>

/* The next line of f into *buf (grown as needed, at most max bytes plus
 * the NUL), without its newline; its length in *len. Returns 1 for a
 * line, 0 at the end of the file, -1 when the line is longer than max
 * bytes (the rest of it is left unread). */
int vg_read_line(FILE *f, char **buf, size_t *cap, size_t max, size_t *len);

/* The index of the first byte of s[0..len) that no text file has (NUL
 * and the control characters other than tab, CR, FF and VT), or -1. */
ssize_t vg_not_text(const char *s, size_t len);

#endif
