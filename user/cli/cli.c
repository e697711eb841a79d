#include "cli.h"

#include <stdio.h>
#include <string.h>

int vg_cli_fail(const struct vg_err *e)
{
	fprintf(stderr, "vigil: %s\n", e->msg);
	return e->exit_code ? e->exit_code : 3;
}

/* The error, the command's synopsis (the first line of its usage) and
 * where the rest is: a page of options would bury the one line that
 * matters. */
int vg_cli_usage(const char *usage, const char *fmt, const char *arg)
{
	const char *nl = strchr(usage, '\n');
	int len = nl ? (int)(nl - usage) : (int)strlen(usage);
	const char *cmd = strstr(usage, "vigil ");
	int clen = 0;

	while (cmd && cmd[6 + clen] && cmd[6 + clen] != ' ' &&
	       cmd[6 + clen] != '\n')
		clen++;
	fprintf(stderr, "vigil: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%.*s\n", len, usage);
	if (cmd && clen)
		fprintf(stderr, "(vigil %.*s --help lists the options)\n",
			clen, cmd + 6);
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
