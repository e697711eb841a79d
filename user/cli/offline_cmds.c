/* The commands that need no kernel: vigil check and vigil graph. */
#include "offline_cmds.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "offline/check.h"
#include "report/dot.h"

const char vg_usage_check[] =
	"usage: vigil check [--json FILE] SPEC... TRACE\n"
	"\n"
	"Run the properties of the SPEC files over a trace, offline: a CSV trace\n"
	"(one event a line, name,value,...; the spec declares `event name(a, b)`)\n"
	"or a recording made by vigil run --record. Same verdicts and JSON as a\n"
	"live run.\n"
	"\n"
	"example:\n"
	"  vigil check specs/unsafe_iter.vigil tests/traces/unsafe_iter.csv\n";

const char vg_usage_graph[] =
	"usage: vigil graph [--svg] [--trace FILE] [-o OUT] SPEC...\n"
	"\n"
	"Write the automata of the SPEC files as Graphviz DOT (or SVG with --svg,\n"
	"through Graphviz's dot). With --trace, fill the states some slice\n"
	"reached and label each with the number of slices that ended there.\n"
	"\n"
	"example:\n"
	"  vigil graph --svg -o queue.svg specs/queue_bounds.vigil\n";

int vg_cmd_check(int argc, char **argv)
{
	const char *json = NULL;
	struct vg_err e = { 0 };
	struct vg_spec *spec;
	int i = 1, rc;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(vg_usage_check, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strncmp(argv[i], "--json=", 7)) {
			json = argv[i] + 7;
		} else {
			return vg_cli_usage(vg_usage_check, "%s", "bad option");
		}
	}
	if (argc - i < 2)
		return vg_cli_usage(vg_usage_check, "%s", "need at least one SPEC and a TRACE");
	spec = vg_spec_new();
	if (!spec)
		return 3;
	if (vg_cli_load_specs(spec, argc - i - 1, argv + i, &e)) {
		vg_spec_free(spec);
		return vg_cli_fail(&e);
	}
	rc = vg_check_trace(spec, argv[argc - 1], json, &e);
	vg_spec_free(spec);
	return rc < 0 ? vg_cli_fail(&e) : rc;
}

int vg_cmd_graph(int argc, char **argv)
{
	const char *trace = NULL, *outpath = NULL;
	struct vg_err e = { 0 };
	struct vg_dot_marks marks = { 0 };
	struct vg_spec *spec;
	uint8_t *reached = NULL;
	uint64_t *ended = NULL;
	bool svg = false;
	FILE *out = stdout;
	int i = 1, rc = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(vg_usage_graph, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--svg")) {
			svg = true;
		} else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
			trace = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			outpath = argv[++i];
		} else {
			return vg_cli_usage(vg_usage_graph, "%s", "bad option");
		}
	}
	if (i >= argc)
		return vg_cli_usage(vg_usage_graph, "%s", "no SPEC given");
	spec = vg_spec_new();
	if (!spec)
		return 3;
	if (vg_cli_load_specs(spec, argc - i, argv + i, &e))
		goto err;
	if (trace) {
		int n = vg_dot_nstates(spec);

		reached = calloc(n + 1, 1);
		ended = calloc(n + 1, sizeof(*ended));
		if (!reached || !ended) {
			vg_errf(&e, "out of memory");
			goto err;
		}
		if (vg_check_marks(spec, trace, reached, ended, &e))
			goto err;
		marks.reached = reached;
		marks.ended = ended;
	}
	if (svg) {
		char cmd[4200] = "dot -Tsvg";

		/* Graphviz renders; vigil only writes DOT */
		if (outpath && strchr(outpath, '\'')) {
			vg_errf_code(&e, VG_EXIT_USAGE, "-o: quote in file name");
			goto err;
		}
		if (outpath)
			snprintf(cmd, sizeof(cmd), "dot -Tsvg -o '%s'", outpath);
		out = popen(cmd, "w");
		if (!out) {
			vg_errf(&e, "cannot run Graphviz's dot: %s", strerror(errno));
			goto err;
		}
	} else if (outpath) {
		out = fopen(outpath, "w");
		if (!out) {
			vg_errf_code(&e, VG_EXIT_USAGE, "cannot write %s: %s",
				     outpath, strerror(errno));
			goto err;
		}
	}
	vg_dot_write(spec, out, trace ? &marks : NULL);
	if (svg) {
		int st = pclose(out);

		if (st) {
			vg_errf(&e, "Graphviz's dot failed (status %d); is graphviz installed?", st);
			goto err;
		}
	} else if (out != stdout) {
		fclose(out);
	}
	goto done;
err:
	rc = vg_cli_fail(&e);
done:
	free(reached);
	free(ended);
	vg_spec_free(spec);
	return rc;
}
