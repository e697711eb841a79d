#include "proc.h"
#include "procinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void vg_proc_unblock_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

pid_t vg_proc_spawn_stopped(const char *path, char *const argv[],
			    bool no_aslr, struct vg_err *e)
{
	pid_t parent = getpid(), pid = fork();
	int st;

	if (pid < 0) {
		vg_errf(e, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		vg_proc_unblock_signals();
		setsid();
		if (no_aslr)	/* like gdb's disable-randomization */
			personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE);
		/* killed with vigil until it is let into its program: vigil
		 * SIGKILLed before its guard process exists (vg_guard_start)
		 * must not leave it stopped, nor let it run unmonitored */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		raise(SIGSTOP);
		/* Only async-signal-safe calls from here: no allocation
		 * between the probes being attached and the exec, so none of
		 * vigil's own calls can be mistaken for the target's. Let go,
		 * it outlives vigil like any program. */
		prctl(PR_SET_PDEATHSIG, 0);
		execv(path, argv);
		dprintf(2, "vigil: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st)) {
		vg_errf(e, "starting %s: the child did not stop before exec",
			path);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

int vg_proc_release(pid_t pid, struct vg_err *e)
{
	if (kill(pid, SIGCONT))
		return vg_errf(e, "resuming pid %d: %s", pid, strerror(errno));
	return 0;
}

void vg_proc_kill_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* (proc.h) */
bool vg_proc_uprobes_page(pid_t pid, uint64_t *lo, uint64_t *hi)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "r")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[uprobes]") &&
			sscanf(line, "%" SCNx64 "-%" SCNx64, lo, hi) == 2;
	fclose(f);
	return found;
}

int vg_proc_threads(pid_t pid, pid_t *out, int max)
{
	char dir[64];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	if (!(dp = opendir(dir)))
		return -1;
	while ((d = readdir(dp))) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid <= 0)
			continue;
		if (out && n < max)
			out[n] = tid;
		n++;
	}
	closedir(dp);
	return n;
}

int vg_proc_in_uprobe_page(pid_t pid)
{
	enum { MAXT = 4096 };
	char path[96], buf[256];
	uint64_t lo, hi, pc;
	pid_t *tids;
	int n, found = 0;

	if (!vg_proc_uprobes_page(pid, &lo, &hi) || !(tids = calloc(MAXT, sizeof(*tids))))
		return 0;
	n = vg_proc_threads(pid, tids, MAXT);
	for (int i = 0; !found && i < n && i < MAXT; i++) {
		const char *last;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid,
			 tids[i]);
		if (!(f = fopen(path, "r")))
			continue;
		/* "NR args... sp pc", or "-1 sp pc" outside a system call */
		if (fgets(buf, sizeof(buf), f) && (last = strrchr(buf, ' ')) &&
		    sscanf(last, " 0x%" SCNx64, &pc) == 1 && pc >= lo &&
		    pc < hi)
			found = tids[i];
		fclose(f);
	}
	free(tids);
	return found;
}

pid_t vg_proc_status_pid(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	pid_t t = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n)) {
			t = (pid_t)atoi(line + n);
			break;
		}
	fclose(f);
	return t;
}

pid_t vg_proc_tracer(pid_t pid)
{
	return vg_proc_status_pid(pid, "TracerPid:");
}

/* A SIGSTOP pending in one of pid's threads (SigPnd) or for the whole
 * process (ShdPnd): it stops the process once the thread runs. */
bool vg_proc_stop_pending(pid_t pid)
{
	enum { MAXT = 4096 };
	char path[96], line[256];
	unsigned long long m;
	pid_t *tids;
	bool yes = false;
	int n;

	if (!(tids = calloc(MAXT, sizeof(*tids))))
		return false;
	n = vg_proc_threads(pid, tids, MAXT);
	for (int i = 0; !yes && i < n && i < MAXT; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid,
			 tids[i]);
		if (!(f = fopen(path, "re")))
			continue;
		while (!yes && fgets(line, sizeof(line), f))
			if ((sscanf(line, "SigPnd: %llx", &m) == 1 ||
			     sscanf(line, "ShdPnd: %llx", &m) == 1) &&
			    (m >> (SIGSTOP - 1) & 1))
				yes = true;
		fclose(f);
	}
	free(tids);
	return yes;
}

char vg_proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	/* (no stdio: asked at every hold, whose thread it waits for) */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	/* the command name may contain spaces and parentheses */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

uint64_t vg_proc_stat_u64(pid_t id, int field)
{
	char path[64], buf[2048], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, at = 3;

	snprintf(path, sizeof(path), "/proc/%d/stat", id);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || !(p = strrchr((buf[n] = 0, buf), ')')))
		return 0;
	/* fields from 3 on follow the command's closing parenthesis (the
	 * command may hold spaces and parentheses) */
	for (p += 2; *p && at < field; p++)
		if (*p == ' ')
			at++;
	if (sscanf(p, "%llu", &v) != 1)
		return 0;
	return v;
}

int vg_proc_exe(pid_t pid, char *out, struct vg_err *e)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, out, PATH_MAX - 1);
	if (n < 0) {
		char st = vg_proc_state(pid);

		/* /proc/PID/exe is missing for a kernel thread and a zombie
		 * too: say which, not "no such process" */
		if (errno == ENOENT && st == 'Z')
			return vg_errf_code(e, VG_EXIT_RUNTIME,
					    "pid %d has exited (a zombie its parent has not reaped): nothing to monitor", pid);
		if (errno == ENOENT && st)
			return vg_errf_code(e, VG_EXIT_RUNTIME,
					    "pid %d is a kernel thread: vigil monitors user-space processes", pid);
		if (errno == ENOENT)
			return vg_errf_code(e, VG_EXIT_RUNTIME,
					    "no process with pid %d", pid);
		return vg_errf(e, "cannot inspect pid %d (%s): vigil needs CAP_SYS_PTRACE or the same user",
			       pid, strerror(errno));
	}
	out[n] = 0;
	/* in a container: its path is its root's (procinfo.h) */
	{
		char root[64], in[PATH_MAX];

		if (vg_proc_root_prefix(pid, root, sizeof(root), e))
			return -1;
		if (root[0] && out[0] == '/') {
			snprintf(in, sizeof(in), "%s", out);
			if (snprintf(out, PATH_MAX, "%s%s", root, in) >= PATH_MAX)
				return vg_errf(e, "pid %d: its program's path is too long", pid);
		}
	}
	return 0;
}

int vg_proc_pidfd(pid_t pid, struct vg_err *e)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		return vg_errf(e, "pidfd_open(%d): %s", pid, strerror(errno));
	return fd;
}

int vg_proc_reap(pid_t pid, int *code, int *sig)
{
	int st;
	pid_t r = waitpid(pid, &st, WNOHANG);

	if (r == 0)
		return 0;
	if (r < 0)
		return -1;
	if (WIFEXITED(st)) {
		*code = WEXITSTATUS(st);
		*sig = 0;
		return 1;
	}
	if (WIFSIGNALED(st)) {
		*code = -1;
		*sig = WTERMSIG(st);
		return 1;
	}
	return 0;
}

bool vg_proc_is_stopped(pid_t pid)
{
	char s = vg_proc_state(pid);

	return s == 'T' || s == 't';
}

int vg_proc_stop(pid_t pid, struct vg_err *e)
{
	struct timespec ts = { 0, 1000000 };
	char st;

	if (kill(pid, SIGSTOP))
		return vg_errf(e, "stopping pid %d: %s", pid, strerror(errno));
	for (int i = 0; i < 2000; i++) {
		st = vg_proc_state(pid);
		if (st == 'T' || st == 't')
			return 0;
		if (st == 0 || st == 'Z' || st == 'X')
			break;
		nanosleep(&ts, NULL);
	}
	return vg_errf(e, "pid %d could not be stopped: it is exiting", pid);
}
