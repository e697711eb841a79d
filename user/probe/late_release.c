/* Probes released after vigil's exit (user/probe/late_release.h). */
#include "late_release.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* the descriptors the holder keeps: what the kernel waits to release */
static const char *const kept[] = {
	"anon_inode:bpf-link", "anon_inode:bpf-map", "anon_inode:bpf-prog",
	"anon_inode:[perf_event]", "anon_inode:bpf_link",
};

/* fd's link target is one of kept[]'s. After fork, in a process that had
 * threads: async-signal-safe calls only (readlink, close, open, the
 * getdents64 system call, _exit), no allocation, no stdio. */
static bool is_kept(int fd)
{
	char path[32] = "/proc/self/fd/", target[64], digits[12];
	int n = 0, len = (int)strlen(path), v = fd;
	ssize_t r;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		path[len++] = digits[--n];
	path[len] = 0;
	if ((r = readlink(path, target, sizeof(target) - 1)) < 0)
		return false;
	target[r] = 0;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (!strncmp(target, kept[i], strlen(kept[i])))
			return true;
	return false;
}

/* Every descriptor but keep and kept[]'s closed. The open ones are listed
 * (/proc/self/fd): a readlink for each number up to the limit was 20,000
 * path lookups, 60 ms of a CPU at every run's end. procfs lists them by
 * number from the reader's place, so closing behind it loses none. */
static void keep_bpf_only(int keep)
{
	char buf[4096];
	long n;
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		return;		/* no procfs: they are all kept */
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			int fd = 0;
			const char *c = d->d_name;

			off += d->d_reclen;
			if (*c < '0' || *c > '9')
				continue;	/* . and .. */
			while (*c >= '0' && *c <= '9')
				fd = fd * 10 + (*c++ - '0');
			if (fd != keep && fd != dir && !is_kept(fd))
				close(fd);
		}
	close(dir);
}

/* The holder's command line, as ps and pgrep -f see it: not vigil's (it
 * names the target: `pgrep -f PROGRAM` would find the holder), but
 * "vigil-release", written over vigil's own arguments, whose bounds
 * /proc/self/stat gives (fields 48 and 49). */
static void rename_args(void)
{
	static const char name[] = "vigil-release";
	char buf[2048], *p;
	unsigned long long start = 0, end = 0;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY), field = 2;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	/* the fields after the command's name, which may hold spaces */
	if (!(p = strrchr(buf, ')')))
		return;
	while (*p && field < 49) {
		if (*p++ != ' ')
			continue;
		field++;
		if (field == 48 || field == 49) {
			unsigned long long v = 0;

			while (*p >= '0' && *p <= '9')
				v = v * 10 + (unsigned long long)(*p++ - '0');
			*(field == 48 ? &start : &end) = v;
		}
	}
	if (!start || end <= start + sizeof(name))
		return;
	memcpy((char *)(uintptr_t)start, name, sizeof(name));
	memset((char *)(uintptr_t)start + sizeof(name), 0,
	       end - start - sizeof(name));
}

int vg_late_release_start(void)
{
	int go[2];
	pid_t mid;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	mid = fork();
	if (mid < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (mid == 0) {
		/* the middle process: its child is the holder, orphaned
		 * (so init reaps it) the moment this one exits */
		if (fork() == 0) {
			char c;

			/* named for ps and for the tests that wait for the
			 * probes to be gone (tests/e2e/lib.sh, uprobes_on).
			 * The system call itself: forked from a process with
			 * threads, this one may call nothing that takes a lock
			 * another thread held at the fork, and a sanitizer's
			 * prctl does (ASan's thread registry: the sanitized
			 * suite's vigil-release hung there) */
			syscall(SYS_prctl, PR_SET_NAME, "vigil-release", 0, 0, 0);
			rename_args();
			keep_bpf_only(go[0]);
			/* EOF when vigil closes its end (or dies) */
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);	/* the releases wait here */
		}
		_exit(0);
	}
	close(go[0]);
	waitpid(mid, NULL, 0);
	return go[1];
}

void vg_late_release_go(int fd)
{
	if (fd >= 0)
		close(fd);
}
