#include "err.h"

#include <stdio.h>

static int vg_verrf(struct vg_err *e, int code, const char *fmt, va_list ap)
{
	if (!e)
		return -1;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	e->exit_code = code;
	return -1;
}

int vg_errf(struct vg_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vg_verrf(e, VG_EXIT_RUNTIME, fmt, ap);
	va_end(ap);
	return -1;
}

int vg_errf_code(struct vg_err *e, int exit_code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vg_verrf(e, exit_code, fmt, ap);
	va_end(ap);
	return -1;
}
