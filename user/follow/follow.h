/* The processes a run follows besides its target: --follow-fork's
 * descendants and vigil watch's processes, each with a monitor, evidence
 * and symbolizer of its own, and the count of the forks and execs the
 * target's tree reported. The set is opaque; one process (struct vg_kid)
 * is its record, which the session and vigil watch fill in. The session
 * keeps one pointer (struct session's procs), and a vigil load unit its
 * own set (each process's monitor for the unit's properties). */
#ifndef VIGIL_FOLLOW_H
#define VIGIL_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vg_spec;
struct vg_monitor;
struct vg_evidence;
struct vg_symbolizer;
struct vg_report;
struct vg_err;

struct vg_follow;

/* One followed process. Its address holds until it is removed. */
struct vg_kid {
	pid_t pid;
	struct vg_monitor *mon;
	struct vg_evidence *evidence;
	bool gone;			/* its exit was seen (VG_PROC_EXIT) */
	/* vigil watch: where it lives (NSpid, cgroup: malloc'ed or NULL),
	 * its violations, left stopped by a reaction */
	pid_t ns_pid;
	char *cgroup;
	uint64_t violations;
	bool stopped;
	struct vg_symbolizer *sym;	/* its stacks', at first use */
};

/* NULL when out of memory. Every call below takes a NULL set as an empty
 * one, except add. */
struct vg_follow *vg_follow_new(void);
/* frees every process's monitor, evidence, symbolizer and cgroup */
void vg_follow_free(struct vg_follow *f);

/* pid followed, with its monitor and evidence (taken: freed with it);
 * NULL when out of memory (then they are not taken) */
struct vg_kid *vg_follow_add(struct vg_follow *f, pid_t pid,
			     struct vg_monitor *mon, struct vg_evidence *x);
struct vg_kid *vg_follow_find(const struct vg_follow *f, pid_t pid);
/* The processes in order, i from 0 to count - 1 (a removal moves the
 * last into the removed one's place, as before) */
int vg_follow_count(const struct vg_follow *f);
struct vg_kid *vg_follow_at(const struct vg_follow *f, int i);
void vg_follow_foreach(const struct vg_follow *f,
		       void (*cb)(void *ctx, struct vg_kid *k), void *ctx);
/* k's state freed, k with it */
void vg_follow_remove(struct vg_follow *f, struct vg_kid *k);
/* pid's exit was seen */
void vg_follow_mark_gone(struct vg_follow *f, pid_t pid);
/* those whose exit was not seen */
int vg_follow_live(const struct vg_follow *f);
/* Is one not marked gone still running? Its exit record may have been
 * lost: /proc says too (and marks it gone when it is not). */
bool vg_follow_running(struct vg_follow *f);

/* Every process's monitor's timeouts: the earliest deadline (UINT64_MAX:
 * none); each due by now fired, how many (-1 with e set) */
uint64_t vg_follow_next_deadline(const struct vg_follow *f);
int vg_follow_expire(struct vg_follow *f, uint64_t now, struct vg_err *e);
/* Each process's final verdicts, with its evidence (the report keeps the
 * last one's): of every property at the end (prop -1), or of prop at its
 * `vigil unload` */
void vg_follow_report_final(const struct vg_follow *f, struct vg_report *r,
			    int prop);
/* `vigil unload`: prop out of every process's monitor */
void vg_follow_disable(struct vg_follow *f, int prop);

/* The forks and execs the target's tree reported: each counted, the
 * total so far returned (the reports number them) */
uint64_t vg_follow_count_fork(struct vg_follow *f);
uint64_t vg_follow_count_exec(struct vg_follow *f);
void vg_follow_counts(const struct vg_follow *f, uint64_t *forks,
		      uint64_t *execs);
/* vigil run: true the first time only, for the exec that starts the
 * program (no news, the run's start); its file, as the kernel encodes
 * its inode and device, is kept for vg_follow_is_program */
bool vg_follow_launch_exec(struct vg_follow *f, uint64_t ino, uint32_t dev);
/* Is the file a later exec ran (the kernel's inode and device) the
 * program's? 1 yes, 0 no, -1 not known (attached: no launch exec seen).
 * The kernel's own numbers, not stat's: on overlayfs (a container's root,
 * the QEMU lane's) stat gives a layer's device and inode, not those of the
 * file the kernel opened. */
int vg_follow_is_program(const struct vg_follow *f, uint64_t ino,
			 uint32_t dev);

/* What a fork and an exec do to a monitor, the spec's:
 * the child's monitor `to` starts with every slice of its parent's
 * `from` not in a violation state, globals too; how many could not be
 * copied (out of memory) */
int vg_follow_copy_monitor(const struct vg_spec *spec,
			   struct vg_monitor *from, struct vg_monitor *to);
/* an exec: every slice of m back to its initial state, which frees it */
void vg_follow_forget_slices(const struct vg_spec *spec,
			     struct vg_monitor *m);

#endif
