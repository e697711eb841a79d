#include "gdb.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/rundir.h"

int vg_gdb_prepare(pid_t pid, pid_t tid, const char *why, char *cmd,
		   size_t len, struct vg_err *e)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	FILE *f;
	int fd;

	if (vg_rundir(dir, sizeof(dir), e))
		return -1;
	snprintf(path, sizeof(path), "%s/gdb-%d.gdb", dir, pid);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return vg_errf(e, "cannot write %s: %s", path, strerror(errno));
	}
	fprintf(f,
		"# written by vigil for pid %d, stopped at a violation\n"
		"set pagination off\n"
		"handle SIGCONT nostop noprint pass\n"
		"shell kill -CONT %d\n"
		"python\n"
		"for t in gdb.selected_inferior().threads():\n"
		"    if t.ptid[1] == %d:\n"
		"        t.switch()\n"
		"end\n",
		pid, pid, tid);
	if (why) {
		fputs("echo vigil: ", f);
		for (const char *c = why; *c && *c != '\n'; c++) {
			if (*c == '\\' || *c == '"')
				fputc('\\', f);
			fputc(*c, f);
		}
		fprintf(f, "\\n\necho vigil: thread %d is selected; 'bt' shows the call, 'continue' resumes\\n\n",
			tid);
	}
	/* no pager prompt in the middle of the hand-off, the user's setting
	 * afterwards */
	fputs("set pagination on\n", f);
	if (fclose(f))
		return vg_errf(e, "cannot write %s: %s", path, strerror(errno));
	snprintf(cmd, len, "gdb -p %d -x %s", pid, path);
	return 0;
}
