/* vigil's command line: hands each command to its module (run_cmd.c,
 * offline_cmds.c, ckpt_cmds.c), which parses its options. user/cli/ is
 * the only place that prints errors and chooses exit statuses. */
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/ckpt_cmds.h"
#include "cli/ctl_cmd.h"
#include "cli/doctor_cmd.h"
#include "cli/feature_opts.h"
#include "cli/agent_cmd.h"
#include "cli/offline_cmds.h"
#include "cli/run_cmd.h"
#include "cli/watch_cmd.h"
#include "cli/usage.h"
#include "util/color.h"

#ifndef VIGIL_VERSION
#define VIGIL_VERSION "0.1.0"
#endif

static int version(void)
{
	/* the libbpf of the headers it was built with, and the one the
	 * loader found: a bug report needs both */
	const char *run = libbpf_version_string();	/* "v1.1" */

	printf("vigil %s\n", VIGIL_VERSION);
	printf("built with libbpf %d.%d; running with libbpf %s\n",
	       LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION,
	       run + (*run == 'v'));
	return 0;
}

static int run(int argc, char **argv)
{
	return vg_cmd_run(argc, argv, false);
}

static int attach(int argc, char **argv)
{
	return vg_cmd_run(argc, argv, true);
}

/* monitors: the command runs a monitor, its heap on huge pages
 * (heap_on_huge_pages below) */
static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	bool monitors;
} cmds[] = {
	{ "run", run, true }, { "attach", attach, true },
	{ "watch", vg_cmd_watch, true }, { "check", vg_cmd_check, false },
	{ "graph", vg_cmd_graph, false }, { "lint", vg_cmd_lint, false },
	{ "restore", vg_cmd_restore, true },
	{ "checkpoint", vg_cmd_checkpoint, false },
	{ "ctl", vg_cmd_ctl, false }, { "view", vg_cmd_view, false },
	{ "agent", vg_cmd_agent, true }, { "doctor", vg_cmd_doctor, false },
};

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

/* vigil's own heap on transparent huge pages, for the commands that
 * monitor. A run allocates and frees millions of slices, evidence steps
 * and freed blocks, and on a guest whose page faults go to the hypervisor
 * (about 10 us each on a PVM guest, against 0.7 us a page with huge
 * pages) a run of the six memory specs took 0.91 x as long with them
 * (docs/PERFORMANCE.md, page faults on a PVM guest). glibc
 * madvises its heap for huge pages when its tunable glibc.malloc.hugetlb
 * asks, and reads tunables only as a process starts: so vigil starts
 * again with it, once (the same pid), and puts the environment back as
 * the user gave it before anything reads it, for the programs it
 * starts. Not where huge pages are off, nor where the user set that
 * tunable; under ASan there is no glibc heap to ask. */
#define REEXEC_MARK "VIGIL_REEXEC_TUNABLES"

#ifndef __SANITIZE_ADDRESS__
/* GLIBC_TUNABLES as the user gave it, which REEXEC_MARK keeps: "=VALUE",
 * or "-" for none */
static void tunables_back(void)
{
	const char *was = getenv(REEXEC_MARK);

	if (!was)
		return;
	if (*was == '=')
		setenv("GLIBC_TUNABLES", was + 1, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	unsetenv(REEXEC_MARK);
}
#endif

static void heap_on_huge_pages(char **argv)
{
#ifndef __SANITIZE_ADDRESS__
	const char *tun = getenv("GLIBC_TUNABLES");
	char mode[128] = "", self[4096], *set;
	ssize_t n;
	FILE *f;

	if (getenv(REEXEC_MARK)) {	/* started again */
		tunables_back();
		return;
	}
	if ((tun && strstr(tun, "glibc.malloc.hugetlb")) ||
	    !(f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re")))
		return;
	if (!fgets(mode, sizeof(mode), f))
		mode[0] = 0;
	fclose(f);
	if (!strstr(mode, "[always]") && !strstr(mode, "[madvise]"))
		return;
	if (asprintf(&set, "%s%sglibc.malloc.hugetlb=1", tun ? tun : "",
		     tun && *tun ? ":" : "") < 0)
		return;
	if (tun) {
		char *mark;

		if (asprintf(&mark, "=%s", tun) < 0) {
			free(set);
			return;
		}
		setenv(REEXEC_MARK, mark, 1);
		free(mark);
	} else {
		setenv(REEXEC_MARK, "-", 1);
	}
	setenv("GLIBC_TUNABLES", set, 1);
	free(set);
	/* by its own path, not /proc/self/exe: the kernel names the process
	 * (comm) after the file execve was given, and vigil ctl, vigil
	 * checkpoint and the tests know vigil by that name */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0 && (size_t)n < sizeof(self) - 1) {
		self[n] = 0;
		execv(self, argv);
	}
	/* not started again (no /proc, the binary replaced): on as it is */
	tunables_back();
#else
	(void)argv;
#endif
}

static bool is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "help");
}

int main(int argc, char **argv)
{
	const struct cmd *cmd = argc > 1 ? find_cmd(argv[1]) : NULL;
	const char *nc, *term;
	char name[32];
	sigset_t usr;

	if (cmd && cmd->monitors)
		heap_on_huge_pages(argv);
	nc = getenv("NO_COLOR");
	term = getenv("TERM");

	/* SIGUSR1 (dump the monitor state) and SIGUSR2 (checkpoint now) are
	 * requests, never fatal: from the first instruction on, one that
	 * comes before a run's event loop waits for it (its signalfd takes
	 * it); every child vigil execs gets them unblocked again
	 * (vg_proc_unblock_signals) */
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigaddset(&usr, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr, NULL);
	/* a line in one write: the target often writes to the same terminal
	 * or file, and a report line written in pieces got the target's
	 * output in its middle */
	setvbuf(stderr, NULL, _IOLBF, BUFSIZ);

	/* colors for a person at a terminal only (https://no-color.org) */
	vg_color_enable(isatty(STDERR_FILENO) && !(nc && *nc) &&
			!(term && !strcmp(term, "dumb")));
	if (argc < 2)
		return vg_cli_usage(vg_usage_main, "%s", "no command given");
	if (is_help(argv[1])) {
		const char *u = argc > 2 ? vg_usage_of(argv[2]) : vg_usage_main;

		if (!u)
			return vg_cli_usage(vg_usage_main, "unknown command '%s'", argv[2]);
		fputs(u, stdout);
		/* as `vigil CMD --help`: the features' options too */
		if (argc > 2 && (!strcmp(argv[2], "run") ||
				 !strcmp(argv[2], "attach") ||
				 !strcmp(argv[2], "watch")))
			vg_cli_feature_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
	    !strcmp(argv[1], "version"))
		return version();
	if (!cmd)
		return vg_cli_usage(vg_usage_main, "unknown command '%s'", argv[1]);
	/* getopt's messages start with argv[0]: "vigil run: ..." */
	snprintf(name, sizeof(name), "vigil %s", cmd->name);
	argv[1] = name;
	return cmd->fn(argc - 1, argv + 1);
}
