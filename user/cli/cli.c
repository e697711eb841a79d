#include "cli.h"

#include <stdio.h>

int vg_cli_fail(const struct vg_err *e)
{
	fprintf(stderr, "vigil: %s\n", e->msg);
	return e->exit_code ? e->exit_code : 3;
}

int vg_cli_usage(const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "vigil: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n\n%s", usage);
	return 2;
}

int vg_cli_load_specs(struct vg_spec *spec, int n, char **files,
		      struct vg_err *e)
{
	for (int i = 0; i < n; i++)
		if (vg_spec_load_file(spec, files[i], e))
			return -1;
	return 0;
}
