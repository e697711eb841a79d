#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

static bool gone(long pid)
{
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Does a vigil still serve target pid? Its session-PID file names it
 * (ckpt/ckpt_run.c). A restore inside a session kills the target and has
 * CRIU bring it back under the same pid: for that moment the pid is free
 * while the session, its control socket and its gdb files live on. */
static bool served(int dfd, long pid)
{
	char name[64], buf[32];
	ssize_t n;
	long v;
	int fd;

	snprintf(name, sizeof(name), "session-%ld", pid);
	if ((fd = openat(dfd, name, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	v = strtol(buf, NULL, 10);
	return v > 0 && !gone(v);
}

/* NAME-PID[.ext] of a process that is gone and that no vigil serves: a
 * gdb command file or a violation report of a target long dead, the
 * socket of a vigil that was killed. Left alone they pile up, thousands a
 * day on a test machine. */
static bool stale(int dfd, const char *name)
{
	static const char *const kinds[] = { "gdb-live-", "gdb-", "violation-",
					     "session-", "ctl-" };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t k = strlen(kinds[i]);
		char *end;
		long pid;

		if (strncmp(name, kinds[i], k))
			continue;
		pid = strtol(name + k, &end, 10);
		if (end == name + k || (*end && *end != '.') || pid <= 0)
			return false;
		return gone(pid) && !served(dfd, pid);
	}
	return false;
}

/* once per vigil: a sweep costs a readdir of the directory */
static void sweep(const char *dir)
{
	static bool done;
	struct dirent *d;
	DIR *dp;

	if (done || !(dp = opendir(dir)))
		return;
	done = true;
	while ((d = readdir(dp)))
		if (stale(dirfd(dp), d->d_name))
			unlinkat(dirfd(dp), d->d_name, 0);
	closedir(dp);
}

int vg_rundir(char *out, size_t len, struct vg_err *e)
{
	const char *tmp = getenv("TMPDIR");

	if (vg_private_dir(tmp && *tmp ? tmp : "/tmp", out, len, e))
		return -1;
	sweep(out);
	return 0;
}

int vg_memdir(char *out, size_t len, struct vg_err *e)
{
	struct statfs fs;

	if (statfs("/dev/shm", &fs) || fs.f_type != TMPFS_MAGIC ||
	    access("/dev/shm", W_OK))
		return vg_rundir(out, len, e);
	return vg_private_dir("/dev/shm", out, len, e);
}

int vg_private_dir(const char *base, char *out, size_t len, struct vg_err *e)
{
	struct stat st;

	snprintf(out, len, "%s/vigil-%u", base, (unsigned)getuid());
	if (mkdir(out, 0700) && errno != EEXIST)
		return vg_errf(e, "cannot create %s: %s", out, strerror(errno));
	if (lstat(out, &st))
		return vg_errf(e, "cannot inspect %s: %s", out, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 0777) != 0700)
		return vg_errf(e, "%s is not a private directory of ours (want mode 0700, owner uid %u); remove it",
			       out, (unsigned)getuid());
	return 0;
}

int vg_mkdir_p(const char *path, struct vg_err *e)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *s = tmp + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return vg_errf(e, "cannot create %s: %s", tmp,
				       strerror(errno));
		*s = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return vg_errf(e, "cannot create %s: %s", tmp, strerror(errno));
	return 0;
}
