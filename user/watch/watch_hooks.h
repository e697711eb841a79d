/* What vigil watch tells its caller's hooks (watch.h): a process
 * watched, a violation, the live counts. */
#ifndef VIGIL_WATCH_HOOKS_H
#define VIGIL_WATCH_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

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

#endif
