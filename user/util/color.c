/* Colors: a switch the CLI sets once, and the escapes. */
#include "color.h"

static bool enabled;

void vg_color_enable(bool on)
{
	enabled = on;
}

const char *vg_color(enum vg_color c)
{
	static const char *const esc[] = {
		[VG_COLOR_END] = "\033[0m",
		[VG_COLOR_RED] = "\033[1;31m",
		[VG_COLOR_YELLOW] = "\033[33m",
	};

	return enabled ? esc[c] : "";
}
