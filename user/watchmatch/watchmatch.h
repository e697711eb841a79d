/* Which processes vigil watch watches: those running one executable
 * (its device and inode, from any mount namespace), or with --lib-mapped
 * those mapping one library, and with --same-build every copy of the
 * executable (the same file name and GNU build id). Its state is behind
 * one pointer of vigil watch's state (user/watch/watch_session.c asks it); it
 * knows nothing of the session. */
#ifndef VIGIL_WATCHMATCH_H
#define VIGIL_WATCHMATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_watch_match;

/* exe: --exe's path (with lib, the library's). NULL with e set: a usage
 * error (no such file; --same-build of a file with no build id, or whose
 * name the exec tracepoint cannot hold), or out of memory. */
struct vg_watch_match *vg_watch_match_new(const char *exe, bool lib,
					  bool same_build, struct vg_err *e);
void vg_watch_match_free(struct vg_watch_match *m);

/* What the lifecycle tracepoints compare with, dev_t as the kernel
 * encodes it (major << 20 | minor): the executable's (0, 0 with lib) and
 * the library's (0, 0 without). A NULL m (no vigil watch) gives zeros. */
void vg_watch_match_ids(const struct vg_watch_match *m, uint32_t *dev,
			uint64_t *ino, uint32_t *lib_dev, uint64_t *lib_ino);
/* --same-build: the file name the exec tracepoint holds every exec of;
 * NULL without (or a NULL m) */
const char *vg_watch_match_name(const struct vg_watch_match *m);
/* A process found running: does it run the executable (a copy of it,
 * with --same-build), or with lib map the library executable? */
bool vg_watch_match_running(const struct vg_watch_match *m, pid_t pid);
/* An exec record's file (dev as the kernel encodes it, ino): is pid
 * now running the executable, or (--same-build) a copy of it? */
bool vg_watch_match_exec(const struct vg_watch_match *m, pid_t pid,
			 uint32_t dev, uint64_t ino);

#endif
