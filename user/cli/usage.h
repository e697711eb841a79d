/* The help texts of vigil and of each command (user/cli/usage.c): what
 * `vigil --help` and `vigil CMD --help` print. Their first line is the
 * synopsis a usage error repeats (vg_cli_usage). docs/vigil.1 says the
 * same at more length: change both together. */
#ifndef VIGIL_USAGE_H
#define VIGIL_USAGE_H

extern const char vg_usage_main[];
extern const char vg_usage_run[];
extern const char vg_usage_attach[];
extern const char vg_usage_watch[];
extern const char vg_usage_check[];
extern const char vg_usage_graph[];
extern const char vg_usage_lint[];
extern const char vg_usage_restore[];
extern const char vg_usage_checkpoint[];
extern const char vg_usage_ctl[];
extern const char vg_usage_agent[];
extern const char vg_usage_view[];
extern const char vg_usage_doctor[];

/* The help of command `cmd`, or NULL when there is no such command. */
const char *vg_usage_of(const char *cmd);

#endif
