/* CRIU checkpoints of the target: a directory per image under one
 * checkpoint directory, a retention ring of the last N, and a small
 * meta file per image (time, event count, reason) beside the monitor's own
 * state, which the caller writes through a callback.
 *
 * Layout (DIR is --checkpoint-dir, default /dev/shm/vigil-UID/ckpt-PID on
 * a tmpfs /dev/shm, else RUNDIR/ckpt-PID):
 *   DIR/ck-0001/          criu images of checkpoint 1
 *   DIR/ck-0001/meta      key=value lines, see vg_ckpt_meta
 *   DIR/ck-0001/monitor.state   written by the caller
 *   DIR/ck-0001/outfiles  the files it writes to (act/outfiles.h)
 *
 * The caller freezes the target and detaches its uprobes around
 * vg_ckpt_take (act/checkpoint.c says why); this module only runs CRIU and
 * keeps the ring. */
#ifndef VIGIL_CHECKPOINT_H
#define VIGIL_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_ckpt;

struct vg_ckpt_opts {
	const char *dir;	/* NULL: see the layout above */
	int keep;		/* images kept; 0 = default (8) */
	uint64_t min_gap_ms;	/* at most one checkpoint per gap; 0 = none */
};

/* What vigil knows about one image. */
struct vg_ckpt_meta {
	pid_t pid;
	char exe[4096];
	char reason[256];
	uint64_t events;	/* events seen when it was taken */
	uint64_t time_ns;	/* CLOCK_REALTIME */
	bool good;		/* taken while the property was not violated */
	bool has_state;		/* monitor.state is beside it */
};

typedef int (*vg_ckpt_state_fn)(void *ctx, FILE *out, struct vg_err *e);

struct vg_ckpt *vg_ckpt_new(pid_t pid, const char *exe,
			    const struct vg_ckpt_opts *o, struct vg_err *e);
void vg_ckpt_free(struct vg_ckpt *c);

/* Is a checkpoint due, or would it come too soon after the last one
 * (opts.min_gap_ms)? */
bool vg_ckpt_due(const struct vg_ckpt *c);
/* The same rule for other kinds of snapshot: true (and *last_ns = now)
 * when gap_ms have passed since *last_ns, or it is 0. */
bool vg_ckpt_gap_ok(uint64_t *last_ns, uint64_t gap_ms);

/* Dump the (frozen, probe-free) target with `criu dump --leave-running`
 * into a new image directory, then write meta and, through state(), the
 * monitor state. Drops the oldest image past the ring. Returns 0 and the
 * image's path in out, or -1 with e set (the target is untouched: a failed
 * dump leaves it running and the image is removed). */
int vg_ckpt_take(struct vg_ckpt *c, const char *reason, uint64_t events,
		 bool good, vg_ckpt_state_fn state, void *ctx, char *out,
		 size_t outlen, struct vg_err *e);

/* The newest image taken while good, or NULL. */
const char *vg_ckpt_last_good(const struct vg_ckpt *c);
int vg_ckpt_count(const struct vg_ckpt *c);
/* The i-th kept image, oldest first: its path in out; returns its number
 * (ck-NNNN), or -1 past the end. */
int vg_ckpt_image(const struct vg_ckpt *c, int i, char *out, size_t len);

/* Read DIR/meta. */
int vg_ckpt_read_meta(const char *dir, struct vg_ckpt_meta *m,
		      struct vg_err *e);

/* `criu restore` of the image in dir, detached, the process left stopped.
 * The pid must be free. Returns the restored pid, or -1 with e set. */
pid_t vg_ckpt_restore(const char *dir, struct vg_err *e);
/* The same, with the output files' descriptors given (act/outfiles.h:
 * vg_outfiles_open, taken from the process being replaced while it was
 * alive); vg_ckpt_restore opens them by path. */
struct vg_outfiles;
pid_t vg_ckpt_restore_with(const char *dir, const struct vg_outfiles *of,
			   struct vg_err *e);

/* The CRIU binary: $VIGIL_CRIU, else criu on PATH, /usr/local/sbin/criu. */
const char *vg_criu_path(void);

#endif
