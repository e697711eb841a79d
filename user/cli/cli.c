/* What the commands share: errors, usage errors, -D, loading specs. */
#include "cli.h"

#include "session/session.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int vg_cli_fail(const struct vg_err *e)
{
	fprintf(stderr, "vigil: %s\n", e->msg);
	return e->exit_code ? e->exit_code : 3;
}

/* The command's synopsis (the first line of its usage) and where the
 * rest is: a page of options would bury the one line that matters. */
int vg_cli_synopsis(const char *usage)
{
	const char *nl = strchr(usage, '\n');
	int len = nl ? (int)(nl - usage) : (int)strlen(usage);
	const char *cmd = strstr(usage, "vigil ");
	int clen = 0;

	while (cmd && cmd[6 + clen] && cmd[6 + clen] != ' ' &&
	       cmd[6 + clen] != '\n')
		clen++;
	fprintf(stderr, "%.*s\n", len, usage);
	if (cmd && clen && strncmp(cmd + 6, "COMMAND", 7))
		fprintf(stderr, "(vigil %.*s --help lists the options)\n",
			clen, cmd + 6);
	else
		fprintf(stderr, "(vigil --help lists the commands)\n");
	return 2;
}

int vg_cli_usage(const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "vigil: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return vg_cli_synopsis(usage);
}

int vg_cli_error_exitcode(const char *arg, const char *usage, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || *end || v < 0 || v > 255)
		return vg_cli_usage(usage, "--error-exitcode: '%s' is not an exit status from 0 to 255", arg);
	*out = (int)v;
	return 0;
}

int vg_cli_status(int rc, int error_exitcode)
{
	return rc == VG_EXIT_VIOLATION ? error_exitcode : rc;
}

int vg_cli_add_define(struct vg_cli_defs *d, const char *arg,
		      const char *usage)
{
	/* NAME=VALUE as cpp and bpftrace take it; an empty VALUE is a
	 * value (a string parameter may want it) */
	if (!strchr(arg, '=') || arg[0] == '=')
		return vg_cli_usage(usage, "-D '%s': expected NAME=VALUE", arg);
	d->v[d->n++] = arg;
	return 0;
}

int vg_cli_load_specs(struct vg_spec *spec, int n, char **files,
		      const struct vg_cli_defs *defs, struct vg_err *e)
{
	for (int i = 0; defs && i < defs->n; i++) {
		const char *eq = strchr(defs->v[i], '=');
		char *name = strndup(defs->v[i], (size_t)(eq - defs->v[i]));
		int rc;

		if (!name)
			return vg_errf(e, "out of memory");
		rc = vg_spec_define(spec, name, eq + 1, e);
		free(name);
		if (rc)
			return -1;
	}
	for (int i = 0; i < n; i++)
		if (vg_spec_load_file(spec, files[i], e))
			return -1;
	return vg_spec_check_defines(spec, e);
}

int vg_cli_apply_reactions(struct vg_spec *spec, int n, const char **args,
			   bool one_process, struct vg_err *e)
{
	static const char *const names[] = {
		[VG_OV_STOP] = "stop", [VG_OV_GDB] = "gdb",
		[VG_OV_CONTINUE] = "continue", [VG_OV_KILL] = "kill",
		[VG_OV_CHECKPOINT] = "checkpoint",
	};

	for (int i = 0; i < n; i++) {
		const char *eq = strchr(args[i], '='), *r = eq + 1;
		size_t len = (size_t)(eq - args[i]);
		int ov = -1, p;

		for (p = 0; p < spec->nprops; p++)
			if (strlen(spec->props[p].name) == len &&
			    !strncmp(spec->props[p].name, args[i], len))
				break;
		if (p == spec->nprops)
			return vg_errf_code(e, VG_EXIT_USAGE, "--on-violation %s: no property '%.*s' in the specs",
					    args[i], (int)len, args[i]);
		if (!strcmp(r, "log"))	/* the agent's word for continue */
			r = "continue";
		for (int k = 0; k < (int)(sizeof(names) / sizeof(names[0])); k++)
			if (names[k] && !strcmp(r, names[k]))
				ov = k;
		if (ov < 0)
			return vg_errf_code(e, VG_EXIT_USAGE, "--on-violation %s: '%s' is not stop, gdb, checkpoint, continue (log) or kill",
					    args[i], eq + 1);
		if ((ov == VG_OV_CHECKPOINT || ov == VG_OV_GDB) && !one_process)
			return vg_errf_code(e, VG_EXIT_USAGE, "--on-violation %s: checkpoint and gdb are for one process (not with watch or --follow-fork)",
					    args[i]);
		spec->props[p].has_on_violation = true;
		spec->props[p].on_violation = ov;
	}
	return 0;
}
