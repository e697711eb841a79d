#include "gdb.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/rundir.h"

/* scripts/gdb/vigil.py, found beside the vigil binary: in the source tree
 * (build/vigil -> scripts/gdb/) or installed (bin/vigil ->
 * share/vigil/). */
static bool find_extension(char *out, size_t len)
{
	static const char *const rel[] = { "/../scripts/gdb/vigil.py",
					   "/../share/vigil/vigil.py" };
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = 0;
	if (!(slash = strrchr(exe, '/')))
		return false;
	*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(out, len, "%s%s", exe, rel[i]);
		if (access(out, R_OK) == 0)
			return true;
	}
	return false;
}

/* `vigil status`: the extension, and the violation report it reads. */
static void gdb_extension(FILE *f, const char *dir, pid_t pid)
{
	char py[PATH_MAX + 64], report[PATH_MAX + 64];

	snprintf(report, sizeof(report), "%s/violation-%d.json", dir, pid);
	if (!find_extension(py, sizeof(py)) || access(report, R_OK))
		return;
	fprintf(f, "source %s\nset $vigil_report = \"%s\"\n"
		   "echo vigil: 'vigil status' shows the violation and its evidence\\n\n",
		py, report);
}

int vg_gdb_prepare(pid_t pid, pid_t tid, const char *why, char *cmd,
		   size_t len, struct vg_err *e)
{
	return vg_gdb_prepare_at(pid, tid, why, 0, cmd, len, e);
}

FILE *vg_gdb_cmdfile(const char *name, char *path, size_t plen,
		     struct vg_err *e)
{
	char dir[PATH_MAX];
	FILE *f;
	int fd;

	if (vg_rundir(dir, sizeof(dir), e))
		return NULL;
	snprintf(path, plen, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		vg_errf(e, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	return f;
}

int vg_gdb_prepare_at(pid_t pid, pid_t tid, const char *why,
		      uint64_t step_to, char *cmd, size_t len,
		      struct vg_err *e)
{
	return vg_gdb_prepare_mend(pid, tid, why, step_to, NULL, 0, cmd, len,
				   e);
}

int vg_gdb_prepare_mend(pid_t pid, pid_t tid, const char *why,
			uint64_t step_to, const struct vg_gdb_pc_mend *m,
			int nmend, char *cmd, size_t len, struct vg_err *e)
{
	char name[64], path[PATH_MAX + 64], dir[PATH_MAX];
	FILE *f;

	snprintf(name, sizeof(name), "gdb-%d.gdb", pid);
	if (!(f = vg_gdb_cmdfile(name, path, sizeof(path), e)))
		return -1;
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
	/* issue 24: an exact kernel-tier stop left the thread at the call
	 * into the function (bpf/rewind.bpf.h); step the call (and a PLT
	 * stub) so frame #0 is the function at its probed instruction, none
	 * of it run, and no other thread (scheduler-locking step). Stepping
	 * never executes the breakpoint there. */
	if (step_to)
		fprintf(f,
			"python\n"
			"lock = gdb.parameter('scheduler-locking')\n"
			"gdb.execute('set scheduler-locking step')\n"
			"for _ in range(64):\n"
			"    if int(gdb.parse_and_eval('$pc')) == %llu:\n"
			"        break\n"
			"    gdb.execute('stepi', to_string=True)\n"
			"gdb.execute('set scheduler-locking ' + lock)\n"
			"end\n",
			(unsigned long long)step_to);
	/* a stop at a probed jmp took effect at its target: back onto the
	 * jmp, the function's frame again (probe/jmp_stop.h) */
	for (int i = 0; i < nmend && i < VG_GDB_MAX_MENDS; i++)
		fprintf(f,
			"python\n"
			"if int(gdb.parse_and_eval('$pc')) == %llu:\n"
			"    gdb.execute('set $pc = %llu')\n"
			"end\n",
			(unsigned long long)m[i].target,
			(unsigned long long)m[i].jmp);
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
	/* the violation report is beside the command file, in RUNDIR */
	snprintf(dir, sizeof(dir), "%.*s",
		 (int)(strrchr(path, '/') - path), path);
	gdb_extension(f, dir, pid);
	/* no pager prompt in the middle of the hand-off, the user's setting
	 * afterwards */
	fputs("set pagination on\n", f);
	if (fclose(f))
		return vg_errf(e, "cannot write %s: %s", path, strerror(errno));
	snprintf(cmd, len, "gdb -p %d -x %s", pid, path);
	return 0;
}

bool vg_gdb_find_extension(char *out, size_t len)
{
	return find_extension(out, len);
}
