/* Where a process lives: NSpid, cgroup, its root (procinfo.h). */
#include "proc/procinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* the roots kept open: few processes at once are in another root, and a
 * watch forgets each at its exit; the oldest is closed beyond this */
#define VG_ROOTS 256

static struct {
	pid_t pid;
	int fd;
	dev_t dev;
	ino_t ino;
} roots[VG_ROOTS];
static unsigned nroots, next_evict;

/* The innermost number of a "NSpid:"-like line of /proc/PID/status
 * ("NSpid:\t1234\t7": the outermost first, the process's own namespace
 * last); -1 when pid or the line is gone. */
static long status_innermost(pid_t pid, const char *key)
{
	char path[64], line[512];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *last = NULL, *p;

		if (strncmp(line, key, klen))
			continue;
		for (p = strtok(line + klen, " \t\n"); p;
		     p = strtok(NULL, " \t\n"))
			last = p;
		if (last)
			v = atol(last);
		break;
	}
	fclose(f);
	return v;
}

static void read_nspid(pid_t pid, struct vg_proc_where *out)
{
	long v = status_innermost(pid, "NSpid:");

	out->ns_pid = v > 0 ? (pid_t)v : pid;
}

bool vg_proc_session_outside(pid_t pid)
{
	return status_innermost(pid, "NSsid:") == 0;
}

static void read_cgroup(pid_t pid, struct vg_proc_where *out)
{
	char path[64], line[1024];
	FILE *f;

	out->cgroup[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(path, "re")))
		return;
	/* "0::/system.slice/x.service" (v2), "4:memory:/docker/ID" (v1): the
	 * v2 path, else the systemd hierarchy's, else any controller's --
	 * the first that is not the root, which a container's runtime
	 * (a v1 or hybrid host) may have set in only some of them */
	int best = 9;

	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *path;
		int rank;

		line[strcspn(line, "\n")] = 0;
		if (!c1 || !(path = strchr(c1 + 1, ':')))
			continue;
		path++;
		rank = !strncmp(line, "0::", 3) ? 0
		       : strstr(line, ":name=systemd:") ? 1 : 2;
		if (strcmp(path, "/"))
			rank -= 3;	/* not the root: better */
		if (rank < best) {
			best = rank;
			snprintf(out->cgroup, sizeof(out->cgroup), "%s", path);
		}
	}
	fclose(f);
}

static bool same_root_as_ours(pid_t pid, struct stat *st)
{
	char path[64];
	struct stat ours;

	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if (stat(path, st) || stat("/", &ours))
		return true;	/* cannot tell: paths as they are */
	return st->st_dev == ours.st_dev && st->st_ino == ours.st_ino;
}

int vg_proc_where(pid_t pid, struct vg_proc_where *out, struct vg_err *e)
{
	struct stat st;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (access(path, F_OK))
		return vg_errf(e, "no process with pid %d", (int)pid);
	read_nspid(pid, out);
	read_cgroup(pid, out);
	out->other_root = !same_root_as_ours(pid, &st);
	return 0;
}

int vg_proc_root_prefix(pid_t pid, char *out, size_t len, struct vg_err *e)
{
	struct stat st;
	char path[64];
	unsigned i;
	int fd;

	out[0] = 0;
	if (same_root_as_ours(pid, &st))
		return 0;
	for (i = 0; i < nroots; i++)
		if (roots[i].pid == pid) {
			if (roots[i].dev == st.st_dev &&
			    roots[i].ino == st.st_ino)
				goto found;
			close(roots[i].fd);	/* the pid was reused */
			break;
		}
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return vg_errf(e, "pid %d: cannot open its root directory %s: %s",
			       (int)pid, path, strerror(errno));
	if (i == nroots) {
		if (nroots < VG_ROOTS) {
			nroots++;
		} else {
			i = next_evict++ % VG_ROOTS;
			close(roots[i].fd);
		}
	}
	roots[i].pid = pid;
	roots[i].fd = fd;
	roots[i].dev = st.st_dev;
	roots[i].ino = st.st_ino;
found:
	snprintf(out, len, "/proc/self/fd/%d", roots[i].fd);
	return 0;
}

void vg_proc_root_forget(pid_t pid)
{
	for (unsigned i = 0; i < nroots; i++)
		if (roots[i].pid == pid) {
			close(roots[i].fd);
			roots[i] = roots[--nroots];
			return;
		}
}
