/* vigil watch as a library: every process running one executable, those
 * running now and those started later, each with its own monitor.
 *
 * vg_watch_run monitors until SIGINT or SIGTERM, or until the hooks'
 * keep_going says no (polled at every wake-up of the loop, at least every
 * 10 ms). The hooks are called from the loop's thread. The statistics
 * are updated as things happen and may be read from a hook.
 *
 * How it works (watch_session.c, which the session calls through
 * feature/watch_ops.h's table): a process that execs the
 * executable is held at the exec by the exec tracepoint until its probes
 * are attached (per process, as --follow-fork does for a fork's child),
 * so nothing it runs escapes; one already running is attached as vigil
 * attach does; its forks are followed; its exit frees its state. With
 * lib set, the processes that map a shared library instead, held as
 * their mmap of it returns. */
#ifndef VIGIL_WATCH_H
#define VIGIL_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "session/session.h"
#include "watch/watch_hooks.h"
#include "spec/spec.h"

struct vg_watch_opts {
	const char *exe;	/* the executable (any path to it) */
	bool lib;		/* exe is a library: every process that
				 * maps it (--lib-mapped) */
	/* also every copy of exe: a process whose executable has exe's
	 * file name and GNU build id (a container image's copy, an
	 * overlay's upper layer) */
	bool same_build;
	unsigned max_procs;	/* at once; 0: VG_WATCH_MAX_PROCS */
	/* everything else as for vigil attach: json_path, max_slices (per
	 * process), on_violation, tier, ringbuf_bytes, evidence, libs,
	 * quiet (pid, argv, follow_forks are set by vg_watch_run) */
	struct vg_session_opts session;
	const struct vg_watch_hooks *hooks;	/* or NULL */
};

#define VG_WATCH_MAX_PROCS 1024

/* Returns VG_EXIT_OK, VG_EXIT_VIOLATION (a violation in some process), or
 * -1 with e set (a bad option: VG_EXIT_USAGE in e->code). */
int vg_watch_run(struct vg_spec *spec, const struct vg_watch_opts *o,
		 struct vg_err *e);

#endif
