/* The commands that need no kernel: vigil check, vigil graph and vigil
 * lint. */
#include "offline_cmds.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/usage.h"
#include "offline/check.h"
#include "plan/plan.h"
#include "probe/debugregs.h"
#include "probe/features.h"
#include "probe/probe.h"
#include "report/dot.h"
#include "watchset/callacc.h"

int vg_cmd_check(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "define", required_argument, 0, 'D' },
		{ "json", required_argument, 0, 'j' },
		{ "error-exitcode", required_argument, 0, 'x' },
		{ "help", no_argument, 0, 'h' },
		{ 0 },
	};
	const char *json = NULL, *defv[argc];
	int error_exitcode = VG_EXIT_VIOLATION;
	struct vg_cli_defs defs = { defv, 0 };
	struct vg_err e = { 0 };
	struct vg_spec *spec;
	int c, i, rc;

	/* getopt permutes: options may come among the operands */
	optind = 1;
	while ((c = getopt_long(argc, argv, "hD:", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(vg_usage_check, stdout);
			return 0;
		} else if (c == 'j') {
			json = optarg;
		} else if (c == 'x') {
			if ((rc = vg_cli_error_exitcode(optarg, vg_usage_check,
							&error_exitcode)))
				return rc;
		} else if (c == 'D') {
			if ((rc = vg_cli_add_define(&defs, optarg, vg_usage_check)))
				return rc;
		} else {
			return vg_cli_synopsis(vg_usage_check);	/* getopt said what */
		}
	}
	i = optind;
	if (argc - i < 2)
		return vg_cli_usage(vg_usage_check, "%s", "need at least one SPEC and a TRACE");
	spec = vg_spec_new();
	if (!spec)
		return 3;
	if (vg_cli_load_specs(spec, argc - i - 1, argv + i, &defs, &e)) {
		vg_spec_free(spec);
		return vg_cli_fail(&e);
	}
	rc = vg_check_trace(spec, argv[argc - 1], json, &e);
	vg_spec_free(spec);
	return rc < 0 ? vg_cli_fail(&e) : vg_cli_status(rc, error_exitcode);
}

int vg_cmd_graph(int argc, char **argv)
{
	const char *trace = NULL, *outpath = NULL;
	struct vg_err e = { 0 };
	struct vg_dot_marks marks = { 0 };
	struct vg_spec *spec;
	uint8_t *reached = NULL;
	uint64_t *ended = NULL;
	static const struct option longs[] = {
		{ "define", required_argument, 0, 'D' },
		{ "output", required_argument, 0, 'o' },
		{ "svg", no_argument, 0, 's' },
		{ "trace", required_argument, 0, 't' },
		{ "help", no_argument, 0, 'h' },
		{ 0 },
	};
	const char *defv[argc];
	struct vg_cli_defs defs = { defv, 0 };
	bool svg = false;
	FILE *out = stdout;
	int c, i, rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hD:o:", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(vg_usage_graph, stdout);
			return 0;
		} else if (c == 's') {
			svg = true;
		} else if (c == 't') {
			trace = optarg;
		} else if (c == 'o') {
			outpath = optarg;
		} else if (c == 'D') {
			if ((rc = vg_cli_add_define(&defs, optarg, vg_usage_graph)))
				return rc;
		} else {
			return vg_cli_synopsis(vg_usage_graph);	/* getopt said what */
		}
	}
	i = optind;
	if (i >= argc)
		return vg_cli_usage(vg_usage_graph, "%s", "no SPEC given");
	spec = vg_spec_new();
	if (!spec)
		return 3;
	if (vg_cli_load_specs(spec, argc - i, argv + i, &defs, &e))
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
	if (outpath) {
		out = fopen(outpath, "w");
		if (!out) {
			vg_errf_code(&e, VG_EXIT_USAGE, "cannot write %s: %s",
				     outpath, strerror(errno));
			goto err;
		}
	}
	if (svg) {
		/* Graphviz renders; vigil only writes DOT (the live view's
		 * picture comes the same way) */
		size_t n;
		char *s = vg_dot_svg(spec, trace ? &marks : NULL, &n, &e);

		if (!s)
			goto err;
		fwrite(s, 1, n, out);
		free(s);
	} else {
		vg_dot_write(spec, out, trace ? &marks : NULL);
	}
	if (out != stdout && fclose(out)) {
		vg_errf(&e, "cannot write %s: %s", outpath, strerror(errno));
		goto err;
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

int vg_cmd_lint(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "define", required_argument, 0, 'D' },
		{ "binary", required_argument, 0, 'b' },
		{ "lib", required_argument, 0, 'L' },
		{ "all-warnings", no_argument, 0, 'W' },
		{ "tier", required_argument, 0, 't' },
		{ "dynamic", no_argument, 0, 'Y' },
		{ "fast", required_argument, 0, 'f' },
		{ "no-fast", no_argument, 0, 'n' },
		{ "help", no_argument, 0, 'h' },
		{ 0 },
	};
	const char *binary = NULL, *libs[argc], *defv[argc];
	bool all_warnings = false, dynamic = false, no_fast = false;
	struct vg_plan_fast_req fast = { 0 };
	enum vg_tier tier = VG_TIER_AUTO;
	struct vg_cli_defs defs = { defv, 0 };
	struct vg_err e = { 0 };
	struct vg_spec *spec;
	char (*why)[256];
	bool *kernel;
	int warnings, c, rc;
	size_t nlibs = 0;

	/* options may come before or after the specs, as in DESIGN.md's
	 * `vigil lint SPEC --binary PATH` */
	optind = 1;
	while ((c = getopt_long(argc, argv, "hD:", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(vg_usage_lint, stdout);
			return 0;
		} else if (c == 'b') {
			binary = optarg;
		} else if (c == 'L') {
			libs[nlibs++] = optarg;
		} else if (c == 'W') {
			all_warnings = true;
		} else if (c == 'Y') {	/* plan as vigil run would */
			dynamic = true;
		} else if (c == 'f') {	/* the in-process tier, likewise */
			if (vg_plan_fast_parse(optarg, &fast, &e))
				return vg_cli_fail(&e);
		} else if (c == 'n') {
			no_fast = true;
		} else if (c == 't') {
			if (!strcmp(optarg, "auto"))
				tier = VG_TIER_AUTO;
			else if (!strcmp(optarg, "kernel"))
				tier = VG_TIER_KERNEL;
			else if (!strcmp(optarg, "user"))
				tier = VG_TIER_USER;
			else
				return vg_cli_usage(vg_usage_lint,
						    "--tier: '%s' is not auto, kernel or user",
						    optarg);
		} else if (c == 'D') {
			if ((rc = vg_cli_add_define(&defs, optarg, vg_usage_lint)))
				return rc;
		} else {
			return vg_cli_synopsis(vg_usage_lint);	/* getopt said what */
		}
	}
	if (optind >= argc)
		return vg_cli_usage(vg_usage_lint, "%s", "no SPEC given");
	if (nlibs && !binary)
		return vg_cli_usage(vg_usage_lint, "%s", "--lib needs --binary");
	spec = vg_spec_new();
	if (!spec)
		return 3;
	if (vg_cli_load_specs(spec, argc - optind, argv + optind, &defs, &e)) {
		vg_spec_free(spec);
		return vg_cli_fail(&e);
	}
	rc = 0;
	warnings = vg_spec_lint(spec, stdout);
	kernel = calloc(spec->nprops + 1, sizeof(bool));
	why = calloc(spec->nprops + 1, sizeof(*why));
	/* with a binary, the plan's tiers (below): the in-process tier's
	 * functions decide some */
	if (kernel && why && !binary &&
	    !vg_plan_tiers(spec, tier, !vg_feat_ktimer(NULL), kernel, why,
			   &e))
		for (int p = 0; p < spec->nprops; p++)
			printf("%s: %s tier%s%s\n", spec->props[p].name,
			       kernel[p] ? "kernel" : "user",
			       kernel[p] ? "" : ": not kernel because ",
			       kernel[p] ? "" : why[p]);
	if (binary) {
		/* what `vigil run` would install (with --tier and
		 * --dynamic as given): each probe described, then the plan */
		struct vg_plan_opts po = { .binary = binary, .libs = libs,
					   .nlibs = nlibs,
					   .tier = tier,
					   .dynamic = dynamic,
					   .on_violation = VG_OV_STOP,
					   .warn = stdout,
					   .all_names = all_warnings,
					   /* as the run would find the
					    * machine: the plan says so */
					   .no_debug_regs =
						vg_spec_watches(spec) &&
						vg_debug_regs() == VG_REGS_SILENT,
					   .no_debug_regs_why = VG_NO_REGS_WHY,
					   .no_ktimer = !vg_feat_ktimer(NULL) };
		struct vg_plan *plan;

		if (!fast.buf && !no_fast && !vg_plan_fast_default())
			no_fast = true;	/* VIGIL_FAST=off */
		if (!fast.buf && !no_fast &&
		    vg_plan_fast_parse(vg_plan_fast_default(), &fast, &e)) {
			rc = vg_cli_fail(&e);
			vg_spec_free(spec);
			return rc;
		}
		vg_plan_fast_apply(&fast, no_fast, &po);
		/* the calls the run adds to watch freed blocks (memcpy,
		 * read(2)...: watchset/callacc.h), so that lint shows their
		 * probes and the functions they patch too */
		plan = vg_callacc_add(spec, &e) ? NULL
						: vg_plan_build(spec, &po, &e);
		if (!plan) {
			rc = vg_cli_fail(&e);
		} else {
			warnings += plan->nwarnings;
			for (int p = 0; p < spec->nprops; p++) {
				bool mem = plan->props[p].inproc_mem ||
					   plan->props[p].bpf_mem;

				printf("%s: %s tier%s%s%s\n", spec->props[p].name,
				       plan->props[p].kernel ? "kernel" : "user",
				       mem ? " (" :
				       plan->props[p].kernel ? "" : ": not kernel because ",
				       mem || !plan->props[p].kernel ? plan->props[p].why : "",
				       mem ? ")" : "");
			}
			vg_plan_describe(plan, stdout);
			vg_plan_print(plan, stdout);
		}
		vg_plan_free(plan);
	}
	printf("%d propert%s, %d warning%s\n", spec->nprops,
	       spec->nprops == 1 ? "y" : "ies", warnings,
	       warnings == 1 ? "" : "s");
	free(kernel);
	free(why);
	free(fast.buf);
	vg_spec_free(spec);
	return rc;
}
