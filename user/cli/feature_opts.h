/* The features' own options (user/feature/feature.h) on run, attach and
 * watch: their getopt entries after a command's, their values handed to
 * the session as they were given, their lines in --help. */
#ifndef VIGIL_CLI_FEATURE_OPTS_H
#define VIGIL_CLI_FEATURE_OPTS_H

#include <getopt.h>
#include <stdio.h>

#include "feature/feature.h"

/* getopt's values for the features' options start here */
#define VG_FEATURE_OPT_BASE 3000

/* base (ended by a zero entry) and every feature's options after it: a
 * new array, or NULL when out of memory */
struct option *vg_cli_feature_options(const struct option *base);
/* getopt's c for a feature's option: its name and optarg into args[*n]
 * (args has room for one per argument of the command): 0; 2 after a
 * usage error (the option's check refused the argument, or vigil watch,
 * watch set, does not take it); -1 when c is not a feature's */
int vg_cli_feature_take(int c, const char *optarg,
			struct vg_feature_arg *args, int *n, const char *usage,
			bool watch);
/* the features' options, as --help lists them */
void vg_cli_feature_help(FILE *out);

#endif
