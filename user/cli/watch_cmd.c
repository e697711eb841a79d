/* vigil watch: its options, into user/watch/watch.h. */
#include "cli/watch_cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/feature_opts.h"
#include "cli/usage.h"
#include "spec/spec.h"
#include "util/caps.h"
#include "watch/watch.h"

static const struct option opts[] = {
	{ "exe", required_argument, 0, 'x' },
	{ "lib-mapped", required_argument, 0, 'l' },
	{ "same-build", no_argument, 0, 'B' },
	{ "max-procs", required_argument, 0, 'n' },
	{ "define", required_argument, 0, 'D' },
	{ "quiet", no_argument, 0, 'q' },
	{ "json", required_argument, 0, 'j' },
	{ "tier", required_argument, 0, 't' },
	{ "on-violation", required_argument, 0, 'v' },
	{ "max-slices", required_argument, 0, 'm' },
	{ "ringbuf-size", required_argument, 0, 'r' },
	{ "evidence", required_argument, 0, 'E' },
	{ "stacks", no_argument, 0, 'K' },
	{ "lib", required_argument, 0, 'L' },
	{ "checkpoint-dir", required_argument, 0, 'C' },
	{ "checkpoints", required_argument, 0, 'N' },
	{ "checkpoint-gap", required_argument, 0, 'G' },
	/* vigil run's, not watch's yet: taken so that the session says why
	 * (watch/watch_session.c), not getopt "unrecognized" */
	{ "dynamic", no_argument, 0, 'Y' },
	{ "interactive", no_argument, 0, 'I' },
	{ "record", required_argument, 0, 'R' },
	/* the agent's, for the sessions it starts (not in the usage) */
	{ "unit", required_argument, 0, 'U' },
	{ "error-exitcode", required_argument, 0, 1005 },
	{ "help", no_argument, 0, 'h' },
	{ 0 },
};

/* a positive count below max, or 0 */
static unsigned long long count_of(const char *s, unsigned long long max)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	return *end || end == s || v > max ? 0 : v;
}

/* --on-violation PROP=gdb: gdb takes one process (checkpoint, per
 * process, is watch's: user/ckpt/watch_ckpt.c) */
static int no_gdb(const struct vg_spec *spec, int n, const char **args,
		  struct vg_err *e)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(strchr(args[i], '=') + 1, "gdb"))
			return vg_errf_code(e, VG_EXIT_USAGE, "--on-violation %s: gdb takes one process; vigil watch leaves the violating process stopped and prints the gdb command for it (PROP=stop)",
					    args[i]);
	return 0;
}

int vg_cmd_watch(int argc, char **argv)
{
	const char *usage = vg_usage_watch;
	const char *libs[argc], *defv[argc], *reactv[argc];
	int nreacts = 0;
	char *specs[argc];
	struct vg_cli_defs defs = { defv, 0 };
	struct vg_watch_opts o = { .session = { .checkpoint_gap_ms = 500,
			.error_exitcode = VG_EXIT_VIOLATION } };
	struct vg_session_opts *so = &o.session;
	struct vg_err e = { 0 };
	struct vg_spec *spec;
	unsigned long long n;
	struct vg_feature_arg fargs[argc];
	static struct option *all;	/* as vg_cmd_run keeps its */
	int c, nspecs = 0, rc;

	if (!all && !(all = vg_cli_feature_options(opts)))
		return 3;
	so->fopts = fargs;
	optind = 1;
	for (;;) {
		c = getopt_long(argc, argv, "+hqD:", all, NULL);
		if (c == -1) {
			if (optind >= argc)
				break;
			specs[nspecs++] = argv[optind++];
			continue;
		}
		if ((rc = vg_cli_feature_take(c, optarg, fargs, &so->nfopts,
					      usage, true)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'x':
		case 'l':
			if (o.exe)
				return vg_cli_usage(usage, "%s", "one --exe or --lib-mapped at a time");
			o.exe = optarg;
			o.lib = c == 'l';
			break;
		case 'B':
			o.same_build = true;
			break;
		case 'n':
			if (!(n = count_of(optarg, 65536)))
				return vg_cli_usage(usage, "--max-procs: '%s' is not a count from 1 to 65536", optarg);
			o.max_procs = (unsigned)n;
			break;
		case 'D':
			if ((rc = vg_cli_add_define(&defs, optarg, usage)))
				return rc;
			break;
		case 'q':
			so->quiet = true;
			break;
		case 'j':
			so->json_path = optarg;
			break;
		case 't':
			if (!strcmp(optarg, "user") || !strcmp(optarg, "auto"))
				so->tier = VG_TIER_USER;
			else if (!strcmp(optarg, "kernel"))
				so->tier = VG_TIER_KERNEL;
			else
				return vg_cli_usage(usage, "--tier: '%s' is not auto, user or kernel", optarg);
			break;
		case 'v':
			if (strchr(optarg, '=')) {	/* PROP=REACTION */
				reactv[nreacts++] = optarg;
				break;
			}
			if (!strcmp(optarg, "stop"))
				so->on_violation = VG_OV_STOP;
			else if (!strcmp(optarg, "continue"))
				so->on_violation = VG_OV_CONTINUE;
			else if (!strcmp(optarg, "kill"))
				so->on_violation = VG_OV_KILL;
			else if (!strcmp(optarg, "checkpoint"))
				so->on_violation = VG_OV_CHECKPOINT;
			else if (!strcmp(optarg, "gdb"))
				return vg_cli_usage(usage, "%s", "--on-violation gdb: gdb takes one process; vigil watch leaves the violating process stopped and prints the gdb command for it (--on-violation stop)");
			else
				return vg_cli_usage(usage, "--on-violation: '%s' is not stop, continue, kill or checkpoint", optarg);
			break;
		case 'C':
			so->checkpoint_dir = optarg;
			break;
		case 'N':
			if (!(n = count_of(optarg, 100000)))
				return vg_cli_usage(usage, "--checkpoints: '%s' is not a count from 1 to 100000", optarg);
			so->checkpoints = (int)n;
			break;
		case 'G': {
			char *end;

			so->checkpoint_gap_ms = strtoull(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-')
				return vg_cli_usage(usage, "--checkpoint-gap: '%s' is not a number of milliseconds", optarg);
			break;
		}
		case 'Y':
			so->dynamic = true;
			break;
		case 'I':
			so->interactive = true;
			break;
		case 'R':
			so->record_path = optarg;
			break;
		case 'm':
			if (!(n = count_of(optarg, UINT32_MAX)))
				return vg_cli_usage(usage, "--max-slices: '%s' is not a positive count", optarg);
			so->max_slices = (uint32_t)n;
			break;
		case 'r':
			if ((n = count_of(optarg, 1ull << 30)) < 4096 ||
			    (n & (n - 1)))
				return vg_cli_usage(usage, "--ringbuf-size: '%s' is not a power of two of at least 4096 bytes", optarg);
			so->ringbuf_bytes = n;
			break;
		case 'E':
			if (!(n = count_of(optarg, 100000)))
				return vg_cli_usage(usage, "--evidence: '%s' is not a count from 1 to 100000", optarg);
			so->evidence = (int)n;
			break;
		case 'K':
			so->stacks = true;
			break;
		case 'L':
			libs[so->nlibs++] = optarg;
			so->libs = libs;
			break;
		case 'U':
			so->unit = optarg;
			break;
		case 1005:
			if ((rc = vg_cli_error_exitcode(optarg, usage,
							&so->error_exitcode)))
				return rc;
			break;
		case 'h':
			fputs(usage, stdout);
			vg_cli_feature_help(stdout);
			return 0;
		default:
			return vg_cli_synopsis(usage);
		}
	}
	if (!o.exe)
		return vg_cli_usage(usage, "%s", "no --exe PATH (or --lib-mapped PATH) given: the executable (library) whose processes to watch");
	if (nspecs == 0)
		return vg_cli_usage(usage, "%s", "no SPEC given");
	spec = vg_spec_new();
	if (!spec)
		return 3;
	if (vg_cli_load_specs(spec, nspecs, specs, &defs, &e) ||
	    vg_cli_apply_reactions(spec, nreacts, reactv, true, &e) ||
	    no_gdb(spec, nreacts, reactv, &e) ||
	    vg_check_privileges(&e)) {
		vg_spec_free(spec);
		return vg_cli_fail(&e);
	}
	rc = vg_watch_run(spec, &o, &e);
	vg_spec_free(spec);
	return rc < 0 ? vg_cli_fail(&e) : vg_cli_status(rc, so->error_exitcode);
}
