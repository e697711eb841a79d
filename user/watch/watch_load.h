/* Private to user/watch/: `vigil load` and `vigil unload` in vigil watch
 * (watch_load.c).
 *
 * A spec loaded into a watch session is a unit (load/load.h), a
 * part of the run (vg_run_part), whose probe set follows the session's
 * processes instead of one pid: one BPF object for every watched process,
 * with uprobe links per process (in its own files, probe_remap.c) and a
 * monitor per process. The session finds and holds the processes (at
 * their exec or fork) and tells its units before it lets one go, so a
 * unit's probes are in from the process's first instruction; a process it
 * lets go of leaves its units too. A unit hears of a fork and an exit in
 * its own ring, in order with its events.
 *
 * root is the session (the watch's run), unit one of its units; both are
 * read through vg_run_* and vg_watch_host_* (feature/watch_ops.h). */
#ifndef VIGIL_WATCH_LOAD_H
#define VIGIL_WATCH_LOAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_run;
struct vg_rec_proc;

/* Unit is open (its probe set a follower): every process the session
 * watches now gets its monitor and its links, attached while it runs.
 * A process whose links cannot go in is said and left out of the unit. */
int vg_watch_load_start(struct vg_run *root, struct vg_run *unit,
			struct vg_err *e);
/* The session follows pid (held at its exec, or running): each unit's
 * monitor and links for it, before the session lets it go. */
void vg_watch_load_adopt(struct vg_run *root, pid_t pid);
/* A watched process forked and the session follows the child (held at
 * the fork): each unit has its copy of the parent's slices (from its own
 * fork record) and its links, before the session lets it go. */
void vg_watch_load_forked(struct vg_run *root, pid_t child);
/* pid exec'd the watched program again: a new history in each unit. */
void vg_watch_load_exec(struct vg_run *root, pid_t pid);
/* The session lets go of pid (refused, left, dropped, or vigil ends):
 * with verdicts (it was watched), each unit's verdicts for it, then its
 * links and monitor go. */
void vg_watch_load_forget(struct vg_run *root, pid_t pid, bool verdicts);
/* A reaction left pid stopped for gdb: every unit's links in it out (the
 * session's own go with vg_probe_unfollow). */
void vg_watch_load_unfollow(struct vg_run *root, pid_t pid);
/* Around one watched process's checkpoint (ckpt/watch_ckpt.c): every unit's
 * links in it out, and back (a unit whose links cannot go back leaves
 * the process). */
void vg_watch_load_pause(struct vg_run *root, pid_t pid);
void vg_watch_load_unpause(struct vg_run *root, pid_t pid);
/* A process record in a unit's own ring (fork, exec, exit). */
int vg_watch_load_process(struct vg_run *unit, const struct vg_rec_proc *p);
/* A unit's verdicts per process (its unload, or the end of the run). */
void vg_watch_load_final(struct vg_run *unit);

#endif
