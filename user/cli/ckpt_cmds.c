/* vigil restore DIR: a checkpoint back as a stopped process, for gdb or
 * for more monitoring; vigil checkpoint -p PID: a checkpoint on demand
 * from the vigil that monitors PID. */
#include "cli/ckpt_cmds.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt/ckpt.h"
#include "act/gdb.h"
#include "proc/proc.h"
#include "cli/cli.h"
#include "cli/usage.h"
#include "session/session.h"
#include "util/caps.h"
#include "util/rundir.h"

/* The executable of pid, or "" (gone, a zombie, not ours to read). */
static void exe_of(pid_t pid, char *out, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, out, len - 1);
	out[n > 0 ? n : 0] = 0;
}

static bool wait_gone(pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		if (kill(pid, 0) && errno == ESRCH)
			return true;
		usleep(10000);
	}
	return false;
}

static bool confirm(pid_t pid)
{
	char answer[16];

	fprintf(stderr, "vigil: the original process %d still runs; CRIU needs its pid. Kill it? [y/N] ",
		pid);
	fflush(stderr);		/* a prompt has no newline */
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	return answer[0] == 'y' || answer[0] == 'Y';
}

/* CRIU restores a process under its old pid: free it, or say why not. */
static int free_pid(const struct vg_ckpt_meta *m, bool force,
		    struct vg_err *e)
{
	char exe[PATH_MAX];

	if (kill(m->pid, 0) && errno == ESRCH)
		return 0;
	exe_of(m->pid, exe, sizeof(exe));
	if (exe[0] && strcmp(exe, m->exe))
		return vg_errf(e, "pid %d is now used by another process (%s); CRIU restores a process under its old pid: stop that process, or wait for it to end",
			       m->pid, exe);
	if (!force) {
		if (!isatty(STDIN_FILENO))
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "the original process %d (%s) still runs and CRIU needs its pid: stop it, or pass --force to have vigil kill it",
					    m->pid, m->exe);
		if (!confirm(m->pid))
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "not restored: process %d still runs",
					    m->pid);
	}
	kill(m->pid, SIGKILL);
	if (!wait_gone(m->pid))
		return vg_errf(e, "process %d did not go away after SIGKILL (its parent has not reaped it?)",
			       m->pid);
	return 0;
}

static int monitor_again(const char *dir, const struct vg_ckpt_meta *m,
			 pid_t pid, int nspecs, char **specs,
			 const struct vg_cli_defs *defs, const char *json)
{
	char state[PATH_MAX + 32];
	struct vg_session_opts o = { .pid = pid, .json_path = json,
				     .checkpoint_gap_ms = 500 };
	struct vg_err e = { 0 };
	struct vg_spec *spec = vg_spec_new();
	int rc;

	if (!spec)
		return 3;
	snprintf(state, sizeof(state), "%s/monitor.state", dir);
	if (m->has_state)
		o.state_path = state;
	if (vg_cli_load_specs(spec, nspecs, specs, defs, &e)) {
		kill(pid, SIGKILL);
		vg_spec_free(spec);
		return vg_cli_fail(&e);
	}
	fprintf(stderr, "vigil: monitoring pid %d again from the checkpoint's monitor state (%llu events in)\n",
		pid, (unsigned long long)m->events);
	rc = vg_session_run(spec, &o, &e);
	vg_spec_free(spec);
	if (rc < 0) {
		/* the restored process is stopped: never leave it so by mistake */
		kill(pid, SIGCONT);
		return vg_cli_fail(&e);
	}
	return rc;
}

static const struct option restore_opts[] = {
	{ "force", no_argument, 0, 'f' },
	{ "gdb", no_argument, 0, 'g' },
	{ "json", required_argument, 0, 'j' },
	{ "define", required_argument, 0, 'D' },
	{ "monitor", no_argument, 0, 'M' },
	{ "help", no_argument, 0, 'h' },
	{ 0 },
};

int vg_cmd_restore(int argc, char **argv)
{
	const char *dir = NULL, *json = NULL, *defv[argc];
	struct vg_cli_defs defs = { defv, 0 };
	bool force = false, gdb = false;
	struct vg_ckpt_meta m;
	struct vg_err e = { 0 };
	char cmd[4200], why[PATH_MAX + 64];
	char **specs = NULL;
	int nspecs = 0, rc;
	pid_t pid;

	/* "+": getopt stops at DIR, taken here, and the scan goes on;
	 * --monitor takes every argument after it */
	optind = 1;
	for (;;) {
		int c = getopt_long(argc, argv, "+hD:", restore_opts, NULL);

		if (c == -1 && optind < argc && !dir) {
			dir = argv[optind++];
			continue;
		}
		if (c == -1 && optind < argc)
			return vg_cli_usage(vg_usage_restore, "bad argument '%s'", argv[optind]);
		if (c == -1)
			break;
		switch (c) {
		case 'f':
			force = true;
			break;
		case 'g':
			gdb = true;
			break;
		case 'j':
			json = optarg;
			break;
		case 'D':
			if ((rc = vg_cli_add_define(&defs, optarg, vg_usage_restore)))
				return rc;
			break;
		case 'M':
			specs = argv + optind;
			nspecs = argc - optind;
			if (!nspecs)
				return vg_cli_usage(vg_usage_restore, "%s", "--monitor needs SPEC files");
			optind = argc;
			break;
		case 'h':
			fputs(vg_usage_restore, stdout);
			return 0;
		default:
			return vg_cli_synopsis(vg_usage_restore);	/* getopt said what */
		}
	}
	if (!dir)
		return vg_cli_usage(vg_usage_restore, "%s", "no checkpoint DIR given");
	if (defs.n && !nspecs)
		return vg_cli_usage(vg_usage_restore, "%s", "-D is for the specs of --monitor");
	if (vg_ckpt_read_meta(dir, &m, &e) || vg_check_privileges(&e) ||
	    free_pid(&m, force, &e))
		return vg_cli_fail(&e);
	pid = vg_ckpt_restore(dir, &e);
	if (pid < 0)
		return vg_cli_fail(&e);
	fprintf(stderr, "vigil: restored pid %d from %s (%s, after %llu events); it is stopped\n",
		pid, dir, m.reason, (unsigned long long)m.events);
	if (nspecs)
		return monitor_again(dir, &m, pid, nspecs, specs, &defs, json);
	snprintf(why, sizeof(why), "restored from the checkpoint %s", dir);
	if (vg_gdb_prepare(pid, pid, why, cmd, sizeof(cmd), &e))
		return vg_cli_fail(&e);
	if (gdb && isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		fflush(NULL);
		vg_proc_unblock_signals();
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		fprintf(stderr, "vigil: cannot start gdb: %s\n", strerror(errno));
	} else if (gdb) {
		fprintf(stderr, "vigil: not on a terminal: gdb not started\n");
	}
	fprintf(stderr, "vigil: debug it with:\n  %s\nor let it run with: kill -CONT %d\n",
		cmd, pid);
	return 0;
}

int vg_cmd_checkpoint(int argc, char **argv)
{
	char dir[PATH_MAX - 64], path[PATH_MAX], comm[64] = "";
	struct vg_err e = { 0 };
	pid_t pid = 0, vpid = 0;
	FILE *f;
	char *end;

	static const struct option opts[] = {
		{ "pid", required_argument, 0, 'p' },
		{ "help", no_argument, 0, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hp:", opts, NULL)) != -1) {
		if (c == 'p') {
			pid = strtol(optarg, &end, 10);
			if (*end || pid <= 0)
				return vg_cli_usage(vg_usage_checkpoint, "-p: '%s' is not a process id", optarg);
		} else if (c == 'h') {
			fputs(vg_usage_checkpoint, stdout);
			return 0;
		} else {
			return vg_cli_synopsis(vg_usage_checkpoint);	/* getopt said what */
		}
	}
	if (optind < argc)
		return vg_cli_usage(vg_usage_checkpoint, "bad argument '%s'", argv[optind]);
	if (!pid)
		return vg_cli_usage(vg_usage_checkpoint, "%s", "no -p PID given");
	if (vg_rundir(dir, sizeof(dir), &e))
		return vg_cli_fail(&e);
	snprintf(path, sizeof(path), "%s/session-%d", dir, pid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &vpid) != 1 || vpid <= 0) {
		if (f)
			fclose(f);
		vg_errf_code(&e, VG_EXIT_USAGE, "no vigil of yours monitors pid %d (no %s)",
			     pid, path);
		return vg_cli_fail(&e);
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/comm", vpid);
	if ((f = fopen(path, "r"))) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
	}
	if (strncmp(comm, "vigil", 5) || kill(vpid, SIGUSR2)) {
		vg_errf_code(&e, VG_EXIT_USAGE, "the vigil that monitored pid %d (pid %d) is gone",
			     pid, vpid);
		return vg_cli_fail(&e);
	}
	fprintf(stderr, "vigil: asked vigil (pid %d) for a checkpoint of pid %d; it prints where it goes\n",
		vpid, pid);
	return 0;
}
