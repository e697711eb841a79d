/* vigil watch: the checkpoint reaction per watched process
 * (watch_ckpt.c). Private to user/session/. */
#ifndef VIGIL_WATCH_CKPT_H
#define VIGIL_WATCH_CKPT_H

#include <sys/types.h>

#include "util/err.h"

struct session;

/* After a transition of pid went through the scenario: a checkpoint it
 * asked for (or the kernel tier's stop for one) is noted for pid. */
void vg_watch_ckpt_note(struct session *ss, pid_t pid);
/* After a drain: take the checkpoints noted, each of its own process.
 * -1 (e set) only when the session cannot go on. */
int vg_watch_ckpt_run(struct session *ss, struct vg_err *e);
/* pid is no longer watched: its ring goes (its images stay). */
void vg_watch_ckpt_forget(struct session *ss, pid_t pid);
void vg_watch_ckpt_free(struct session *ss);

#endif
