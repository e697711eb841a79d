/* Colors in what vigil writes to stderr: a VIOLATION header in red,
 * warnings in yellow. Off unless the CLI turns them on (stderr is a
 * terminal and NO_COLOR is unset), so a log file, a pipe or a test
 * reading stderr gets plain text. */
#ifndef VIGIL_COLOR_H
#define VIGIL_COLOR_H

#include <stdbool.h>

enum vg_color {
	VG_COLOR_END,		/* back to plain */
	VG_COLOR_RED,		/* violations */
	VG_COLOR_YELLOW,	/* warnings */
};

void vg_color_enable(bool on);
/* The escape that starts c, or "" when colors are off. */
const char *vg_color(enum vg_color c);

#endif
