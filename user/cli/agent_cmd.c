/* vigil agent: its options, into user/agent/. */
#include "cli/agent_cmd.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "agent/agent.h"
#include "cli/cli.h"
#include "cli/usage.h"
#include "metrics/metrics.h"
#include "util/caps.h"

static const struct option opts[] = {
	{ "config", required_argument, 0, 'c' },
	{ "metrics", required_argument, 0, 'M' },
	{ "log", required_argument, 0, 'l' },
	{ "state-dir", required_argument, 0, 's' },
	{ "help", no_argument, 0, 'h' },
	{ 0 },
};

int vg_cmd_agent(int argc, char **argv)
{
	const char *usage = vg_usage_agent, *rt = getenv("RUNTIME_DIRECTORY");
	struct vg_agent_opts o = {
		.config_dir = "/etc/vigil/agent.d",
		.state_dir = rt && *rt ? rt : "/run/vigil",
	};
	char addr[64], self[PATH_MAX], conf[PATH_MAX];
	struct vg_err e = { 0 };
	ssize_t n;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.config_dir = optarg;
			break;
		case 'M':
			if (vg_metrics_parse_addr(optarg, addr, sizeof(addr),
						  &o.metrics_port))
				return vg_cli_usage(usage, "--metrics: '%s' is not ADDR:PORT (a numeric IPv4 address, e.g. 127.0.0.1:9477)", optarg);
			o.metrics_addr = addr;
			break;
		case 'l':
			o.log_path = optarg;
			break;
		case 's':
			o.state_dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return vg_cli_synopsis(usage);
		}
	}
	if (optind < argc)
		return vg_cli_usage(usage, "unexpected argument '%s'", argv[optind]);
	/* absolute, so are the spec paths the sessions are given (a missing
	 * directory is the loader's error to report) */
	if (realpath(o.config_dir, conf))
		o.config_dir = conf;
	/* the sessions run this very binary */
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		return vg_cli_usage(usage, "%s", "cannot read /proc/self/exe");
	self[n] = 0;
	o.vigil = self;
	if (vg_check_privileges(&e) || vg_agent_run(&o, &e))
		return vg_cli_fail(&e);
	return 0;
}
