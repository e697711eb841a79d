/* What the command implementations in user/cli/ share: printing an error
 * with its exit status, a usage error, the -D defines, loading the SPEC
 * arguments. */
#ifndef VIGIL_CLI_H
#define VIGIL_CLI_H

#include "spec/spec.h"

/* Print e and return its exit status (3 when unset). */
int vg_cli_fail(const struct vg_err *e);
/* Print "vigil: MSG" (printf-style with one string argument) and the
 * usage text; return 2. */
int vg_cli_usage(const char *usage, const char *fmt, const char *arg);
/* Only the synopsis and where the options are (getopt has said what was
 * wrong); return 2. */
int vg_cli_synopsis(const char *usage);

/* -D NAME=VALUE and --define NAME=VALUE, in the order given; v has room
 * for one per argument of the command (the caller sizes it by argc). */
struct vg_cli_defs {
	const char **v;
	int n;
};
/* Take one -D argument: 0, or 2 after a usage error (no '='). */
int vg_cli_add_define(struct vg_cli_defs *d, const char *arg,
		      const char *usage);
/* Set the defines (may be NULL), load the SPEC files in order, and check
 * that every define named a parameter some file declares. */
int vg_cli_load_specs(struct vg_spec *spec, int n, char **files,
		      const struct vg_cli_defs *defs, struct vg_err *e);

/* --error-exitcode N (memcheck's option): the exit status of a run
 * whose ERROR SUMMARY counts errors, 0 to 255. 0, or 2 after a usage
 * error. */
int vg_cli_error_exitcode(const char *arg, const char *usage, int *out);
/* A command's status: an error found (VG_EXIT_VIOLATION) as the user
 * asked it to read (error_exitcode); any other as it is. */
int vg_cli_status(int rc, int error_exitcode);

/* --on-violation PROP=REACTION (args: n of them), after the specs are
 * loaded: that property's default reaction. one_process: checkpoint and
 * gdb are allowed (not under watch or --follow-fork). 0, or -1 with e set. */
int vg_cli_apply_reactions(struct vg_spec *spec, int n, const char **args,
			   bool one_process, struct vg_err *e);

#endif
