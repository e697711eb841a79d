/* vigil's command line: parses options and hands each command to its
 * module. The only place that prints errors and chooses exit statuses. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/offline_cmds.h"
#include "cli/ckpt_cmds.h"
#include "probe/probe.h"
#include "session/session.h"
#include "spec/spec.h"
#include "util/caps.h"

#ifndef VIGIL_VERSION
#define VIGIL_VERSION "0.1.0"
#endif

static const char usage_main[] =
	"usage: vigil COMMAND [OPTIONS] ...\n"
	"\n"
	"Check behavioural properties of a running process; stop it for gdb\n"
	"the moment one breaks.\n"
	"\n"
	"commands:\n"
	"  run SPEC... -- PROGRAM [ARGS]   start PROGRAM monitored\n"
	"  attach SPEC... -p PID           monitor a running process\n"
	"  check SPEC... TRACE             run the specs over a CSV or recorded trace\n"
	"  graph [--svg] SPEC...           the automata as Graphviz DOT\n"
	"  lint SPEC...                    check specs, show warnings and tiers\n"
	"  checkpoint -p PID               ask the vigil monitoring PID for a checkpoint\n"
	"  restore DIR                     bring a checkpointed process back, stopped\n"
	"\n"
	"  vigil COMMAND --help            options of a command\n"
	"  vigil --version\n"
	"\n"
	"example:\n"
	"  vigil run specs/queue_bounds.vigil -- build/targets/queue --bug\n";

static const char usage_run[] =
	"usage: vigil run [OPTIONS] SPEC... -- PROGRAM [ARGS]\n"
	"\n"
	"Start PROGRAM with every property of the SPEC files monitored from its\n"
	"first instruction.\n"
	"\n"
	"options:\n"
	"  --json FILE              write verdicts and stats as JSON lines (- = stdout)\n"
	"  --record FILE            record every event, for vigil check FILE\n"
	"  --disable-aslr           run PROGRAM without address randomization, so\n"
	"                           addresses repeat from run to run (as gdb does)\n"
	"  --dynamic                attach a function's probe only while some slice\n"
	"                           is in a state that can use its event (i-RV's\n"
	"                           dynamic instrumentation; user-tier properties)\n"
	"  --follow-fork            monitor the processes the target forks too (and\n"
	"                           theirs), each with its own slices; without it\n"
	"                           a fork is reported and the child not monitored\n"
	"  --tier=auto|kernel|user  where automata run (default auto: kernel when\n"
	"                           the property is eligible, see vigil lint)\n"
	"  --on-violation=stop|gdb|checkpoint|continue|kill\n"
	"                           reaction to a violation state that has none of\n"
	"                           its own (default stop; gdb: stop, then open gdb\n"
	"                           on the target when run from a terminal;\n"
	"                           checkpoint: a CRIU checkpoint, and run on)\n"
	"  --checkpoint-dir DIR     where checkpoints go (default a private\n"
	"                           directory in memory: /dev/shm/vigil-UID)\n"
	"  --checkpoints N          checkpoints kept, the oldest dropped (default 8)\n"
	"  --checkpoint-gap MS      at most one checkpoint per MS milliseconds\n"
	"                           (default 500; 0: one at every request)\n"
	"  --snapshot=criu|fork     how checkpoints are taken: CRIU images\n"
	"                           (default), or fork() injected into a\n"
	"                           single-threaded target (much faster; kept\n"
	"                           only while vigil runs)\n"
	"  --ringbuf-size BYTES     ring buffer size (default 8M; suffix K/M)\n"
	"  --stacks                 capture the user stack of every function event,\n"
	"                           for the evidence of a violation (costs about a\n"
	"                           microsecond per event; without it, only events\n"
	"                           of properties with a `backtrace` reaction)\n"
	"  --evidence N             steps of the violating slice a report shows\n"
	"                           (default 16)\n"
	"  --max-slices N           bound on live slices per property\n"
	"  --lib PATH               PROGRAM may load the library PATH with dlopen:\n"
	"                           look for the spec's functions there too (after\n"
	"                           PROGRAM and the libraries the loader maps); its\n"
	"                           probes are in place before it is loaded, and\n"
	"                           stay across dlclose and dlopen again. Repeatable\n"
	"  --watch-policy=refuse|evict\n"
	"                           when a slice needs more debug registers than\n"
	"                           are free (x86: 4): leave it unwatched (default)\n"
	"                           or take them from the oldest watched slice;\n"
	"                           the slice left unwatched becomes inconclusive\n"
	"\n"
	"exit status: 0 no violation, 1 violation, 2 bad usage or spec,\n"
	"             3 runtime failure\n"
	"\n"
	"example:\n"
	"  vigil run --json out.jsonl specs/queue_bounds.vigil -- build/targets/queue --bug\n";

static const char usage_attach[] =
	"usage: vigil attach [OPTIONS] SPEC... -p PID\n"
	"\n"
	"Monitor the running process PID, all its threads. Interrupting vigil\n"
	"detaches it and the process runs on. Takes the options of vigil run.\n"
	"\n"
	"example:\n"
	"  vigil attach specs/queue_bounds.vigil -p 1234\n";

static const char usage_lint[] =
	"usage: vigil lint SPEC... [--binary PROGRAM [--lib PATH]...]\n"
	"\n"
	"Parse and check the specs; print warnings (unused or unreachable states,\n"
	"transitions that can never fire) and the tier each property gets.\n"
	"With --binary, also where each probe goes in PROGRAM (or its shared\n"
	"libraries, or the libraries --lib names as those PROGRAM may load with\n"
	"dlopen) and whether the kernel must single-step it (slow).\n"
	"\n"
	"example:\n"
	"  vigil lint specs/queue_bounds.vigil\n";

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

/* vigil run and vigil attach share their options; attach takes -p PID
 * instead of -- PROGRAM. */
static int cmd_run(int argc, char **argv, bool attach)
{
	static const struct option opts[] = {
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
		{ "help", no_argument, 0, 'h' },
		{ 0 },
	};
	const char *usage = attach ? usage_attach : usage_run;
	const char *libs[argc];		/* --lib, at most one per argument */
	struct vg_session_opts o = { .checkpoint_gap_ms = 500 };
	struct vg_err e = { 0 };
	struct vg_spec *spec;
	int c, nspecs, rc;
	char *end;
	size_t n;

	optind = 1;
	/* run: options end at the first SPEC ("+"), as for env or strace;
	 * attach: -p PID may follow the specs, as DESIGN.md writes it */
	while ((c = getopt_long(argc, argv, attach ? "hp:" : "+h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json_path = optarg;
			break;
		case 'R':
			o.record_path = optarg;
			break;
		case 'F':
			o.follow_forks = true;
			break;
		case 'Y':
			o.dynamic = true;
			break;
		case 'A':
			o.no_aslr = true;
			break;
		case 't':
			if (!strcmp(optarg, "auto"))
				o.tier = VG_TIER_AUTO;
			else if (!strcmp(optarg, "kernel"))
				o.tier = VG_TIER_KERNEL;
			else if (!strcmp(optarg, "user"))
				o.tier = VG_TIER_USER;
			else
				return vg_cli_usage(usage, "--tier: '%s' is not auto, kernel or user", optarg);
			break;
		case 'v':
			if (!strcmp(optarg, "stop"))
				o.on_violation = VG_OV_STOP;
			else if (!strcmp(optarg, "gdb"))
				o.on_violation = VG_OV_GDB;
			else if (!strcmp(optarg, "continue"))
				o.on_violation = VG_OV_CONTINUE;
			else if (!strcmp(optarg, "kill"))
				o.on_violation = VG_OV_KILL;
			else if (!strcmp(optarg, "checkpoint"))
				o.on_violation = VG_OV_CHECKPOINT;
			else
				return vg_cli_usage(usage, "--on-violation: '%s' is not stop, gdb, checkpoint, continue or kill", optarg);
			break;
		case 'C':
			o.checkpoint_dir = optarg;
			break;
		case 'N':
			if (parse_size(optarg, &n) || !n || n > 100000)
				return vg_cli_usage(usage, "--checkpoints: '%s' is not a count from 1 to 100000", optarg);
			o.checkpoints = (int)n;
			break;
		case 'K':
			o.stacks = true;
			break;
		case 'L':
			libs[o.nlibs++] = optarg;
			o.libs = libs;
			break;
		case 'W':
			if (!strcmp(optarg, "evict"))
				o.watch_evict = true;
			else if (strcmp(optarg, "refuse"))
				return vg_cli_usage(usage, "--watch-policy: '%s' is not refuse or evict", optarg);
			break;
		case 'E':
			if (parse_size(optarg, &n) || !n || n > 100000)
				return vg_cli_usage(usage, "--evidence: '%s' is not a count from 1 to 100000", optarg);
			o.evidence = (int)n;
			break;
		case 'S':
			if (!strcmp(optarg, "fork"))
				o.fork_snapshots = true;
			else if (strcmp(optarg, "criu"))
				return vg_cli_usage(usage, "--snapshot: '%s' is not criu or fork", optarg);
			break;
		case 'G':
			if (parse_size(optarg, &n))
				return vg_cli_usage(usage, "--checkpoint-gap: '%s' is not a number of milliseconds", optarg);
			o.checkpoint_gap_ms = n;
			break;
		case 'r':
			if (parse_size(optarg, &o.ringbuf_bytes) ||
			    o.ringbuf_bytes < 4096)
				return vg_cli_usage(usage, "--ringbuf-size: '%s' is not a size of at least 4K", optarg);
			break;
		case 'm':
			if (parse_size(optarg, &n) || !n || n > UINT32_MAX)
				return vg_cli_usage(usage, "--max-slices: '%s' is not a positive count", optarg);
			o.max_slices = n;
			break;
		case 'p':
			if (!attach)
				return vg_cli_usage(usage, "%s", "-p is for vigil attach");
			o.pid = strtol(optarg, &end, 10);
			if (*end || o.pid <= 0)
				return vg_cli_usage(usage, "-p: '%s' is not a process id", optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return vg_cli_usage(usage, "%s", "bad option");
		}
	}
	if (attach) {
		nspecs = argc - optind;
		if (!o.pid)
			return vg_cli_usage(usage, "%s", "no -p PID given");
	} else {
		for (nspecs = 0; optind + nspecs < argc &&
				 strcmp(argv[optind + nspecs], "--");
		     nspecs++)
			;
		if (optind + nspecs >= argc - 1)
			return vg_cli_usage(usage, "%s", "no PROGRAM given after --");
		o.argv = argv + optind + nspecs + 1;
	}
	if (nspecs == 0)
		return vg_cli_usage(usage, "%s", "no SPEC given");

	spec = vg_spec_new();
	if (!spec)
		return 3;
	if (vg_cli_load_specs(spec, nspecs, argv + optind, &e) ||
	    vg_check_privileges(&e)) {
		vg_spec_free(spec);
		return vg_cli_fail(&e);
	}
	rc = vg_session_run(spec, &o, &e);
	vg_spec_free(spec);
	return rc < 0 ? vg_cli_fail(&e) : rc;
}

static int cmd_lint(int argc, char **argv)
{
	const char *binary = NULL, *libs[argc];
	struct vg_err e = { 0 };
	struct vg_spec *spec;
	bool *kernel;
	int warnings, i = 1, rc;
	size_t nlibs = 0;

	/* options may come before or after the specs, as in DESIGN.md's
	 * `vigil lint SPEC --binary PATH` */
	char **specs = calloc(argc, sizeof(char *));
	int nspecs = 0;

	if (!specs)
		return 3;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_lint, stdout);
			free(specs);
			return 0;
		} else if (!strcmp(argv[i], "--binary") && i + 1 < argc) {
			binary = argv[++i];
		} else if (!strcmp(argv[i], "--lib") && i + 1 < argc) {
			libs[nlibs++] = argv[++i];
		} else if (argv[i][0] == '-') {
			free(specs);
			return vg_cli_usage(usage_lint, "bad option '%s'", argv[i]);
		} else {
			specs[nspecs++] = argv[i];
		}
	}
	if (!nspecs) {
		free(specs);
		return vg_cli_usage(usage_lint, "%s", "no SPEC given");
	}
	if (nlibs && !binary) {
		free(specs);
		return vg_cli_usage(usage_lint, "%s", "--lib needs --binary");
	}
	spec = vg_spec_new();
	if (!spec) {
		free(specs);
		return 3;
	}
	rc = vg_cli_load_specs(spec, nspecs, specs, &e);
	free(specs);
	if (rc) {
		vg_spec_free(spec);
		return vg_cli_fail(&e);
	}
	warnings = vg_spec_lint(spec, stdout);
	kernel = calloc(spec->nprops + 1, sizeof(bool));
	char (*why)[256] = calloc(spec->nprops + 1, sizeof(*why));
	if (kernel && why &&
	    !vg_session_choose_tiers(spec, VG_TIER_AUTO, kernel, why, &e))
		for (int p = 0; p < spec->nprops; p++)
			printf("%s: %s tier%s%s\n", spec->props[p].name,
			       kernel[p] ? "kernel" : "user",
			       kernel[p] ? "" : ": not kernel because ",
			       kernel[p] ? "" : why[p]);
	if (binary &&
	    vg_probe_describe(spec, binary, libs, nlibs, stdout, &e))
		rc = vg_cli_fail(&e);
	printf("%d propert%s, %d warning%s\n", spec->nprops,
	       spec->nprops == 1 ? "y" : "ies", warnings,
	       warnings == 1 ? "" : "s");
	free(kernel);
	free(why);
	vg_spec_free(spec);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return vg_cli_usage(usage_main, "%s", "no command given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("vigil %s\n", VIGIL_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1, false);
	if (!strcmp(argv[1], "attach"))
		return cmd_run(argc - 1, argv + 1, true);
	if (!strcmp(argv[1], "check"))
		return vg_cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "graph"))
		return vg_cmd_graph(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lint"))
		return cmd_lint(argc - 1, argv + 1);
	if (!strcmp(argv[1], "restore"))
		return vg_cmd_restore(argc - 1, argv + 1);
	if (!strcmp(argv[1], "checkpoint"))
		return vg_cmd_checkpoint(argc - 1, argv + 1);
	return vg_cli_usage(usage_main, "unknown command '%s'", argv[1]);
}
