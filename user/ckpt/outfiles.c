/* A checkpoint's output files: noted at the dump, handed to CRIU at the
 * restore (ckpt.h says why). */
#include "ckpt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int fd_flags(pid_t pid, int fd)
{
	char path[64], line[128];
	int flags = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %o", (unsigned *)&flags) == 1)
			break;
	fclose(f);
	return flags;
}

/* What pid's descriptor fd is (*st) and the absolute path it names
 * (out), or -1. */
static int fd_link(pid_t pid, int fd, struct stat *st, char *out, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", pid, fd);
	if (stat(link, st))
		return -1;
	n = readlink(link, out, len - 1);
	if (n <= 0 || out[0] != '/')
		return -1;
	out[n] = 0;
	return 0;
}

/* The path of pid's descriptor fd when it is a regular file, or -1. */
static int fd_path(pid_t pid, int fd, char *out, size_t len)
{
	struct stat st;

	if (fd_link(pid, fd, &st, out, len) || !S_ISREG(st.st_mode))
		return -1;
	/* unlinked (CRIU keeps those itself), or a name no line can hold */
	if (strstr(out, " (deleted)") || strchr(out, '\n'))
		return -1;
	return 0;
}

/* A terminal CRIU must take as external: a pseudo-terminal's slave or a
 * console or serial tty (not /dev/tty, which CRIU resolves itself, nor a
 * pty master). */
static bool is_terminal(const struct stat *st)
{
	unsigned int maj = major(st->st_rdev);

	return S_ISCHR(st->st_mode) && ((maj >= 136 && maj <= 143) || maj == 4);
}

/* pid's descriptor fd when it is such a terminal: its CRIU id
 * ("tty[RDEV:DEV]", hex, as CRIU's tty.c names it) and path. -1 if not. */
static int fd_terminal(pid_t pid, int fd, char *id, size_t idlen, char *path,
		       size_t plen)
{
	struct stat st;

	if (fd_link(pid, fd, &st, path, plen) || !is_terminal(&st) ||
	    strchr(path, '\n') || strchr(path, ' '))
		return -1;
	snprintf(id, idlen, "tty[%llx:%llx]", (unsigned long long)st.st_rdev,
		 (unsigned long long)st.st_dev);
	return 0;
}

/* Adds id to t unless it is there already; false when t is full. */
static bool add_tty_id(struct vg_outfiles_ttys *t, const char *id)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->id[i], id))
			return true;
	if (t->n == VG_OUTFILES_MAX)
		return false;
	snprintf(t->id[t->n++], VG_TTY_ID_MAX, "%s", id);
	return true;
}

int vg_outfiles_save(pid_t pid, const char *dir, struct vg_outfiles_ttys *ttys,
		     struct vg_err *e)
{
	char path[PATH_MAX + 32], fdir[64], file[PATH_MAX], id[VG_TTY_ID_MAX];
	struct dirent *de;
	FILE *out;
	DIR *d;

	snprintf(path, sizeof(path), "%s/outfiles", dir);
	snprintf(fdir, sizeof(fdir), "/proc/%d/fd", pid);
	if (ttys)
		ttys->n = 0;
	if (!(d = opendir(fdir)))
		return vg_errf(e, "cannot read %s: %s", fdir, strerror(errno));
	if (!(out = fopen(path, "w"))) {
		closedir(d);
		return vg_errf(e, "cannot write %s: %s", path, strerror(errno));
	}
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		int flags;

		if (*end || end == de->d_name)
			continue;
		if (ttys && !fd_terminal(pid, (int)fd, id, sizeof(id), file,
					 sizeof(file))) {
			if (add_tty_id(ttys, id))	/* else CRIU says which */
				fprintf(out, "%ld %s %s\n", fd, id, file);
			continue;
		}
		if (fd_path(pid, (int)fd, file, sizeof(file)) ||
		    (flags = fd_flags(pid, (int)fd)) < 0 ||
		    (flags & O_ACCMODE) == O_RDONLY)
			continue;
		fprintf(out, "%ld %o %s\n", fd, (unsigned)flags, file);
	}
	closedir(d);
	if (fclose(out))
		return vg_errf(e, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

/* The descriptor of the old process, when it still has that file there. */
static int take_from(pid_t from, int fd, const char *file)
{
	char now[PATH_MAX];
	int pfd, got;

	if (from <= 0 || fd_path(from, fd, now, sizeof(now)) || strcmp(now, file))
		return -1;
	if ((pfd = (int)syscall(SYS_pidfd_open, from, 0)) < 0)
		return -1;
	got = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);	/* close-on-exec */
	close(pfd);
	return got;
}

/* *fd moved away from 0-2, which criu's log takes; false if it could
 * not be (then closed). */
static bool keep_above_stdio(int *fd)
{
	int hi;

	if (*fd >= 3)
		return true;
	hi = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	close(*fd);
	*fd = hi;
	return hi >= 0;
}

static int open_again(const char *file, int flags)
{
	int fd = open(file, (flags & ~(O_CREAT | O_TRUNC | O_EXCL | O_TMPFILE)) |
			    O_CLOEXEC | O_NOCTTY);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0 && errno != ESPIPE) {
		close(fd);
		return -1;
	}
	return fd;
}

/* An outfiles line "FD tty[RDEV:DEV] PATH": the terminal opened again,
 * if it is still the same device, for `--inherit-fd fd[N]:tty[RDEV:DEV]`
 * (the dump took it as external). One descriptor per terminal. */
static void add_terminal(struct vg_outfiles *of, const char *line,
			 const char *path)
{
	char id[VG_TTY_ID_MAX], now[VG_TTY_ID_MAX];
	struct stat st;
	int nfd;

	_Static_assert(VG_TTY_ID_MAX == 40, "the %39s below");
	if (sscanf(line, "%*d %39s", id) != 1)
		return;
	for (int i = 0; i < of->n; i++)
		if (!strcmp(strchr(of->arg[i], ':') + 1, id))
			return;
	if ((nfd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return;		/* gone: CRIU will say which terminal */
	snprintf(now, sizeof(now), "tty[%llx:%llx]", 0ull, 0ull);
	if (!fstat(nfd, &st))
		snprintf(now, sizeof(now), "tty[%llx:%llx]",
			 (unsigned long long)st.st_rdev,
			 (unsigned long long)st.st_dev);
	if (strcmp(now, id)) {
		close(nfd);	/* another device under that name now */
		return;
	}
	if (!keep_above_stdio(&nfd))
		return;
	of->fd[of->n] = nfd;
	snprintf(of->arg[of->n], sizeof(of->arg[0]), "fd[%d]:%s", nfd, id);
	of->n++;
}

int vg_outfiles_open(const char *dir, pid_t from, struct vg_outfiles *of,
		     struct vg_err *e)
{
	char path[PATH_MAX + 32], line[PATH_MAX + 64];
	FILE *f;

	of->n = 0;
	snprintf(path, sizeof(path), "%s/outfiles", dir);
	if (!(f = fopen(path, "r")))
		return errno == ENOENT ? 0 : vg_errf(e, "cannot read %s: %s",
						     path, strerror(errno));
	while (fgets(line, sizeof(line), f) && of->n < VG_OUTFILES_MAX) {
		unsigned flags;
		int fd, pos = 0, nfd;
		const char *file;
		bool dup = false;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%d tty[%*[0-9a-f:]] %n", &fd, &pos) == 1 &&
		    pos) {
			add_terminal(of, line, line + pos);
			continue;
		}
		if (sscanf(line, "%d %o %n", &fd, &flags, &pos) != 2 || !pos ||
		    line[pos] != '/')
			continue;
		file = line + pos;
		/* one descriptor per file: CRIU finds every use of it by path */
		for (int i = 0; i < of->n; i++)
			if (!strcmp(strchr(of->arg[i], ':') + 1, file + 1))
				dup = true;
		if (dup)
			continue;
		nfd = take_from(from, fd, file);
		if (nfd < 0)
			nfd = open_again(file, (int)flags);
		if (nfd < 0)
			continue;	/* gone: CRIU will say which file */
		if (!keep_above_stdio(&nfd))
			continue;
		of->fd[of->n] = nfd;
		snprintf(of->arg[of->n], sizeof(of->arg[0]), "fd[%d]:%s", nfd,
			 file + 1);
		of->n++;
	}
	fclose(f);
	return 0;
}

void vg_outfiles_close(struct vg_outfiles *of)
{
	for (int i = 0; i < of->n; i++)
		close(of->fd[i]);
	of->n = 0;
}
