/* Error reporting for library code: a function that fails fills a struct
 * vg_err and returns -1 (or NULL). Only the CLI decides what to print and
 * which exit status to use; library code never calls exit(). */
#ifndef VIGIL_ERR_H
#define VIGIL_ERR_H

#include <stdarg.h>

/* Exit statuses, the contract of the man page (EXIT STATUS). */
enum {
	VG_EXIT_OK = 0,		/* no error found */
	VG_EXIT_VIOLATION = 1,	/* an error found: a violation, a verdict at the end */
	VG_EXIT_USAGE = 2,	/* bad usage or a bad spec */
	VG_EXIT_RUNTIME = 3,	/* no permission, missing kernel feature, ... */
};

struct vg_err {
	int exit_code;		/* one of VG_EXIT_*, for the CLI */
	char msg[4096];
};

/* Set the message (printf-style), mark it a runtime failure, return -1. */
int vg_errf(struct vg_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same, choosing the exit status. */
int vg_errf_code(struct vg_err *e, int exit_code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
