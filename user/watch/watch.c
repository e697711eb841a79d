/* vg_watch_run: the session in watch mode (watch.h). */
#include "watch/watch.h"
#include "watch/watch_session.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int vg_watch_run(struct vg_spec *spec, const struct vg_watch_opts *o,
		 struct vg_err *e)
{
	struct vg_session_opts so = o->session;
	struct vg_watch_cfg cfg = { .lib = o->lib, .same_build = o->same_build,
				    .hooks = o->hooks };
	char real[PATH_MAX];
	struct stat st;

	if (!o->exe)
		return vg_errf_code(e, VG_EXIT_USAGE, "no executable to watch (--exe PATH)");
	if (!realpath(o->exe, real) || stat(real, &st))
		return vg_errf_code(e, VG_EXIT_USAGE, "--exe %s: no such file", o->exe);
	if (!S_ISREG(st.st_mode) || (!o->lib && !(st.st_mode & 0111)))
		return vg_errf_code(e, VG_EXIT_USAGE, "--exe %s: not an executable file", o->exe);
	so.argv = NULL;
	so.pid = 0;
	so.follow_forks = true;
	so.watch_exe = real;
	if (o->same_build && o->lib)
		return vg_errf_code(e, VG_EXIT_USAGE, "--same-build goes with --exe, not --lib-mapped");
	cfg.max_procs = o->max_procs ? o->max_procs : VG_WATCH_MAX_PROCS;
	/* the session calls vigil watch's side through this table
	 * (watch_session.c) */
	so.watch_ops = &vg_watch_session_ops;
	so.watch_arg = &cfg;
	return vg_session_run(spec, &so, e);
}
