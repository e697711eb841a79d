/* vigil watch as a library: every process running one executable, those
 * running now and those started later, each with its own monitor.
 *
 * vg_watch_run monitors until SIGINT or SIGTERM, or until the hooks'
 * keep_going says no (polled at every wake-up of the loop, at least every
 * 10 ms). The hooks are called from the loop's thread. The statistics
 * are updated as things happen and may be read from a hook.
 *
 * How it works (user/session/session_watch.c): a process that execs the
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
#include "spec/spec.h"

enum vg_watch_what {
	VG_WATCH_STARTED,	/* monitored from its exec (held there) */
	VG_WATCH_ATTACHED,	/* found running, attached */
	VG_WATCH_FORKED,	/* a monitored process's child */
	VG_WATCH_REFUSED,	/* not monitored: --max-procs reached */
	VG_WATCH_STOPPED,	/* a reaction left it stopped for gdb */
	VG_WATCH_EXITED,	/* ended; its state is freed */
	VG_WATCH_LEFT,		/* exec'd another program: no longer watched */
};

/* A process, as the reports name it. */
struct vg_watch_proc {
	enum vg_watch_what what;
	pid_t pid;		/* on the host */
	pid_t ns_pid;		/* inside its pid namespace (= pid outside
				 * containers) */
	const char *cgroup;	/* its cgroup path ("" unknown) */
	int status;		/* VG_WATCH_EXITED: the wait status */
	uint64_t violations;	/* so far, in this process */
};

/* A violation, as reported (text and JSON are the session's reports). */
struct vg_watch_verdict {
	const struct vg_watch_proc *proc;
	const char *property;
	const char *state;	/* the violation state entered */
	const uint64_t *params;	/* the slice, nparams values */
	int nparams;
	uint32_t tid;
	bool stopped;		/* the process is left stopped */
};

struct vg_watch_stats {
	uint64_t processes;	/* monitored so far, in all */
	uint64_t live;		/* monitored now */
	uint64_t max_live;	/* at most at once */
	uint64_t refused;	/* not monitored: --max-procs */
	uint64_t exited;
	uint64_t violations;
	uint64_t stopped;	/* left stopped by a reaction */
};

struct vg_watch_hooks {
	void *ctx;
	void (*process)(void *ctx, const struct vg_watch_proc *p);
	void (*verdict)(void *ctx, const struct vg_watch_verdict *v);
	bool (*keep_going)(void *ctx);	/* NULL: until a signal */
	/* SIGHUP, SIGINT or SIGTERM arrived (taken by the loop's signalfd):
	 * true when the caller handled it (a reload on SIGHUP, say) and the
	 * watch goes on; false (or NULL) ends it */
	bool (*on_signal)(void *ctx, int sig);
	struct vg_watch_stats *stats;	/* kept up to date, or NULL */
};

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
