/* vigil ctl [--json] [--timeout MS] PID COMMAND [ARGS...]: one request
 * over the control socket (user/ctl/ctl.h); vigil's text, or its JSON. */
#include "cli/ctl_cmd.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/usage.h"
#include "ctl/ctl.h"

int vg_cmd_ctl(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, 0, 'j' },
		{ "timeout", required_argument, 0, 't' },
		{ "define", required_argument, 0, 'D' },
		{ "on-violation", required_argument, 0, 'O' },
		{ "svg", no_argument, 0, 'S' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct vg_err e = { 0 };
	char path[PATH_MAX], *end;
	bool json = false, svg = false;
	long timeout = 0, pid;
	json_t *args, *resp;
	/* `load SPEC -D NAME=VALUE --on-violation PROP=R`: passed on after
	 * the arguments, each after its option */
	const char *defs[64], *defopt[64];
	int ndefs = 0, c, rc;

	optind = 1;
	/* options anywhere: `vigil ctl PID status --json` reads naturally */
	while ((c = getopt_long(argc, argv, "hD:", opts, NULL)) != -1) {
		switch (c) {
		case 'D':
			if (ndefs == 64)
				return vg_cli_usage(vg_usage_ctl, "%s", "more than 64 -D");
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return vg_cli_usage(vg_usage_ctl, "-D '%s': expected NAME=VALUE", optarg);
			defopt[ndefs] = "-D";
			defs[ndefs++] = optarg;
			break;
		case 'O':
			if (ndefs == 64)
				return vg_cli_usage(vg_usage_ctl, "%s", "more than 64 -D and --on-violation");
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return vg_cli_usage(vg_usage_ctl, "--on-violation '%s': expected PROPERTY=REACTION", optarg);
			defopt[ndefs] = "--on-violation";
			defs[ndefs++] = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'S':	/* graph --svg */
			svg = true;
			break;
		case 't':
			timeout = strtol(optarg, &end, 10);
			if (*end || timeout <= 0 || timeout > 600000)
				return vg_cli_usage(vg_usage_ctl, "--timeout: '%s' is not a number of milliseconds up to 600000", optarg);
			break;
		case 'h':
			fputs(vg_usage_ctl, stdout);
			return 0;
		default:
			return vg_cli_synopsis(vg_usage_ctl);
		}
	}
	if (argc - optind < 2)
		return vg_cli_usage(vg_usage_ctl, "%s", argc - optind < 1 ? "no PID given" : "no COMMAND given");
	pid = strtol(argv[optind], &end, 10);
	if (*end || pid <= 0 || pid > INT32_MAX)
		return vg_cli_usage(vg_usage_ctl, "'%s' is not a process id", argv[optind]);
	if (vg_ctl_socket_path((pid_t)pid, path, sizeof(path), &e))
		return vg_cli_fail(&e);
	/* a checkpoint (and a restore) detaches and attaches every uprobe
	 * around a CRIU dump (restore): seconds on a loaded machine */
	if (!timeout)
		timeout = strcmp(argv[optind + 1], "checkpoint") &&
			  strcmp(argv[optind + 1], "restore") ? 5000 : 120000;
	/* loading a spec compiles it and verifies its BPF programs */
	if (!strcmp(argv[optind + 1], "load") && timeout == 5000)
		timeout = 60000;
	args = json_array();
	for (int i = optind + 2; i < argc; i++) {
		char abs[PATH_MAX];

		/* the spec file as this shell names it: vigil may run
		 * elsewhere */
		if (i == optind + 2 && !strcmp(argv[optind + 1], "load") &&
		    realpath(argv[i], abs))
			json_array_append_new(args, json_string(abs));
		else
			json_array_append_new(args, json_string(argv[i]));
	}
	for (int i = 0; i < ndefs; i++) {
		json_array_append_new(args, json_string(defopt[i]));
		json_array_append_new(args, json_string(defs[i]));
	}
	if (svg)
		json_array_append_new(args, json_string("--svg"));
	resp = vg_ctl_call(path, argv[optind + 1], args, (int)timeout, &e);
	if (!resp) {
		fprintf(stderr, "vigil: pid %ld: %s (is a vigil monitoring it?)\n",
			pid, e.msg);
		return 3;
	}
	rc = json_is_true(json_object_get(resp, "ok")) ? 0 : 1;
	if (json) {
		char *s = json_dumps(resp, JSON_COMPACT);

		puts(s ? s : "{}");
		free(s);
	} else if (rc) {
		fprintf(stderr, "vigil: %s\n",
			json_string_value(json_object_get(resp, "error")));
	} else {
		const char *t = json_string_value(json_object_get(resp, "text"));

		if (t)
			fputs(t, stdout);
		else {
			char *s = json_dumps(json_object_get(resp, "data"),
					     JSON_INDENT(2));

			puts(s ? s : "");
			free(s);
		}
	}
	json_decref(resp);
	return rc;
}

int vg_cmd_view(int argc, char **argv)
{
	char *ctl[] = { "ctl", NULL, "view", NULL };

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(vg_usage_view, stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-')
		return vg_cli_usage(vg_usage_view, "%s",
				    argc < 2 ? "no PID given" : "one PID, no options");
	ctl[1] = argv[1];
	return vg_cmd_ctl(3, ctl);
}
