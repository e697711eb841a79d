#include "gdb_live.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gdb.h"

int vg_gdb_prepare_live(pid_t pid, const char *sock, char *cmd, size_t len,
			struct vg_err *e)
{
	char name[64], path[PATH_MAX + 64], py[PATH_MAX + 64];
	FILE *f;

	if (!vg_gdb_find_extension(py, sizeof(py)))
		return vg_errf(e, "vigil's gdb extension (vigil.py) is not installed beside %s",
			       "the vigil binary");
	snprintf(name, sizeof(name), "gdb-live-%d.gdb", pid);
	if (!(f = vg_gdb_cmdfile(name, path, sizeof(path), e)))
		return -1;
	/* SIGSTOP: vigil's, never passed on (a passed one becomes a group
	 * stop that outlives gdb); whether gdb shows it is the extension's
	 * catchpoint's business. SIGCONT: vigil's resumes, let through. The
	 * target may be in a group stop (held at its entry, or stopped at a
	 * violation before gdb came): gdb cannot resume it before a SIGCONT,
	 * which the `kill -CONT` queues while gdb holds it. */
	fprintf(f,
		"# written by vigil: joins the live session of pid %d\n"
		"set pagination off\n"
		/* x/i and disassemble show the program's bytes, not the
		 * probes' int3s */
		"set trust-readonly-sections on\n"
		"handle SIGSTOP nostop noprint nopass\n"
		"handle SIGCONT nostop noprint pass\n"
		"source %s\n"
		"python vigil_live_join(\"%s\", %d)\n"
		"shell kill -CONT %d\n",
		pid, py, sock, pid, pid);
	if (fclose(f))
		return vg_errf(e, "cannot write %s: %s", path, strerror(errno));
	snprintf(cmd, len, "gdb -q -p %d -x %s", pid, path);
	return 0;
}
