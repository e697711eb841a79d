/* What the command implementations in user/cli/ share: printing an error
 * with its exit status, a usage error, loading the SPEC arguments. */
#ifndef VIGIL_CLI_H
#define VIGIL_CLI_H

#include "spec/spec.h"

/* Print e and return its exit status (3 when unset). */
int vg_cli_fail(const struct vg_err *e);
/* Print "vigil: MSG" (printf-style with one string argument) and the
 * usage text; return 2. */
int vg_cli_usage(const char *usage, const char *fmt, const char *arg);
/* Load SPEC files in order into spec. */
int vg_cli_load_specs(struct vg_spec *spec, int n, char **files,
		      struct vg_err *e);

#endif
