/* vigil run and vigil attach: their options, into a session. */
#include "cli/run_cmd.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/feature_opts.h"
#include "cli/usage.h"
#include "session/session.h"
#include "leaks/leaks.h"
#include "spec/spec.h"
#include "util/caps.h"

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static const struct option opts[] = {
	{ "define", required_argument, 0, 'D' },
	{ "quiet", no_argument, 0, 'q' },
	{ "json", required_argument, 0, 'j' },
	{ "tier", required_argument, 0, 't' },
	{ "on-violation", required_argument, 0, 'v' },
	{ "ringbuf-size", required_argument, 0, 'r' },
	{ "max-slices", required_argument, 0, 'm' },
	{ "pid", required_argument, 0, 'p' },
	{ "record", required_argument, 0, 'R' },
	{ "disable-aslr", no_argument, 0, 'A' },
	{ "follow-fork", no_argument, 0, 'F' },
	{ "dynamic", no_argument, 0, 'Y' },
	{ "checkpoint-dir", required_argument, 0, 'C' },
	{ "checkpoints", required_argument, 0, 'N' },
	{ "checkpoint-gap", required_argument, 0, 'G' },
	{ "snapshot", required_argument, 0, 'S' },
	{ "stacks", no_argument, 0, 'K' },
	{ "evidence", required_argument, 0, 'E' },
	{ "watch-policy", required_argument, 0, 'W' },
	{ "lib", required_argument, 0, 'L' },
	{ "interactive", no_argument, 0, 'I' },
	/* the agent's, for the sessions it starts (not in the usage) */
	{ "unit", required_argument, 0, 'U' },
	{ "error-exitcode", required_argument, 0, 1005 },
	{ "max-objects", required_argument, 0, 1006 },
	{ "help", no_argument, 0, 'h' },
	{ 0 },
};

/* One option into o; 0, or the exit status of a usage error (or -1 for
 * --help, printed). */
static int take(int c, struct vg_session_opts *o, struct vg_cli_defs *defs,
		const char **libs, struct vg_cli_defs *reacts, bool attach,
		const char *usage)
{
	char *end;
	size_t n;

	switch (c) {
	case 'D':
		return vg_cli_add_define(defs, optarg, usage);
	case 'q':
		o->quiet = true;
		break;
	case 'j':
		o->json_path = optarg;
		break;
	case 'R':
		o->record_path = optarg;
		break;
	case 'F':
		o->follow_forks = true;
		break;
	case 'Y':
		o->dynamic = true;
		break;
	case 'A':
		o->no_aslr = true;
		break;
	case 't':
		if (!strcmp(optarg, "auto"))
			o->tier = VG_TIER_AUTO;
		else if (!strcmp(optarg, "kernel"))
			o->tier = VG_TIER_KERNEL;
		else if (!strcmp(optarg, "user"))
			o->tier = VG_TIER_USER;
		else
			return vg_cli_usage(usage, "--tier: '%s' is not auto, kernel or user", optarg);
		break;
	case 'v':
		if (strchr(optarg, '=')) {	/* PROP=REACTION: once loaded */
			reacts->v[reacts->n++] = optarg;
			break;
		}
		if (!strcmp(optarg, "stop"))
			o->on_violation = VG_OV_STOP;
		else if (!strcmp(optarg, "gdb"))
			o->on_violation = VG_OV_GDB;
		else if (!strcmp(optarg, "continue"))
			o->on_violation = VG_OV_CONTINUE;
		else if (!strcmp(optarg, "kill"))
			o->on_violation = VG_OV_KILL;
		else if (!strcmp(optarg, "checkpoint"))
			o->on_violation = VG_OV_CHECKPOINT;
		else
			return vg_cli_usage(usage, "--on-violation: '%s' is not stop, gdb, checkpoint, continue or kill", optarg);
		break;
	case 'C':
		o->checkpoint_dir = optarg;
		break;
	case 'N':
		if (parse_size(optarg, &n) || !n || n > 100000)
			return vg_cli_usage(usage, "--checkpoints: '%s' is not a count from 1 to 100000", optarg);
		o->checkpoints = (int)n;
		break;
	case 'K':
		o->stacks = true;
		break;
	case 'I':
		o->interactive = true;
		break;
	case 'L':
		libs[o->nlibs++] = optarg;
		o->libs = libs;
		break;
	case 'W':
		if (!strcmp(optarg, "evict"))
			o->watch_evict = true;
		else if (strcmp(optarg, "refuse"))
			return vg_cli_usage(usage, "--watch-policy: '%s' is not refuse or evict", optarg);
		break;
	case 'E':
		if (parse_size(optarg, &n) || !n || n > 100000)
			return vg_cli_usage(usage, "--evidence: '%s' is not a count from 1 to 100000", optarg);
		o->evidence = (int)n;
		break;
	case 'S':
		if (!strcmp(optarg, "fork"))
			o->fork_snapshots = true;
		else if (strcmp(optarg, "criu"))
			return vg_cli_usage(usage, "--snapshot: '%s' is not criu or fork", optarg);
		break;
	case 'G':
		if (parse_size(optarg, &n))
			return vg_cli_usage(usage, "--checkpoint-gap: '%s' is not a number of milliseconds", optarg);
		o->checkpoint_gap_ms = n;
		break;
	case 'r':
		if (parse_size(optarg, &o->ringbuf_bytes) ||
		    o->ringbuf_bytes < 4096)
			return vg_cli_usage(usage, "--ringbuf-size: '%s' is not a size of at least 4K", optarg);
		break;
	case 'm':
		if (parse_size(optarg, &n) || !n || n > UINT32_MAX)
			return vg_cli_usage(usage, "--max-slices: '%s' is not a positive count", optarg);
		o->max_slices = n;
		break;
	case 1006:
		if (parse_size(optarg, &n) || !n || n > INT32_MAX)
			return vg_cli_usage(usage, "--max-objects: '%s' is not a positive count", optarg);
		o->max_objects = n;
		break;
	case 'p':
		if (!attach)
			return vg_cli_usage(usage, "%s", "-p is for vigil attach");
		o->pid = strtol(optarg, &end, 10);
		if (*end || o->pid <= 0)
			return vg_cli_usage(usage, "-p: '%s' is not a process id", optarg);
		break;
	case 'U':
		o->unit = optarg;
		break;
	case 1005:
		return vg_cli_error_exitcode(optarg, usage, &o->error_exitcode);
	case 'h':
		fputs(usage, stdout);
		vg_cli_feature_help(stdout);
		return -1;
	default:	/* getopt said what */
		return vg_cli_synopsis(usage);
	}
	return 0;
}

int vg_cmd_run(int argc, char **argv, bool attach)
{
	const char *usage = attach ? vg_usage_attach : vg_usage_run;
	const char *libs[argc], *defv[argc], *reactv[argc];	/* at most one per argument */
	char *specs[argc];
	struct vg_cli_defs defs = { defv, 0 }, reacts = { reactv, 0 };
	struct vg_session_opts o = { .checkpoint_gap_ms = 500,
				     .error_exitcode = VG_EXIT_VIOLATION };
	struct vg_err e = { 0 };
	struct vg_spec *spec;
	struct vg_feature_arg fargs[argc];
	/* kept (reachable) for the process's life: one command a process */
	static struct option *all;
	int c, nspecs = 0, rc;

	if (!all && !(all = vg_cli_feature_options(opts)))
		return 3;
	o.fopts = fargs;

	/* Options may come before, between and after the SPECs; for run
	 * the first -- ends them, and what follows is the program's (so
	 * getopt must not permute across it: "+" stops at each SPEC, which
	 * is taken here and the scan goes on). */
	optind = 1;
	for (;;) {
		if (optind < argc && !strcmp(argv[optind], "--"))
			break;
		c = getopt_long(argc, argv, "+hqp:D:", all, NULL);
		if (c == -1) {
			if (optind >= argc)
				break;
			specs[nspecs++] = argv[optind++];
			continue;
		}
		if ((rc = vg_cli_feature_take(c, optarg, fargs, &o.nfopts,
					      usage, false)) >= 0) {
			if (rc)
				return rc;
			continue;
		}
		if ((rc = take(c, &o, &defs, libs, &reacts, attach, usage)))
			return rc < 0 ? 0 : rc;
	}
	if (attach) {
		if (optind < argc)
			return vg_cli_usage(usage, "%s", "vigil attach takes no PROGRAM: -p PID names the process");
		if (!o.pid)
			return vg_cli_usage(usage, "%s", "no -p PID given");
	} else {
		if (optind >= argc - 1)
			return vg_cli_usage(usage, "%s", "no PROGRAM given after --");
		o.argv = argv + optind + 1;
	}
	if (nspecs == 0)
		return vg_cli_usage(usage, "%s", "no SPEC given");
	/* the live view is for a person watching a terminal: not for a log,
	 * a pipe, or a test reading stderr; nor when JSON lines go to the
	 * same terminal on stdout, which would land after the status line */
	o.live = !o.quiet && isatty(STDERR_FILENO) &&
		 !(o.json_path && !strcmp(o.json_path, "-") &&
		   isatty(STDOUT_FILENO));

	spec = vg_spec_new();
	if (!spec)
		return 3;
	if (vg_cli_load_specs(spec, nspecs, specs, &defs, &e) ||
	    vg_cli_apply_reactions(spec, reacts.n, reacts.v, !o.follow_forks,
				   &e) ||
	    vg_check_privileges(&e)) {
		vg_spec_free(spec);
		return vg_cli_fail(&e);
	}
	rc = vg_session_run(spec, &o, &e);
	vg_spec_free(spec);
	return rc < 0 ? vg_cli_fail(&e) : vg_cli_status(rc, o.error_exitcode);
}
